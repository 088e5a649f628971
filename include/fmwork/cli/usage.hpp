// `driver --help`: the usage lines, the subcommands, the fixed options (from their table), the sub-option
// sets and their keys (from option_sets' tables), and examples that run as written.
#pragma once

#include <string>
#include <vector>

#include "fmwork/cli/options.hpp"

namespace fmwork {

// A subcommand as --help names it: `driver NAME SYNOPSIS`, and what it does in one line.
struct SubcommandDoc {
  std::string name;      // the word after `driver`: "run", "--cache"
  std::string synopsis;  // what follows the name: "list|report|clear [--cache_dir DIR]"
  std::string summary;   // one line, no newline
};

// The text printed by `driver --help`, naming `subcommands` (in their order) with their summaries. The
// fixed options are the rows of options.hpp the sweep takes, the keys of --compile:, --model: and --check_outputs: from
// option_sets' tables (option_set_docs), the ones the parsers read. Every example is a whole command line,
// its continuation lines ending in " \".
std::string driver_usage(const std::vector<SubcommandDoc>& subcommands);

// `driver serve --help`: what it does, serve's own options (the rows only serve takes) and the model's it shares
// with the sweep (the rows both take, and the sub-option sets), from the one table (options.hpp).
std::string serve_usage();

// `process --help` (and each other command's that does not run the model): its about text, its usage line, its
// positionals and options, from its rows of the one table (options.hpp), laid out as CLI11 laid them out.
std::string command_usage(Command command);

// What follows a command's words in its usage line, from its rows in table order: a positional row's choices
// ("list|report|clear") or value name, the others' usage; each in brackets unless the row is required. For
// `driver --cache`: "list|report|clear [--cache_dir DIR]".
std::string command_synopsis(Command command);

// `driver NAME --help` for a subcommand without a help of its own: its usage line and summary.
std::string subcommand_usage(const SubcommandDoc& subcommand);

// Refuses a command line (the words after `driver`) whose first word is a misspelt subcommand: no subcommand,
// no fixed option, and closer to a subcommand's name than to any option (closest_option). A usage Error
// "unknown subcommand 'serv'; did you mean serve? (driver --help lists them)", or "unknown option --cach; did
// you mean --cache? ..." for one written as an option; nothing for any other line, which the sweep's parser
// reads (and refuses in its own words: "unexpected argument 'foo'").
void refuse_misspelt_subcommand(const std::vector<std::string>& words, const std::vector<SubcommandDoc>& subcommands);

}  // namespace fmwork
