// --compile: picks the backend (the platform's own, torchscript, inductor) and applies it (compile_model.hpp).
#include "fmwork/compile/compile_model.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "fmwork/base/error.hpp"
#include "fmwork/compile/inductor_backend.hpp"
#include "fmwork/compile/openvino_backend.hpp"
#include "fmwork/loaders/openvino_model.hpp"

#ifdef FMWORK_WITH_CUDA
#include "platform/cuda/cuda_graphs.hpp"
#endif

namespace fmwork {
namespace {

bool backend_given(const CompileOptions& options) {
  for (const auto& [key, value] : options.raw.entries)
    if (key == "backend") return true;
  return false;
}

Compiled compile_torchscript(std::unique_ptr<Model> model, bool eval) {
  torch::jit::Module* module = model->torchscript_module();
  if (!module)
    throw usage_error("--compile:backend torchscript needs a TorchScript model; Hugging Face folders run the native "
                      "encoder, which needs no compile step on CPU (drop --compile)");
  if (!eval)
    throw usage_error("--compile:backend torchscript freezes the model, which needs eval mode: add --eval");
  try {
    torch::jit::Module frozen = torch::jit::freeze(*module);
    *module = torch::jit::optimize_for_inference(frozen);
  } catch (const c10::Error& e) {
    throw runtime_error(std::string("--compile:backend torchscript: freezing failed: ") + e.what_without_backtrace());
  }
  return {std::move(model), {"compile: torchscript (torch::jit::freeze + optimize_for_inference)"}, std::nullopt, {}};
}

// The backends this build provides (the platform's own come on top).
std::vector<std::string> builtin_compile_backends() {
  std::vector<std::string> backends = {"torchscript", "inductor", "cudagraphs"};
  if (openvino_built()) backends.push_back("openvino");
  return backends;
}

}  // namespace

bool compiles_from_folder(bool compile, const CompileOptions& options, const Platform& platform) {
  if (!compile || options.disable) return false;
  if (backend_given(options)) return options.backend == "inductor" || options.backend == "openvino";
  const std::vector<std::string> platform_backends = platform.facts().compile_backends;
  return platform_backends.empty() ? options.backend == "inductor" : platform_backends.front() == "inductor";
}

bool wants_cuda_graphs(bool compile, const CompileOptions& options) {
  if (!compile || options.disable) return false;
  return options.backend == "cudagraphs" || options.mode == std::string("reduce-overhead");
}

void check_compile_request(bool compile, const CompileOptions& options, const Platform& platform) {
  if (!wants_cuda_graphs(compile, options)) return;
  const PlatformFacts facts = platform.facts();
  const std::vector<std::string>& own = facts.compile_backends;
  // A plugin's own compiler takes its modes itself (a platform that captures graphs of its own kind).
  if (!backend_given(options) ? !own.empty() : std::find(own.begin(), own.end(), options.backend) != own.end()) return;
  if (facts.device.is_cuda()) return;
  throw usage_error(fmt::format(
      "--compile:{} captures CUDA graphs, which need --platform cuda (this run: --platform {}); on {} use "
      "--compile:backend inductor with --compile:mode default, max-autotune or max-autotune-no-cudagraphs",
      options.backend == "cudagraphs" ? "backend cudagraphs" : "mode reduce-overhead", facts.name,
      facts.name));
}

Compiled compile_model(std::unique_ptr<Model> model, const CompileRequest& request, Platform& platform) {
  const CompileOptions& options = request.options;
  check_compile_request(request.compile, options, platform);
  std::vector<std::string> notes;
  if (!request.compile) {
    if (!options.raw.entries.empty()) notes.push_back("compile: --compile: options given without --compile; not compiling");
    return {std::move(model), std::move(notes), std::nullopt, {}};
  }
  const PlatformFacts facts = platform.facts();
  const std::vector<std::string>& platform_backends = facts.compile_backends;
  std::string backend = options.backend;
  if (!backend_given(options)) {
    if (!platform_backends.empty()) {
      backend = platform_backends.front();
    } else if (model->torchscript_module()) {
      backend = "torchscript";
      notes.push_back("compile: no --compile:backend given; torch.compile's default (inductor) is Python-only, "
                      "using torchscript");
    }
  }
  Compiled out;
  if (std::find(platform_backends.begin(), platform_backends.end(), backend) != platform_backends.end()) {
    notes.push_back(fmt::format("compile: {} (the {} platform's compiler)", backend, facts.name));
    CompileOptions chosen = options;
    chosen.backend = backend;
    out.model = platform.compile(std::move(model), chosen, request.source);
  } else if (backend == "torchscript") {
    out = compile_torchscript(std::move(model), request.eval);
  } else if (backend == "inductor") {
    out = compile_inductor(std::move(model), options, request.source, facts.device, facts.architecture);
  } else if (backend == "openvino") {
    out = compile_openvino(std::move(model), options, request.source, facts);
  } else if (backend == "cudagraphs") {
    out.model = std::move(model);  // the graphs come below, around the model as loaded
  } else {
    std::vector<std::string> available = builtin_compile_backends();
    available.insert(available.end(), platform_backends.begin(), platform_backends.end());
    throw usage_error(fmt::format(
        "--compile:backend {}: not available here ({} is a Python torch.compile backend); backends of this build "
        "on --platform {}: {}",
        backend, backend, facts.name, fmt::format("{}", fmt::join(available, ", "))));
  }
  notes.insert(notes.end(), out.notes.begin(), out.notes.end());
  out.notes = std::move(notes);
  if (!options.disable) out.runtime = backend;
  const bool platform_compiled = std::find(platform_backends.begin(), platform_backends.end(), backend) != platform_backends.end();
  if (wants_cuda_graphs(request.compile, options) && !platform_compiled) {
#ifdef FMWORK_WITH_CUDA
    const std::string label = backend == "cudagraphs" ? "the model as loaded" : "the " + backend + " backend's model";
    out.notes.push_back("compile: cuda graphs around " + label +
                        ", one per batch x input, captured before its reps (a COMPILE line each; a shape whose "
                        "capture fails runs eager, backend=eager:capture_failed)");
    if (backend != "cudagraphs") out.runtime = backend + "+cudagraphs";
    out.model = capture_cuda_graphs(std::move(out.model), facts.device.index() < 0 ? 0 : facts.device.index(), label);
#else
    throw usage_error("--compile: CUDA graphs need a CUDA build of the driver (scripts/cuda-build.sh)");
#endif
  }
  return out;
}

}  // namespace fmwork
