// --compile: turns the loaded model into the runner the sweep times.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "fmwork/model.hpp"
#include "fmwork/option_sets.hpp"
#include "fmwork/platform.hpp"

namespace fmwork {

// The backends this build provides (the platform's own come on top).
std::vector<std::string> builtin_compile_backends();

// Returns `model` (loaded from `source`) compiled as the options say, and appends what was done to `notes` (RUNTIME/MODEL text).
// Without --compile the model is returned as is. Backends: "torchscript" (freeze + optimize_for_inference,
// needs a TorchScript model in eval mode) and the platform's own; torch.compile's Python-only backends
// (inductor, the default) are refused with a message naming what exists instead. When --compile:backend is
// not given, a TorchScript model gets "torchscript" and the notes say so.
std::unique_ptr<Model> compile_model(std::unique_ptr<Model> model, bool compile, bool eval,
                                     const CompileOptions& options, Platform& platform,
                                     const ModelSource& source, std::vector<std::string>& notes);

}  // namespace fmwork
