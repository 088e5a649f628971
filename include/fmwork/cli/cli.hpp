// The command line of a driver run: upstream's fixed options (fixed_options.hpp), the dynamic sub-options
// `--SET:key[:key...][@] VALUE` gathered into one tree per set (sub_options.hpp), and the words as typed
// for the ARGS echo (args_section.hpp). `driver --help` is usage.hpp.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "fmwork/base/python_value.hpp"
#include "fmwork/cli/options.hpp"
#include "fmwork/cli/sub_options.hpp"

namespace fmwork {

struct CommandLine {
  FixedArgs args;
  ServeArgs serve;  // driver serve's own options (defaults on the sweep's command line)
  ProcessArgs process;          // process's options
  RunArgs run;                  // driver run's
  CacheArgs cache;              // driver --cache's
  // (KEY, VALUE) of each `--F:KEY VALUE` (or `--F:KEY=VALUE`) of the open-ended family F of a command that does
  // not run the model (command_text(c).keys: driver run's --slurm:), in the order given.
  std::vector<std::pair<std::string, std::string>> keyed;
  std::set<std::string> given;  // the names of the rows given (a positional's too)
  // Set name -> dict Value (nested keys become nested dicts). compile, model, torch.call and torch.set
  // are always present (possibly empty dicts); platform only when given. Keys are sorted recursively,
  // as upstream sorts them before use.
  std::map<std::string, Value> subs;
  // One entry per option as typed, "--batch_sizes 1,2", "--compile", "--compile:dynamic@ True",
  // sorted as strings: the text of the FMWORK ARG lines.
  std::vector<std::string> arg_words;
};

// Parses argv (argv[0] is the program; for `driver serve`, the words after "serve" follow it) as `command`'s:
// the one tokenizer of every command. A row takes the words its OptionWords say; a word that is no option is a
// positional row's (process's paths), else refused. A command that does not run the model has no sub-options
// and its rows are only read (command_options_from); its tokenizer's messages end in command_text(c).see. Throws a usage Error naming the option and what is accepted: a word that is no
// option, an unknown option (with the closest of the command's names), an option of the other command (saying
// whose it is), an option given twice, a flag with a value, an option without its value; then what
// options_from and sub_option_trees refuse. `--help` is not handled here (the executable handles it first).
CommandLine parse_command_line(int argc, const char* const* argv, Command command = Command::sweep);

// Whether `words` ask for help: "--help" or "-h" anywhere but as the value of a sub-option or of an open-ended
// family's key (`--model:revision -h`, `--slurm:comment -h`: a value, whatever it looks like). Every command's
// executable asks this before parsing, so that help wins over any error on the line.
bool asks_for_help(const std::vector<std::string>& words);

// The same, of `words` (the words after the program's name, or after "driver run", "driver --cache").
CommandLine parse_command_line(const std::vector<std::string>& words, Command command);

// A usage Error for a sub-option that tunes nothing: a tolerance (--check_outputs:KEY other than cpu@) without
// --check_outputs DIR on a run that is CPU eager (--platform cpu, no --compile), which makes no check against the
// CPU either. The driver's check and driver run's of each run alike.
void check_tuned_options(const CommandLine& command_line);

}  // namespace fmwork
