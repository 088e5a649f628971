// Finding and loading a platform plugin: the search path, dlopen, and the checks of the table its entry
// point returns (interface version, completeness, LibTorch version). docs/plugins.md is the authors' guide.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "fmwork/cli/platform_rules.hpp"  // the search path: kPluginPathVariable, plugin_search_dirs
#include "fmwork/platform/plugin/plugin_api.h"

namespace fmwork {

// A loaded plugin library: loaded once per path and never unloaded (unloading would deregister the
// kernels it registered with LibTorch).
struct PluginLibrary {
  std::string path;
  const fmwork_platform_plugin* table = nullptr;
};

// Loads the library of plugin `name` (a name cli's is_platform_name accepts: it becomes part of a file
// name) from the first search folder that has it (cli's find_plugin_file), and
// checks its table. Returns nullopt when no folder has the file; `tried` receives every path looked at.
// Throws a one-line usage Error, naming the file and the paths tried, when the library cannot be opened,
// exports no entry point, speaks another interface version, has an incomplete table, or was built with
// another LibTorch major.minor.
std::optional<PluginLibrary> load_plugin_library(const std::string& name, std::vector<std::string>& tried);

}  // namespace fmwork
