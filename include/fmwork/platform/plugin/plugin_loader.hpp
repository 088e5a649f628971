// Finding and loading a platform plugin: the search path, dlopen, and the checks of the table its entry
// point returns (interface version, completeness, LibTorch version). docs/plugins.md is the authors' guide.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "fmwork/platform/plugin/plugin_api.h"

namespace fmwork {

// The environment variable naming extra plugin folders (colon-separated), searched first.
inline constexpr const char* kPluginPathVariable = "FMWORK_PLUGIN_PATH";

// "libfmwork_platform_" + name + ".so".
std::string plugin_file_name(const std::string& name);

// The folders searched, in order: each entry of $FMWORK_PLUGIN_PATH (empty entries skipped), then
// <folder of the running executable>/plugins, then <folder of the running executable>/../lib/fmwork.
std::vector<std::string> plugin_search_dirs();

// A loaded plugin library: loaded once per path and never unloaded (unloading would deregister the
// kernels it registered with LibTorch).
struct PluginLibrary {
  std::string path;
  const fmwork_platform_plugin* table = nullptr;
};

// Loads the library of plugin `name` (a name cli's is_platform_name accepts: it becomes part of a file
// name) from the first search folder that has it, and
// checks its table. Returns nullopt when no folder has the file; `tried` receives every path looked at.
// Throws a one-line usage Error, naming the file and the paths tried, when the library cannot be opened,
// exports no entry point, speaks another interface version, has an incomplete table, or was built with
// another LibTorch major.minor.
std::optional<PluginLibrary> load_plugin_library(const std::string& name, std::vector<std::string>& tried);

}  // namespace fmwork
