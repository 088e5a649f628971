// The rules a platform imposes on a run, declared as data (domain/platform_constraints.hpp, from a plugin's
// fmwork_constraints) and checked here against the command line, generically: Spyre compiles one input shape per run, needs --compile
// with its backend, runs without autograd. Platforms only declare; the driver checks before it loads.
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

// Whether `name` can name a platform: cpu, cuda, cuda:N (N of 1 to 3 digits), or a plugin name of letters,
// digits, '_', '-' and '.' other than "." and ".." (it becomes part of a file name). The rule the platform
// registry applies when it makes one, for checks made before anything is started (`driver run --devices`).
bool is_platform_name(const std::string& name);

// What is_platform_name accepts, for messages: "cpu, cuda, cuda:N or a plugin name of letters, ...".
extern const char* const kPlatformNames;

// The requirement as the user would type it: "--compile", "--torch.call:set_grad_enabled@ False",
// "--compile:backend sendnn".
std::string format_requirement(const PlatformRequirement& requirement);

}  // namespace fmwork
