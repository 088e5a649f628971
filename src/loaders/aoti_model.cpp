// AOTInductor packages run by LibTorch's package loader (see aoti_model.hpp).
#include "fmwork/loaders/aoti_model.hpp"

#include <torch/csrc/inductor/aoti_package/model_package_loader.h>

#include <stdlib.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "fmwork/base/crash_guard.hpp"
#include "fmwork/base/error.hpp"
#include "fmwork/cli/model_keys.hpp"
#include "fmwork/base/regular_file.hpp"
#include "fmwork/base/zip_archive.hpp"
#include "fmwork/runtime/exception_cause.hpp"
#include "fmwork/loaders/torchscript_model.hpp"

namespace fmwork {

// LibTorch's loader unpacks a package into a new <TMPDIR>/aotinductor_<random> folder, and a load that
// throws leaves it behind. The load runs with TMPDIR naming a folder of our own, so that the folder it made
// is known and removed, and nothing else in the real TMPDIR is touched. A member of AotiPackage made before
// the loader: removed after the loader is gone, and also when the load throws or crashes (the crash guard
// skips the loader's own cleanup).
struct AotiPackage::Scratch {
  Scratch() {
    const char* outer = std::getenv("TMPDIR");
    if (outer) saved = outer;
    std::string pattern = (std::filesystem::temp_directory_path() / "fmwork-aoti-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr)
      throw runtime_error(fmt::format("cannot create a folder in {} to unpack the package into ({}); set TMPDIR "
                                      "to a writable folder",
                                      std::filesystem::temp_directory_path().string(), std::strerror(errno)));
    path = pattern;
    ::setenv("TMPDIR", path.c_str(), 1);
  }
  ~Scratch() {
    restore();
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  void restore() {  // TMPDIR as it was, once the loader has made its folder
    if (saved) ::setenv("TMPDIR", saved->c_str(), 1);
    else ::unsetenv("TMPDIR");
  }

  std::optional<std::string> saved;
  std::string path;
};

struct AotiPackage::Loader {
  torch::inductor::AOTIModelPackageLoader loader;
  Loader(const std::string& path, c10::DeviceIndex index) : loader(path, "model", false, 1, index) {}
};

namespace {

// The package's metadata as LibTorch read it (its *_metadata.json), interpreted in the core; the call spec
// only when the metadata does not name the inputs.
AotiFacts read_facts(torch::inductor::AOTIModelPackageLoader& loader, const std::string& path) {
  std::map<std::string, std::string> metadata;
  for (const auto& [key, value] : loader.get_metadata()) metadata[key] = value;
  return aoti_facts_from(metadata, [&] {
    const std::vector<std::string> specs = loader.get_call_spec();  // (in_spec, out_spec)
    if (specs.empty()) throw usage_error(path + ": the package has no call spec and its metadata names no inputs");
    return specs.front();
  }, path);
}

std::string range_text(int64_t lo, int64_t hi) { return lo == hi ? std::to_string(lo) : fmt::format("{} to {}", lo, hi); }

}  // namespace

AotiPackage::AotiPackage(const std::string& path, const torch::Device& device) : path_(path) {
  refuse_special_file(path);  // a FIFO, directory or dangling link, said as such
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error))
    throw usage_error(path + ": not an AOTInductor package (.pt2) file");
  verify_zip_file(path);  // LibTorch's loader checks no CRC: a damaged shared object would be dlopen()ed and crash
  scratch_ = std::make_unique<Scratch>();
  try {  // the package's shared object runs its own code while it loads: a crash is an Error, not our death
    run_guarding_crashes([&] { loader_ = std::make_unique<Loader>(path, device.has_index() ? device.index() : -1); },
                         path, "its code is damaged or was built for another LibTorch or CPU; build it again");
    scratch_->restore();
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw runtime_error(path + ": cannot load as an AOTInductor package: " + exception_cause(e));
  }
  facts_ = read_facts(loader_->loader, path);
  require_shape_ranges(facts_, path);
  for (const auto& name : facts_.inputs)  // read_facts allows these three names only
    feeds_.push_back(name == "input_ids" ? &Batch::input_ids
                                         : name == "attention_mask" ? &Batch::attention_mask : &Batch::token_type_ids);
  inputs_.resize(feeds_.size());
  // Kinds compared, not indices: a package built on cuda:0 runs on cuda:1 (the loader is given the index).
  if (!facts_.device.empty() && facts_.device.substr(0, facts_.device.find(':')) != torch::Device(device.type()).str())
    throw usage_error(fmt::format("{}: the package was built for {}, not {}; build it for this device", path,
                                  facts_.device, device.str()));
}

AotiPackage::~AotiPackage() = default;

std::string AotiPackage::refuses(int64_t batch, int64_t input) const {
  const AotiFacts& f = facts_;
  if (f.batch_max > 0 && (batch < f.batch_min || batch > f.batch_max))
    return fmt::format("batch {} is outside the package's batch sizes ({}): {}", batch,
                       range_text(f.batch_min, f.batch_max), path_);
  if (f.input_max > 0 && (input < f.input_min || input > f.input_max))
    return fmt::format("input size {} is outside the package's input sizes ({}): {}", input,
                       range_text(f.input_min, f.input_max), path_);
  return "";
}

torch::IValue AotiPackage::run(const Batch& batch) {
  for (size_t i = 0; i < feeds_.size(); ++i) inputs_[i] = batch.*feeds_[i];
  // The package checks no shape itself: one outside its range died inside it (a stack trace, the results lost,
  // its unpacked folder left behind). Refused here, the last line of defence behind the run's checks
  // (fed_shapes.hpp): a combination's FAIL line. A few comparisons of sizes: nothing beside the call.
  if (!inputs_.empty() && inputs_.front().dim() == 2) {
    const std::string why = refuses(inputs_.front().size(0), inputs_.front().size(1));
    if (!why.empty()) throw usage_error(why);
  } else if (!inputs_.empty()) {
    throw usage_error(fmt::format("{}: the package takes [batch, input] inputs, not [{}]", path_,
                                  fmt::join(inputs_.front().sizes(), ", ")));
  }
  std::vector<at::Tensor> outputs = loader_->loader.run(inputs_);
  if (outputs.size() == 1) return outputs.front();
  return c10::ivalue::Tuple::create(std::vector<c10::IValue>(outputs.begin(), outputs.end()));
}

int64_t AotiPackage::parameter_count() {
  int64_t count = 0;
  for (const auto& [name, tensor] : loader_->loader.get_runner()->extract_constants_map(false))
    if (tensor.is_floating_point()) count += tensor.numel();
  return count;
}

namespace {

class AotiModel : public Model {
 public:
  AotiModel(std::unique_ptr<AotiPackage> package, TokenFacts tokens)
      : package_(std::move(package)), tokens_(std::move(tokens)), parameters_(package_->parameter_count()) {}

  ModelFacts facts() const override {
    const AotiFacts& p = package_->facts();
    ModelFacts f;
    // The names and facts are the package's metadata: written out (escape_controls), never a line of their own.
    f.description = escape_controls(fmt::format("AOTInductor package {}: inputs {}, dtype {}, {} parameters",
                                                package_->path(), fmt::join(p.inputs, ", "), p.dtype, parameters_));
    if (p.threads > 0) f.description += fmt::format(", CPU kernels built for {} threads", p.threads);
    if (!p.vec_isa.empty()) f.description += ", vector ISA " + escape_controls(p.vec_isa);
    f.dtype_name = p.dtype;
    f.runtime = "inductor";
    f.tokens = tokens_;
    f.parameter_count = parameters_;
    f.fed_inputs = p.inputs;
    f.output_names = p.outputs;
    f.shapes = ShapeRange{p.batch_min, p.batch_max, p.input_min, p.input_max};
    f.shapes_by = "the AOTInductor package " + package_->path();
    return f;
  }
  torch::IValue forward(const Batch& batch) override { return package_->run(batch); }
  std::optional<CompileFacts> prepare(int64_t batch, int64_t input) override {
    const std::string why = package_->refuses(batch, input);
    if (!why.empty()) throw usage_error(why);
    return std::nullopt;
  }
  void eval() override {}  // a package is what export traced: inference only

 private:
  std::unique_ptr<AotiPackage> package_;
  TokenFacts tokens_;
  int64_t parameters_;
};

}  // namespace

std::unique_ptr<Model> load_aoti_model(const LoadRequest& request) {
  const auto& o = request.options;
  if (const auto key = model_key_not_taken(o, ModelFile::aoti_package))
    throw usage_error(fmt::format("--model:{}: {} is an AOTInductor package, fixed when it was built; "
                                  "build it again with what you need",
                                  *key, request.path));
  TokenFacts facts = token_facts_beside(request.path, o);
  return std::make_unique<AotiModel>(std::make_unique<AotiPackage>(request.path, request.device), std::move(facts));
}

}  // namespace fmwork
