// The one table of the driver's options, `driver serve`'s included: each row its name, value, example and help
// (OptionRow), which commands take it and which need it, whose it is, and the one reader that stores its value.
// The tokenizer (cli.cpp), `driver --help` and `driver serve --help` (usage.cpp), docs/options.md
// (options_page.cpp), "did you mean", the refusal of an option another command takes, the required options,
// `args.NAME` in `@` values and the args JSON all read it: a new option is one row (and its field).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fmwork/base/python_literal.hpp"
#include "fmwork/base/python_value.hpp"
#include "fmwork/cli/command_args.hpp"
#include "fmwork/cli/fixed_options.hpp"
#include "fmwork/cli/option_row.hpp"
#include "fmwork/cli/serve_options.hpp"

namespace fmwork {

// The commands whose words the table's rows are: the sweep (`driver ...`), `driver serve ...`, `process ...`,
// `driver run ...`, `driver --cache ...`.
enum class Command { sweep, serve, process, run, cache };

// A set of commands, as a row says which take it and which need it.
struct Commands {
  unsigned bits = 0;
  constexpr bool has(Command command) const { return (bits >> static_cast<unsigned>(command)) & 1u; }
};
constexpr Commands only(Command command) { return {1u << static_cast<unsigned>(command)}; }
inline constexpr Commands kSweepOnly = only(Command::sweep), kServeOnly = only(Command::serve),
                          kBothCommands{kSweepOnly.bits | kServeOnly.bits}, kNoCommand{};

// Whether `command` runs the model (the sweep, driver serve): theirs are the model's options, the sub-options and
// the ARG echo.
constexpr bool runs_model(Command command) { return command == Command::sweep || command == Command::serve; }

// How a command is named in messages and help: "driver", "driver serve"; whose an option of its alone is
// ("the sweep's"), what it does instead, and where its help is; for the others, what its --help says first
// (`about`) and what each message about its words ends with (`see`: " (see process --help)").
struct CommandText {
  const char* line;   // "driver serve"
  const char* whose;  // "driver serve's"
  const char* does;   // "driver serve runs load levels"
  const char* about = "";
  const char* see = "";
  const char* keys = nullptr;  // the open-ended family --KEYS:KEY VALUE (or =VALUE) it takes: "slurm"
};
const CommandText& command_text(Command command);

// What the rows fill: the model's and the sweep's options, and serve's.
struct OptionGroups {
  FixedArgs args;
  ServeArgs serve;
  ProcessArgs process;
  RunArgs run;
  CacheArgs cache;
};

// One option of the command line.
struct Option : OptionRow {
  Commands commands;  // the commands that take it
  Commands required;  // those that need it given
  Origin origin;      // upstream's options are always in the args JSON; ours only when given
  // Reads `text`, given to the option spelt `option` ("--reps"), through the readers of base/option_values.hpp
  // (or fixed_options.hpp's, serve_options.hpp's), and stores it (a flag's: called with "" when given). A usage
  // Error naming the option, saying what would be right.
  void (*read)(OptionGroups&, const std::string& option, const std::string& text);
  std::optional<Value> (*value)(const FixedArgs&) = nullptr;  // args.NAME; nullptr: none (serve's); nullopt: no Value holds it
  std::string (*echo)(const FixedArgs&) = nullptr;            // its args JSON text when str(value) cannot say it
  OptionWords words = OptionWords::one;                       // the words it takes
  std::vector<std::string> (*choices)() = nullptr;            // the values it takes, checked before `read`
  const char* positional = nullptr;                           // OptionWords::list: its positionals' name ("paths")

  bool upstream() const { return origin == Origin::upstream; }
  bool takes(Command command) const { return commands.has(command); }
  bool required_by(Command command) const { return required.has(command); }
};

// Every row: the sweep's in upstream's order, then ours, then serve's own; the order of --help and the messages.
const std::vector<Option>& options();

// The rows `command` takes, in table order.
std::vector<const Option*> options_of(Command command);

// "--NAME" of each row `command` takes: the names "did you mean" chooses from.
std::vector<std::string> option_names(Command command);

// The row named `name` (without "--") that `command` takes; else, for a command that runs the model, the other's
// row of that name (refused there, saying whose); else nullptr. Positional rows have no name on the line.
const Option* find_option(std::string_view name, Command command = Command::sweep);

// The value `text` given to `option`, read by its row's reader into `groups`.
void read_option_value(const Option& option, OptionGroups& groups, const std::string& text);

// The options given to `command` (rows it takes, each at most once, with its value as typed; a flag with ""):
// a usage Error for the required options missing (all of them, in table order), then each value read in table
// order (serve's own first, checked together by check_serve_args), then check_fixed_args.
OptionGroups options_from(Command command, const std::vector<std::pair<const Option*, std::string>>& given);

// The values given to `command` (not one that runs the model: options_from is theirs), each row's in the order
// given, read in table order, each checked against the row's choices first. A usage Error for a required row
// not given, naming what it takes and what may follow: "--cache: expected list, report or clear, then
// optionally --cache_dir DIR".
OptionGroups command_options_from(Command command, const std::vector<std::pair<const Option*, std::string>>& given);

// `args.NAME` in an `@` value, as upstream's eval namespace holds `args`: each option's value, and
// args.model_path. Refers to `args`, which must outlive it.
NameResolver args_resolver(const FixedArgs& args);

// The fixed part of the args JSON, sorted by name: (name, its text as upstream's to_evaluable_strings writes
// it), upstream's options always, ours only when given, and model_path.
std::vector<std::pair<std::string, std::string>> args_json_fields(const FixedArgs& args);

}  // namespace fmwork
