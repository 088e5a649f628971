// The openvino backend (see openvino_backend.hpp): IR made by the Python step, kept in the artifact cache,
// run by loaders/openvino_model.
#include "fmwork/compile/openvino_backend.hpp"

#include <ATen/Parallel.h>

#include <chrono>
#include <filesystem>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "fmwork/base/error.hpp"
#include "fmwork/base/progress.hpp"
#include "fmwork/cache/artifact_cache.hpp"
#include "fmwork/compile/python_step.hpp"
#include "fmwork/hf/config.hpp"
#include "fmwork/loaders/openvino_model.hpp"

namespace fmwork {
namespace {
// Named apart: a unity batch shares anonymous namespaces with inductor_backend.cpp (its kOpenVinoPrefix, key_fields).
namespace openvino_detail {

namespace fs = std::filesystem;

const char kOpenVinoPrefix[] = "--compile:backend openvino: ";
constexpr int64_t kOpenVinoMaxBatch = 1024;
constexpr int64_t kTorchScriptMaxInput = 8192;  // a TorchScript file does not say its positions

// What one IR is built from.
struct IrSpec {
  std::string python, exporter, path, model_class, attn, pooling;
  bool folder = false;
  std::vector<std::string> inputs;
  int64_t max_input = 0, vocab_size = 0;
};

std::map<std::string, std::string> key_fields(const IrSpec& s) {
  return {{"model", hash_files(s.folder ? folder_model_files(s.path) : std::vector<std::string>{s.path})},
          {"exporter", hash_files({s.exporter, tool_path("aoti_export.py")})},
          {"openvino", openvino_version()},
          {"torch", libtorch_version()},
          {"model_class", s.folder ? s.model_class : ""},
          {"attn_implementation", s.attn},
          {"add_pooling_layer", s.pooling},
          {"inputs", s.folder ? "" : fmt::format("{}", fmt::join(s.inputs, ","))},  // a folder's: its class's
          {"shape", fmt::format("dynamic:batch=1-{}:input=1-{}", kOpenVinoMaxBatch, s.max_input)}};
}

std::map<std::string, std::string> build_ir(const IrSpec& s, const std::string& dir) {
  std::vector<std::string> argv = {s.python, s.exporter, "--model", s.path, "--out", (fs::path(dir) / "model.xml").string(),
                                   "--max-batch",
                                   std::to_string(kOpenVinoMaxBatch), "--max-input", std::to_string(s.max_input)};
  if (s.folder) argv.insert(argv.end(), {"--model-class", s.model_class});
  else
    argv.insert(argv.end(), {"--inputs", fmt::format("{}", fmt::join(s.inputs, ",")), "--vocab-size",
                             std::to_string(s.vocab_size)});
  if (!s.attn.empty()) argv.insert(argv.end(), {"--attn-implementation", s.attn});
  if (s.pooling == "False") argv.push_back("--no-pooling-layer");
  const nlohmann::json report = run_python_tool(argv, kOpenVinoPrefix, "openvino and torch==" + libtorch_version());
  std::map<std::string, std::string> facts;
  for (const char* key : {"openvino", "torch"})
    if (report.contains(key) && report[key].is_string()) facts[key] = report[key].get<std::string>();
  return facts;
}

// The spec of the command line; usage Errors for what the backend cannot take.
IrSpec spec_of(const Model& eager, const ModelSource& source) {
  IrSpec s;
  std::error_code error;
  s.folder = fs::is_directory(source.path, error);
  if (!s.folder && fs::path(source.path).extension() == ".pt2")
    throw usage_error(fmt::format("{}{} is an AOTInductor package, already compiled; give the folder it was built "
                                  "from", kOpenVinoPrefix, source.path));
  for (const char* key : {"random_weights", "packed_gemm", "gelu_epilogue"})
    if (!option_text(source.options, key).empty() && option_text(source.options, key) != "False")
      throw usage_error(fmt::format("{}--model:{} is for the native encoder, which OpenVINO's model replaces (it is "
                                    "converted from the folder's own weights); leave out one or the other",
                                    kOpenVinoPrefix, key));
  const ModelFacts facts = eager.facts();
  s.python = tools_python();
  s.exporter = env_or("FMWORK_OV_EXPORTER", tool_path("ov_export.py"));
  s.path = source.path;
  s.model_class = source.model_class.empty() ? "AutoModel" : source.model_class;
  s.attn = option_text(source.options, "attn_implementation");
  s.pooling = option_text(source.options, "add_pooling_layer");
  s.inputs = facts.fed_inputs;
  s.vocab_size = facts.tokens.vocab_size;
  s.max_input = s.folder ? hf::folder_max_input_size(source.path).value_or(kTorchScriptMaxInput) : kTorchScriptMaxInput;
  return s;
}

std::vector<std::pair<std::string, std::string>> properties_of(const CompileOptions& options) {
  std::vector<std::pair<std::string, std::string>> out;
  if (options.options.type == Value::Type::dict)
    for (const auto& [key, value] : options.options.entries) out.emplace_back(key, str(value));
  return out;
}

// The precision hint that keeps the model's dtype: what the eager model runs in.
std::string precision_of(const std::string& dtype) {
  if (dtype == "bfloat16") return "bf16";
  if (dtype == "float16") return "f16";
  return "f32";
}

std::vector<std::string> ignored_notes(const CompileOptions& options) {
  std::vector<std::string> notes;
  if (options.mode) notes.push_back("compile: --compile:mode " + escape_controls(*options.mode) + " ignored: OpenVINO has no modes (its properties: --compile:options:KEY)");
  if (options.dynamic) notes.push_back("compile: --compile:dynamic ignored: the IR takes every batch and input size in its range");
  if (options.fullgraph) notes.push_back("compile: --compile:fullgraph ignored: OpenVINO converts the whole model");
  return notes;
}

}  // namespace openvino_detail
}  // namespace

Compiled compile_openvino(std::unique_ptr<Model> eager, const CompileOptions& options, const ModelSource& source,
                          const PlatformFacts& platform) {
  using namespace openvino_detail;
  require_openvino("--compile:backend openvino");
  if (!platform.device.is_cpu())
    throw usage_error(fmt::format("{}OpenVINO runs here on --platform cpu, not {}; there use inductor, or the "
                                  "platform's own backend",
                                  kOpenVinoPrefix, platform.name));
  Compiled out;
  if (options.disable) {
    out.notes.push_back("compile: --compile:disable@ True: not compiling, as torch.compile(disable=True)");
    out.model = std::move(eager);
    return out;
  }
  OpenVinoSettings settings;
  settings.threads = at::get_num_threads();
  settings.precision = precision_of(eager->facts().dtype_name);
  settings.properties = properties_of(options);
  check_openvino_properties(settings.properties);
  out.notes = ignored_notes(options);
  if (std::unique_ptr<Model> again = recompile_openvino(*eager, settings)) {
    out.notes.push_back("compile: openvino: the file is OpenVINO's already: compiled again with the properties above (nothing converted)");
    out.model = std::move(again);
    return out;
  }
  const IrSpec spec = spec_of(*eager, source);
  const auto t0 = std::chrono::steady_clock::now();
  ArtifactCache cache(default_cache_root());
  const auto fields = key_fields(spec);
  std::optional<CacheEntry> entry = cache.find("openvino", fields);
  const bool hit = entry.has_value();
  if (!entry) {
    progress_line("openvino: converting the model to OpenVINO IR (once; kept in the cache) ...");
    entry = cache.store("openvino", fields, [&](const std::string& dir) { return build_ir(spec, dir); });
    progress_line("openvino: IR written in " + duration_text(entry->build_seconds));
  }
  out.model = openvino_ir_model((fs::path(entry->dir) / "model.xml").string(), std::move(eager), settings);
  const double ready = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  out.compile_line = CompileFacts{"openvino", "dynamic", hit, entry->build_seconds, ready, entry->key.substr(0, 16), "",
                                  fmt::format("1-{}", kOpenVinoMaxBatch), fmt::format("1-{}", spec.max_input)};
  out.notes.push_back(fmt::format("compile: openvino, one IR for batch 1-{} x input 1-{} ({}), run by OpenVINO's C++ runtime",
                                  kOpenVinoMaxBatch, spec.max_input, hit ? "from the cache" : "converted now"));
  return out;
}

}  // namespace fmwork
