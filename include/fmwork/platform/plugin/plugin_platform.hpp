// The Platform of a loaded plugin: device, synchronisation, memory peaks, rules and compile backends, each
// a call through the plugin's C table (plugin_api.h).
#pragma once

#include <memory>
#include <string>

#include "fmwork/domain/run_options.hpp"
#include "fmwork/platform/platform.hpp"
#include "fmwork/platform/plugin/plugin_loader.hpp"

namespace fmwork {

// Creates an instance of the plugin `name` from its loaded library with `options` (--platform:KEY VALUE,
// as strings) and returns its Platform. Throws the plugin's error (a usage Error when it refuses the
// options) prefixed "--platform NAME: "; a runtime Error for a device type the host does not know or a
// requirement it cannot check (plugin bugs).
std::unique_ptr<Platform> make_plugin_platform(const std::string& name, const PluginLibrary& library,
                                               const PlatformOptions& options);

}  // namespace fmwork
