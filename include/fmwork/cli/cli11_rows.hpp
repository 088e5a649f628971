// The option tables of the programs whose words CLI11 splits (`process`, `driver run`): each option one row
// (its OptionRow, how many words it takes, its choices), from which the CLI11 App is set up, so that --help and
// "did you mean" (parse_error_line, over the App's names) come from the rows; CLI11 stays the tokenizer and
// the help printer. The values are read by the command's own readers (base/option_values.hpp), row by row.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "fmwork/cli/option_row.hpp"

namespace fmwork {

// How many words a row takes on the command line.
enum class OptionWords {
  flag,        // none: --list
  one,         // one, the option given once: --format json
  two,         // exactly two: --compare A B
  each,        // one an occurrence, any number of occurrences: --match dtype --match threads
  list,        // any number, also as the program's positional words (`positional`): --path a.log b.log, a.log
  positional,  // one positional word, no option: `driver run EXPERIMENT`; `name` is its name in --help
};

// A row of such a table. `choices`, when set, lists the values the row takes (read_choice's, during the parse).
struct Cli11Option : OptionRow {
  OptionWords words = OptionWords::one;
  std::vector<std::string> (*choices)() = nullptr;
  const char* positional = nullptr;  // OptionWords::list: the positionals' name in --help ("paths")
};

// A row with its reader, which stores the value read into the command's options, `Args` (a usage Error naming
// the option for a bad one, through base/option_values.hpp's readers). A command reads every row given, in
// table order, and then checks the options against each other.
template <typename Args>
struct Cli11Row : Cli11Option {
  using Read = void (*)(Args&, const std::vector<std::string>& values);
  Read read = nullptr;
  Cli11Row(OptionRow option, OptionWords words, Read reader, std::vector<std::string> (*choices)() = nullptr,
           const char* positional = nullptr)
      : Cli11Option{option, words, choices, positional}, read(reader) {}
};

// The words CLI11 read for the rows added, by row name.
class GivenOptions {
 public:
  // Adds `row` to `app` (after the rows added before it, which is --help's order), its words kept here.
  void add(CLI::App& app, const Cli11Option& row);
  // Whether the row named `name` was given; a flag: whether it is set (CLI11 takes --list=false as unset).
  bool given(const std::string& name) const;
  // Its words: {} for a flag, {VALUE} for OptionWords::one or positional, all of them otherwise.
  std::vector<std::string> values(const std::string& name) const;

 private:
  struct Words {
    OptionWords words = OptionWords::one;
    std::string text;
    std::vector<std::string> list;
    bool flag = false;
    CLI::Option* option = nullptr;
  };
  std::map<std::string, Words> words_;  // node-stable: the App holds references into it
};

}  // namespace fmwork
