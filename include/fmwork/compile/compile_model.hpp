// --compile: turns the loaded model into the runner the sweep times.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "fmwork/domain/run_options.hpp"
#include "fmwork/model/model.hpp"
#include "fmwork/platform/platform.hpp"

namespace fmwork {

// Whether compile_model() builds a Hugging Face folder's package from the folder with transformers' own class:
// --compile given (`compile`), not disabled, and the backend for a folder (--compile:backend, else the
// platform's first, else torch.compile's default) is inductor, or openvino is given: both convert the folder
// with transformers' own class. The loader then need not run the class itself.
bool compiles_from_folder(bool compile, const CompileOptions& options, const Platform& platform);

// Whether the request asks for CUDA graphs: --compile with --compile:backend cudagraphs (CUDA graphs around
// the model as loaded, torch.compile's "cudagraphs") or --compile:mode reduce-overhead (around the compiled
// model, inductor's package), not disabled.
bool wants_cuda_graphs(bool compile, const CompileOptions& options);

// Refuses, before anything is loaded, what the compile step would refuse whatever the model: CUDA graphs off
// cuda (one usage Error, one wording; a platform whose own backend is asked for judges its options itself).
void check_compile_request(bool compile, const CompileOptions& options, const Platform& platform);

// What the command line asks of the compile step.
struct CompileRequest {
  bool compile = false;    // --compile
  bool eval = false;       // --eval (the torchscript backend freezes, which needs eval mode)
  CompileOptions options;  // --compile:...
  ModelSource source;      // where the model came from, for backends that rebuild it from its files
};

// `model` compiled as `request` says, with notes on what was done (MODEL text). Without --compile the model
// comes back as is (with a note when --compile: options were given anyway). Backends: the platform's own
// (first when --compile:backend is not given); "torchscript" (freeze + optimize_for_inference, a TorchScript
// model in eval mode; the default for TorchScript files); "inductor" (torch.compile's default: an
// AOTInductor package built from a Hugging Face folder, inductor_backend.hpp); "openvino" (OpenVINO IR run by
// its C++ runtime on the CPU, openvino_backend.hpp); "cudagraphs" (the model as loaded, CUDA graphs around
// it). --compile:mode reduce-overhead adds CUDA graphs around what the backend made
// (platform/cuda/cuda_graphs.hpp: one graph per batch x input); both only on cuda (check_compile_request). Other torch.compile backends are refused with a usage Error naming what exists.
Compiled compile_model(std::unique_ptr<Model> model, const CompileRequest& request, Platform& platform);

}  // namespace fmwork
