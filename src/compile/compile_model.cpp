// --compile: picks the backend (the platform's own, torchscript, inductor) and applies it (compile_model.hpp).
#include "fmwork/compile/compile_model.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "fmwork/base/error.hpp"
#include "fmwork/compile/inductor_backend.hpp"

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
  return {std::move(model), {"compile: torchscript (torch::jit::freeze + optimize_for_inference)"}};
}

}  // namespace

bool compiles_from_folder(bool compile, const CompileOptions& options, const Platform& platform) {
  if (!compile || options.disable) return false;
  if (backend_given(options)) return options.backend == "inductor";
  const auto platform_backends = platform.compile_backends();
  return platform_backends.empty() ? options.backend == "inductor" : platform_backends.front() == "inductor";
}

std::vector<std::string> builtin_compile_backends() { return {"torchscript", "inductor"}; }

Compiled compile_model(std::unique_ptr<Model> model, const CompileRequest& request, Platform& platform) {
  const CompileOptions& options = request.options;
  std::vector<std::string> notes;
  if (!request.compile) {
    if (!options.raw.entries.empty()) notes.push_back("compile: --compile: options given without --compile; not compiling");
    return {std::move(model), std::move(notes)};
  }
  std::string backend = options.backend;
  if (!backend_given(options)) {
    if (!platform.compile_backends().empty()) {
      backend = platform.compile_backends().front();
    } else if (model->torchscript_module()) {
      backend = "torchscript";
      notes.push_back("compile: no --compile:backend given; torch.compile's default (inductor) is Python-only, "
                      "using torchscript");
    }
  }
  Compiled out;
  const auto platform_backends = platform.compile_backends();
  if (std::find(platform_backends.begin(), platform_backends.end(), backend) != platform_backends.end()) {
    notes.push_back(fmt::format("compile: {} (the {} platform's compiler)", backend, platform.name()));
    CompileOptions chosen = options;
    chosen.backend = backend;
    out.model = platform.compile(std::move(model), chosen, request.source);
  } else if (backend == "torchscript") {
    out = compile_torchscript(std::move(model), request.eval);
  } else if (backend == "inductor") {
    out = compile_inductor(std::move(model), options, request.source, platform.device());
  } else if (backend == "cudagraphs" || options.mode == std::string("reduce-overhead")) {
    throw usage_error("--compile:backend cudagraphs / --compile:mode reduce-overhead capture CUDA graphs, which this "
                      "driver does not do yet; use --compile:backend inductor (--compile:mode default, max-autotune "
                      "or max-autotune-no-cudagraphs)");
  } else {
    std::vector<std::string> available = builtin_compile_backends();
    available.insert(available.end(), platform_backends.begin(), platform_backends.end());
    throw usage_error(fmt::format(
        "--compile:backend {}: not available here ({} is a Python torch.compile backend); backends of this build "
        "on --platform {}: {}",
        backend, backend, platform.name(), fmt::format("{}", fmt::join(available, ", "))));
  }
  notes.insert(notes.end(), out.notes.begin(), out.notes.end());
  out.notes = std::move(notes);
  return out;
}

}  // namespace fmwork
