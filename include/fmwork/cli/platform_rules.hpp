// The rules a platform imposes on a run, declared as data (domain/platform_constraints.hpp, from a plugin's
// fmwork_constraints) and checked here against the command line, generically: Spyre compiles one input shape per run, needs --compile
// with its backend, runs without autograd. Platforms only declare; the driver checks before it loads. Also the
// platform names themselves and where a plugin's library is looked for (the search path).
#pragma once

#include <string>
#include <vector>

#include "fmwork/domain/platform_constraints.hpp"

namespace fmwork {

struct CommandLine;  // cli.hpp: the rules read the command line; the platforms that declare them do not

// Throws a runtime Error (a plugin bug) for a requirement the host cannot check: an option that names no
// fixed flag or sub-option set, a value that is not a Python literal while typed, a fixed flag whose value
// is not True or False. `platform` names the plugin in the message.
void validate_requirement(const std::string& platform, const PlatformRequirement& requirement);

// Checks the constraints of the platform named `platform` against the command line: one sentence per
// missing or wrong piece, all of them, e.g.
//   "--platform spyre requires a single --input_sizes value or --isolate (got 3: 64,128,256): <reason>."
// With --isolate every combination runs in a process of its own, which satisfies the single-size rules.
//   "--platform spyre requires --compile:backend sendnn (got --compile:backend inductor): <reason>."
// Empty when the command line is acceptable. Throws as validate_requirement does.
std::vector<std::string> check_constraints(const std::string& platform, const PlatformConstraints& constraints,
                                           const CommandLine& command_line);

// Whether `name` can name a platform: cpu, cuda, cuda:N (N of 1 to 3 digits), or a plugin name of 1 to 64
// letters, digits, '_', '-' and '.' other than "." and ".." (it becomes part of a file name). The rule the
// platform registry applies when it makes one, for checks made before anything is started (`driver run
// --devices`).
bool is_platform_name(const std::string& name);

// What is_platform_name accepts, for messages: "cpu, cuda, cuda:N or a plugin name of letters, ...".
extern const char* const kPlatformNames;

// "; did you mean cpu?" when `name` is one typo from a built-in platform (cup, cdua, CPU; one_typo_from in
// base/text_format), "" otherwise: the end of the message for a platform that is neither built in nor a
// plugin found (so a plugin named like a typo, xpu, is only offered cpu when its library is missing).
std::string platform_suggestion(const std::string& name);

// Where a plugin's library is looked for, kept here (torch-free) so that `driver run --devices` finds a
// missing plugin before its campaign starts, as `--platform` would in each run.
// The environment variable naming extra plugin folders (colon-separated), searched first.
inline constexpr const char* kPluginPathVariable = "FMWORK_PLUGIN_PATH";

// "libfmwork_platform_" + name + ".so".
std::string plugin_file_name(const std::string& name);

// The folders searched, in order: each entry of $FMWORK_PLUGIN_PATH (empty entries skipped), then
// <folder of the running executable>/plugins, then <folder of the running executable>/../lib/fmwork.
std::vector<std::string> plugin_search_dirs();

// The path of plugin `name`'s library in the first search folder that holds it as a regular file; "" when
// none does. `tried` receives every path looked at.
std::string find_plugin_file(const std::string& name, std::vector<std::string>& tried);

// Whether `name` is a platform built into the driver: cpu, cuda or cuda:N (any other name is a plugin's).
bool is_builtin_platform_name(const std::string& name);

// The end of the message for a name that is neither built in nor a plugin found: "not a built-in platform
// (cpu, cuda, cuda:N) and no plugin libfmwork_platform_X.so was found; tried ... (set FMWORK_PLUGIN_PATH to
// the folder that holds it)" and platform_suggestion's guess.
std::string plugin_not_found_text(const std::string& name, const std::vector<std::string>& tried);

// The requirement as the user would type it: "--compile", "--torch.call:set_grad_enabled@ False",
// "--compile:backend sendnn".
std::string format_requirement(const PlatformRequirement& requirement);

}  // namespace fmwork
