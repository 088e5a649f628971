// --compile:backend inductor on a Hugging Face folder: what upstream's torch.compile(backend="inductor")
// runs, done ahead of time. The project's Python exporter (tools/aoti_export.py) loads the folder with
// transformers' own model class, exports it with torch.export and compiles it into an AOTInductor package;
// the package is kept in the artifact cache and run from C++ (aoti_model.hpp), so the timed region holds
// no Python. A second run with the same key loads from the cache without calling Python.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "fmwork/model/model.hpp"
#include "fmwork/domain/run_options.hpp"
#include "fmwork/platform/platform.hpp"

namespace fmwork {

// Compiles `eager` (loaded from the folder `source.path` on `device`) with Inductor:
// - --compile:dynamic@ True: one package with symbolic batch (1 to 1024) and input (up to the model's
//   positions) dims, built (or found in the cache) now; shapes outside its ranges fail before they run;
// - otherwise: one package per (batch, input), built or found by prepare() before that combination's reps.
// Each package gives a COMPILE line (log_fields.hpp), in the notes (dynamic) or printed by the sweep from
// what prepare() returns (static). --compile:mode default / max-autotune and --compile:options:KEY map to Inductor's options
// (the exporter refuses unknown keys); max-autotune-no-cudagraphs is max-autotune (a package captures no CUDA
// graphs); reduce-overhead builds the default package (compile_model captures CUDA graphs around it); a
// TorchScript model is refused with a usage Error.
// --compile:disable@ True returns `eager` with a note, as torch.compile does.
// The cache key holds the folder's config and weights' content hash, the LibTorch version, the exporter
// script, dtype, device type, shape or ranges, model class and --model: options, mode, options and the
// intra-op thread count (Inductor fixes OpenMP threads in its CPU kernels when it compiles), and `arch`
// (PlatformFacts::architecture: a GPU's compute capability and CUDA version). The package is built on `device`
// itself (cuda:1 stays on cuda:1). Off the CPU the eager model's weights leave the device
// (Model::leave_device()) once the package runs instead: it holds its own copy.
Compiled compile_inductor(std::unique_ptr<Model> eager, const CompileOptions& options, const ModelSource& source,
                          const torch::Device& device, const std::string& arch = "");

}  // namespace fmwork
