// Platform plugins, host side: finding and loading libfmwork_platform_NAME.so, and a Platform that speaks
// the C interface of plugin_api.h. make_platform() calls load_plugin_platform() for names that are not
// built in. docs/plugins.md is the guide for plugin authors.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "fmwork/cli.hpp"
#include "fmwork/option_sets.hpp"
#include "fmwork/platform.hpp"

namespace fmwork {

// The environment variable naming extra plugin folders (colon-separated), searched first.
inline constexpr const char* kPluginPathVariable = "FMWORK_PLUGIN_PATH";

// "libfmwork_platform_" + name + ".so".
std::string plugin_file_name(const std::string& name);

// The folders searched, in order: each entry of $FMWORK_PLUGIN_PATH (empty entries skipped), then
// <folder of the running executable>/plugins, then <folder of the running executable>/../lib/fmwork.
std::vector<std::string> plugin_search_dirs();

// Loads the plugin for `name` from the first search folder that has its library, checks its interface
// version (and LibTorch version), and creates an instance with `options`. Throws a one-line usage Error
// listing every path tried when no library is found, when the library cannot be opened, has no entry
// point or speaks another interface version; a usage Error when the plugin refuses the options. The
// library is never unloaded. Names other than letters, digits, '_', '-' and '.' are refused.
std::unique_ptr<Platform> load_plugin_platform(const std::string& name, const PlatformOptions& options);

// A plugin's rules, in C++ form (from fmwork_constraints).
struct PlatformRequirement {
  std::string option;  // "compile", "eval", or "SET:key[:key...]"
  std::string value;   // as written on the command line
  bool typed = false;  // value is a Python literal (the option is given with `@`)
  std::string reason;  // may be empty
};
struct PlatformConstraints {
  bool single_input_size = false;
  std::string single_input_reason;
  bool single_batch_size = false;
  std::string single_batch_reason;
  std::vector<PlatformRequirement> required;
};

// Checks the constraints of the platform named `platform` against the command line: one sentence per
// missing or wrong piece, all of them, e.g.
//   "--platform spyre requires a single --input_sizes value (got 3: 64,128,256): <reason>"
//   "--platform spyre requires --compile:backend sendnn (got --compile:backend inductor): <reason>"
// Empty when the command line is acceptable. Throws a runtime Error for a requirement that names no known
// fixed flag or sub-option set (a plugin bug).
std::vector<std::string> check_constraints(const std::string& platform, const PlatformConstraints& constraints,
                                           const CommandLine& command_line);

// The requirement as the user would type it: "--compile", "--torch.call:set_grad_enabled@ False",
// "--compile:backend sendnn".
std::string format_requirement(const PlatformRequirement& requirement);

}  // namespace fmwork
