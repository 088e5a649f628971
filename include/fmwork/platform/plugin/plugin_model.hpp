// A model compiled by a plugin's backend: the host hands the plugin its model (the TorchScript module
// when there is one, and a forward function for any model) and times the runner the plugin returns.
#pragma once

#include <memory>
#include <string>

#include "fmwork/model/model.hpp"
#include "fmwork/platform/platform.hpp"
#include "fmwork/platform/plugin/plugin_abi.hpp"

namespace fmwork {

// Calls the plugin's compile hook for `backend` (one of the plugin's) with `options_json` (the --compile:
// options as JSON) and returns the model that runs the plugin's runner; `model` stays alive inside it
// (the runner may call its forward). Throws the plugin's error with `prefix` ("--platform NAME: "), or a
// runtime Error when the plugin returns no runner. A failed forward of `model` reaches the plugin as one
// line (exception_cause), never a traceback.
std::unique_ptr<Model> compile_in_plugin(std::shared_ptr<PluginInstance> instance, const std::string& backend,
                                         const std::string& options_json, std::unique_ptr<Model> model,
                                         const ModelSource& source);

}  // namespace fmwork
