// The command line of a driver run: upstream's fixed options (fixed_options.hpp), the dynamic sub-options
// `--SET:key[:key...][@] VALUE` gathered into one tree per set (sub_options.hpp), and the words as typed
// for the ARGS echo (args_section.hpp). `driver --help` is usage.hpp.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "fmwork/base/python_value.hpp"
#include "fmwork/cli/fixed_options.hpp"
#include "fmwork/cli/sub_options.hpp"

namespace fmwork {

struct CommandLine {
  FixedArgs args;
  // Set name -> dict Value (nested keys become nested dicts). compile, model, torch.call and torch.set
  // are always present (possibly empty dicts); platform only when given. Keys are sorted recursively,
  // as upstream sorts them before use.
  std::map<std::string, Value> subs;
  // One entry per option as typed, "--batch_sizes 1,2", "--compile", "--compile:dynamic@ True",
  // sorted as strings: the text of the FMWORK ARG lines.
  std::vector<std::string> arg_words;
};

// Parses argv (argv[0] is the program). Throws a usage Error naming the option and what is accepted: a
// word that is no option, an unknown option (listing the fixed ones), an option given twice, a flag with a
// value, an option without its value; then what fixed_args_from and sub_option_trees refuse.
// `--help` is not handled here (the executable handles it before calling this).
// `not_required`: names of required fixed options (without "--") that this command does without (`driver
// serve` needs no --reps, and reads --input_sizes and --batch_sizes as its defaults say).
CommandLine parse_command_line(int argc, const char* const* argv, const std::vector<std::string>& not_required = {});

// A usage Error for a sub-option that tunes nothing: a tolerance (--check_outputs:KEY other than cpu@) without
// --check_outputs DIR on a run that is CPU eager (--platform cpu, no --compile), which makes no check against the
// CPU either. The driver's check and driver run's of each run alike.
void check_tuned_options(const CommandLine& command_line);

}  // namespace fmwork
