// The inductor backend (see inductor_backend.hpp): packages made by the Python exporter, kept in the
// artifact cache, run by aoti_model.
#include "fmwork/compile/inductor_backend.hpp"

#include <ATen/Parallel.h>
#include <torch/version.h>

#include <algorithm>
#include <chrono>
#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "fmwork/loaders/aoti_model.hpp"
#include "fmwork/base/progress.hpp"
#include "fmwork/cache/artifact_cache.hpp"
#include "fmwork/base/error.hpp"
#include "fmwork/base/json_input.hpp"
#include "fmwork/hf/config.hpp"
#include "fmwork/compile/python_step.hpp"
#include "fmwork/runtime/runtime_info.hpp"

namespace fmwork {
namespace {

namespace fs = std::filesystem;

constexpr int64_t kMaxDynamicBatch = 1024;
const char kPrefix[] = "--compile:backend inductor: ";

// Where the exporter and its Python are: $FMWORK_AOTI_EXPORTER, else tools/aoti_export.py of the source
// tree this driver was built from; $FMWORK_PYTHON, else the Python whose torch wheel the build used.
struct InductorTools {
  std::string python, exporter;
};
InductorTools inductor_tools() {
  return {tools_python(), env_or("FMWORK_AOTI_EXPORTER", tool_path("aoti_export.py"))};
}

// What is asked of one package: the shape (static) or the ranges (dynamic), and what the build needs.
struct PackageSpec {
  InductorTools tools;
  std::string model_hash, exporter_hash;  // hashed once per run, not once per package
  // The key's `device` is the kind (the code is the same on every index); the exporter builds on the run's own
  // device (cuda:1), never on device 0 by default beside another process's run there.
  std::string export_device;
  std::string arch;  // PlatformFacts::architecture: the GPU's compute capability and CUDA version; cpu ""
  std::string folder, model_class, dtype, device, attn, pooling, mode, options_json;
  int64_t threads = 1;
  bool dynamic = false;
  int64_t batch = 0, input = 0;        // static
  int64_t max_batch = 0, max_input = 0;  // dynamic

  std::string shape() const { return dynamic ? "dynamic" : fmt::format("{}x{}", batch, input); }
};

std::map<std::string, std::string> key_fields(const PackageSpec& s) {
  return {{"model", s.model_hash},
          {"exporter", s.exporter_hash},
          {"torch", libtorch_version()},
          {"model_class", s.model_class},
          {"dtype", s.dtype},
          {"device", s.device},
          {"attn_implementation", s.attn},
          {"add_pooling_layer", s.pooling},
          {"shape", s.dynamic ? fmt::format("dynamic:batch=1-{}:input=1-{}", s.max_batch, s.max_input) : s.shape()},
          {"mode", s.mode},
          {"options", s.options_json},
          {"threads", std::to_string(s.threads)},
          // The kernels Inductor writes use the vector instructions ATen allows when they are built: a
          // package built for AVX-512 dies of SIGILL on an AVX2 node sharing the cache, and one built
          // under ATEN_CPU_CAPABILITY=avx2 is not what an unheld run should time.
          {"isa", runtime_info().isa},
          // Likewise on a GPU: the package holds cubins for one architecture, built by one CUDA; a cache shared
          // by H100 and A100 nodes would load sm_90 code on sm_80.
          {"arch", s.arch}};
}

std::vector<std::string> exporter_command(const PackageSpec& s, const InductorTools& tools, const std::string& out) {
  std::vector<std::string> argv = {tools.python, tools.exporter, "--model", s.folder, "--out", out,
                                   "--device", s.export_device, "--dtype", s.dtype, "--model-class", s.model_class,
                                   "--threads", std::to_string(s.threads), "--libtorch-version", libtorch_version()};
  if (!s.attn.empty()) argv.insert(argv.end(), {"--attn-implementation", s.attn});
  if (s.pooling == "False") argv.push_back("--no-pooling-layer");
  if (s.dynamic)
    argv.insert(argv.end(), {"--dynamic", "--max-batch", std::to_string(s.max_batch), "--max-input",
                             std::to_string(s.max_input)});
  else
    argv.insert(argv.end(), {"--batch", std::to_string(s.batch), "--input", std::to_string(s.input)});
  if (!s.mode.empty()) argv.insert(argv.end(), {"--mode", s.mode});
  if (!s.options_json.empty() && s.options_json != "{}") argv.insert(argv.end(), {"--options", s.options_json});
  return argv;
}

// Runs the exporter into `dir`; returns what it reported (vec_isa, seconds, ranges) for the cache entry.
std::map<std::string, std::string> build_package(const PackageSpec& s, const InductorTools& tools,
                                                 const std::string& dir) {
  const nlohmann::json report =
      run_python_tool(exporter_command(s, tools, (fs::path(dir) / "model.pt2").string()), kPrefix,
                      "torch==" + libtorch_version() + " and transformers");
  std::map<std::string, std::string> facts;
  for (const char* key : {"vec_isa", "torch"})
    if (report.contains(key) && report[key].is_string()) facts[key] = report[key].get<std::string>();
  for (const char* key : {"batch", "input"})
    if (report.contains(key) && report[key].is_array() && report[key].size() == 2)
      facts[std::string(key) + "_range"] = fmt::format("{}-{}", report[key][0].dump(), report[key][1].dump());
  if (facts.count("torch") && facts["torch"].rfind(libtorch_version(), 0) != 0)
    throw usage_error(fmt::format("{}the exporter's Python runs torch {}, this driver LibTorch {}: set FMWORK_PYTHON "
                                  "to a Python with torch=={}",
                                  kPrefix, facts["torch"], libtorch_version(), libtorch_version()));
  return facts;
}

struct ReadyPackage {
  std::unique_ptr<AotiPackage> package;
  CompileFacts facts;  // for the COMPILE line
};

// Finds the package in the cache or builds it, loads it; times it all for the COMPILE line.
ReadyPackage ready_package(const PackageSpec& s, const torch::Device& device) {
  const auto t0 = std::chrono::steady_clock::now();
  const InductorTools& tools = s.tools;
  ArtifactCache cache(default_cache_root());
  const auto fields = key_fields(s);
  std::optional<CacheEntry> entry = cache.find("aoti", fields);
  const bool hit = entry.has_value();
  if (!entry) {
    progress_line("inductor: building the AOTInductor package for shape " + s.shape() +
                  " (an export and a g++ run: a minute or more on 2 cores) ...");
    entry = cache.store("aoti", fields, [&](const std::string& dir) { return build_package(s, tools, dir); });
    progress_line("inductor: package built in " + duration_text(entry->build_seconds));
  }
  auto package = std::make_unique<AotiPackage>((fs::path(entry->dir) / "model.pt2").string(), device);
  const double ready = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const auto fact = [&](const char* key) { return entry->facts.count(key) ? entry->facts.at(key) : std::string(); };
  std::string isa = fact("vec_isa");  // "avx512 avx512_vnni amx_tile": one token for the log line
  std::replace(isa.begin(), isa.end(), ' ', '+');
  CompileFacts f{"inductor", s.shape(), hit, entry->build_seconds, ready, entry->key.substr(0, 16),
                 isa, fact("batch_range"), fact("input_range")};
  return {std::move(package), std::move(f)};
}

// The eager model's facts; the package's forward.
class InductorModel : public Model {
 public:
  InductorModel(std::unique_ptr<Model> eager, PackageSpec spec, torch::Device device)
      : eager_(std::move(eager)), spec_(std::move(spec)), device_(device) {}

  // Dynamic: the one package, made before the sweep.
  CompileFacts make_dynamic() {
    ReadyPackage ready = ready_package(spec_, device_);
    package_ = std::move(ready.package);
    return ready.facts;
  }

  // The eager model's facts: the package computes what it does (transformers' class of the same architecture),
  // so its FLOPs, and its activation estimate, stand for the package's (what the admission, and CUDA graphs
  // around the package, count). The package's own inputs win once it is made.
  ModelFacts facts() const override {
    ModelFacts f = eager_->facts();
    f.description += "\ncompiled by inductor ahead of time (AOTInductor, " +
                     std::string(spec_.dynamic ? "one package, dynamic batch and input" : "one package per batch x input") +
                     ")";
    if (package_) f.fed_inputs = package_->facts().inputs;
    f.runs_unpadded = false;  // the package runs padded batches
    f.runtime = "inductor";
    // Its attention is the eager model's (the exporter is given the same --model:attn_implementation).
    // --model:gelu_epilogue is refused with this backend: the option is off (what Inductor fuses in its feed-forward
    // is its own), so the run pairs with an eager run of the same default (--baseline runtime=eager).
    f.gelu_epilogue = false;
    if (spec_.dynamic && package_) {
      const AotiFacts& p = package_->facts();
      f.shapes = ShapeRange{p.batch_min, p.batch_max, p.input_min, p.input_max};
      f.shapes_by = "the dynamic AOTInductor package (--compile:dynamic@ True)";
    } else if (!spec_.dynamic) {
      f.shape_per_combination = true;
      f.shapes_by = "a package built for one batch x input (--compile:backend inductor, --compile:dynamic@ False)";
    }
    return f;
  }
  torch::IValue forward(const Batch& batch) override { return package_->run(batch); }
  void eval() override {}

  std::optional<CompileFacts> prepare(int64_t batch, int64_t input) override {
    if (spec_.dynamic) {
      const std::string why = package_->refuses(batch, input);
      if (!why.empty()) throw usage_error(why);
      return std::nullopt;
    }
    package_.reset();  // the previous shape's package goes before the next is loaded
    PackageSpec shape = spec_;
    shape.batch = batch;
    shape.input = input;
    ReadyPackage ready = ready_package(shape, device_);
    package_ = std::move(ready.package);
    return ready.facts;
  }

 private:
  std::unique_ptr<Model> eager_;
  PackageSpec spec_;
  torch::Device device_;
  std::unique_ptr<AotiPackage> package_;
};

// The package spec of the command line; usage Errors for what the backend cannot do.
PackageSpec spec_of(const Model& eager, const CompileOptions& options, const ModelSource& source,
                    const torch::Device& device) {
  std::error_code error;
  if (!fs::is_directory(source.path, error))
    throw usage_error(fmt::format("{}{} is not a Hugging Face model folder; inductor builds its package from a "
                                  "folder (config.json + safetensors); for a TorchScript file use "
                                  "--compile:backend torchscript",
                                  kPrefix, source.path));
  // max-autotune-no-cudagraphs is max-autotune for a package: AOTInductor never captures CUDA graphs.
  // reduce-overhead is the default package with CUDA graphs around it (compile_model.cpp; refused off cuda
  // by check_compile_request before anything is loaded).
  if (device.type() != torch::kCPU && device.type() != torch::kCUDA)
    throw usage_error(std::string(kPrefix) + "AOTInductor packages run on cpu or cuda, not " + device.str());
  // What shapes the native encoder means nothing to the package that replaces it: transformers builds that
  // from the folder's own weights (random ones would be timed as if the folder's were; found on a folder with a
  // config.json alone, whose exporter then failed at run time).
  for (const auto& [key, given] : {std::pair<const char*, bool>{"random_weights", option_text(source.options,
                                                                                               "random_weights") == "True"},
                                   {"packed_gemm", !option_text(source.options, "packed_gemm").empty()},
                                   {"gelu_epilogue", !option_text(source.options, "gelu_epilogue").empty()}})
    if (given)
      throw usage_error(fmt::format("{}--model:{} is for the native encoder, which the package replaces (transformers "
                                    "builds it from the folder's own weights); leave out one or the other",
                                    kPrefix, key));
  PackageSpec s;
  s.tools = inductor_tools();
  s.model_hash = hash_files(folder_model_files(source.path));
  s.exporter_hash = hash_files({s.tools.exporter});
  s.folder = source.path;
  s.model_class = source.model_class;
  s.dtype = eager.facts().dtype_name;
  s.device = torch::Device(device.type()).str();
  s.export_device = device.str();
  s.attn = option_text(source.options, "attn_implementation");
  s.pooling = option_text(source.options, "add_pooling_layer");
  // reduce-overhead's package is the default one (the graphs are captured around it, not in it): one entry.
  s.mode = options.mode == std::string("reduce-overhead") ? "" : options.mode.value_or("");
  s.options_json = value_to_json(options.options);
  s.threads = device.is_cpu() ? at::get_num_threads() : 0;
  s.dynamic = options.dynamic.value_or(false);
  s.max_batch = kMaxDynamicBatch;
  const std::string config_path = (fs::path(source.path) / "config.json").string();
  const std::optional<int64_t> max_input = hf::max_input_size_of(read_json_file(config_path), config_path);
  if (s.dynamic && !max_input)
    throw usage_error(std::string(kPrefix) + "--compile:dynamic@ True needs the longest input, and " + config_path +
                      " has no max_position_embeddings; compile per shape (without --compile:dynamic)");
  s.max_input = max_input.value_or(0);
  return s;
}

}  // namespace

Compiled compile_inductor(std::unique_ptr<Model> eager, const CompileOptions& options, const ModelSource& source,
                          const torch::Device& device, const std::string& arch) {
  Compiled out;
  if (options.disable) {
    out.notes.push_back("compile: --compile:disable@ True: not compiling, as torch.compile(disable=True)");
    out.model = std::move(eager);
    return out;
  }
  PackageSpec spec = spec_of(*eager, options, source, device);
  spec.arch = arch;
  // The package holds its own weights: on a GPU the eager copy beside it would halve what the batches can have.
  if (!device.is_cpu()) eager->leave_device();
  auto model = std::make_unique<InductorModel>(std::move(eager), spec, device);
  if (!spec.dynamic) {
    out.notes.push_back("compile: inductor, one AOTInductor package per batch x input, built or taken from the "
                        "cache before each combination's reps (each says so in its COMPILE line)");
    out.model = std::move(model);
    return out;
  }
  const CompileFacts facts = model->make_dynamic();
  out.compile_line = facts;
  if (facts.vec_isa == "scalar")
    out.notes.push_back("compile: warning: Inductor's vector-ISA probe failed on this machine, so the package runs "
                        "scalar (not vectorised) CPU kernels, about 1.7x slower");
  out.model = std::move(model);
  return out;
}

}  // namespace fmwork
