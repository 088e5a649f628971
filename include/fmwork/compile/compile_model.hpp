// --compile: turns the loaded model into the runner the sweep times.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "fmwork/model/model.hpp"
#include "fmwork/cli/option_sets.hpp"
#include "fmwork/platform/platform.hpp"

namespace fmwork {

// The backends this build provides (the platform's own come on top).
std::vector<std::string> builtin_compile_backends();

// Returns `model` (loaded from `source`) compiled as the options say, and appends what was done to `notes`
// (MODEL text). Without --compile the model is returned as is. Backends: the platform's own (first when
// --compile:backend is not given); "torchscript" (freeze + optimize_for_inference, a TorchScript model in
// eval mode; the default for TorchScript files); "inductor" (torch.compile's default: an AOTInductor
// package built from a Hugging Face folder, inductor_backend.hpp). Other torch.compile backends are
// refused with a message naming what exists instead.
std::unique_ptr<Model> compile_model(std::unique_ptr<Model> model, bool compile, bool eval,
                                     const CompileOptions& options, Platform& platform,
                                     const ModelSource& source, std::vector<std::string>& notes);

}  // namespace fmwork
