// The ARGS section of the log, as upstream's fmwork.args_show prints it: the FMWORK ARG lines and the args
// JSON.
#pragma once

#include <string>

#include "fmwork/cli/cli.hpp"

namespace fmwork {

// The ARGS section body as upstream prints it (without the banner): the sorted `FMWORK ARG` lines, an
// empty line, and the args JSON (4-space indent, keys sorted, subs last, leaves as Python repr strings,
// plain strings as is), ending with a newline. The fixed entries are args_json_fields'. A secret option's
// value (is_secret_option: --model:token, ...) is kNotShown in both: its ARG line stays, without the secret.
std::string format_args_section(const CommandLine& command_line);

}  // namespace fmwork
