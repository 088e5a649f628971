// An AOTInductor package (.pt2, made by torch._inductor.aoti_compile_and_package) run from C++ with
// torch::inductor::AOTIModelPackageLoader: no Python in the loop. A `.pt2` --model_name is one; the
// inductor backend (inductor_backend.hpp) builds them from Hugging Face folders.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "fmwork/cache/aoti_metadata.hpp"  // AotiFacts: the package's metadata, read strictly
#include "fmwork/model/model.hpp"

namespace fmwork {

// A loaded package. Not copyable: it owns the loader (and the folder the package was unpacked into).
class AotiPackage {
 public:
  // Loads the package at `path` for `device` (the package's own device must match), after checking its
  // zip (verify_zip_file: a damaged member is a runtime Error, never unpacked), unpacked into a folder of
  // its own under TMPDIR that goes with the package or the failed load. Throws a usage Error for a path
  // that is not a package, a runtime Error when LibTorch cannot load it or its code crashes while loading
  // (run_guarding_crashes), naming the path, and a usage Error when its metadata or call spec says what the
  // driver cannot run or holds a bad value (aoti_facts_from).
  AotiPackage(const std::string& path, const torch::Device& device);
  ~AotiPackage();
  AotiPackage(const AotiPackage&) = delete;
  AotiPackage& operator=(const AotiPackage&) = delete;

  const AotiFacts& facts() const { return facts_; }
  const std::string& path() const { return path_; }
  // Why the package cannot run batch x input ("" when it can): the package does not check its exported
  // ranges itself, so a shape outside them must be refused before it runs.
  std::string refuses(int64_t batch, int64_t input) const;
  // One forward: the batch's tensors in facts().inputs order; the outputs as a tuple (one output: itself).
  torch::IValue run(const Batch& batch);
  int64_t parameter_count();

 private:
  struct Scratch;
  struct Loader;
  std::string path_;
  std::unique_ptr<Scratch> scratch_;  // before loader_: destroyed after it
  std::unique_ptr<Loader> loader_;
  AotiFacts facts_;
  std::vector<torch::Tensor Batch::*> feeds_;  // facts_.inputs as Batch fields, resolved once
  std::vector<at::Tensor> inputs_;             // reused by run(): nothing to build inside a rep
};

// A `.pt2` file as --model_name: the package, with the vocabulary of a config.json (and tokenizer files)
// beside it or --model:vocab_size. Hugging Face-only --model: keys and a dtype cast are refused (a
// package's dtype is fixed when it is built).
std::unique_ptr<Model> load_aoti_model(const LoadRequest& request);

}  // namespace fmwork
