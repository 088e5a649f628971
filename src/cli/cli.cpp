// The command line of a driver run or `driver serve` (cli.hpp): the one tokenizer, argv sorted into the options
// of the one table (options.hpp) and sub-options, then each turned into what it stands for.
#include "fmwork/cli/cli.hpp"

#include <algorithm>
#include <optional>
#include <set>
#include <string_view>

#include "fmwork/base/error.hpp"
#include "fmwork/base/text_format.hpp"
#include "fmwork/cli/option_sets.hpp"

namespace fmwork {

namespace {

// What follows "unknown option --X; did you mean ...?": where the command's options are listed.
std::string unknown_option_tail(Command command) {
  if (command == Command::serve) return "; driver serve --help lists serve's options and the model's";
  return "; the fixed options are " + joined(option_names(command)) + ", and " + sub_option_shape();
}

// An option of the table that `command` does not take: whose it is, from the row.
[[noreturn]] void refuse_other_commands_option(const Option& option, Command command) {
  const Command owner = command == Command::sweep ? Command::serve : Command::sweep;
  throw usage_error(option.option() + " is " + command_text(owner).whose + "; " + command_text(command).does + " (" +
                    command_text(command).line + " --help)");
}

// argv sorted out: the fixed options with their values, the sub-options for the trees, and the ARG line words.
struct SortedWords {
  std::vector<std::pair<const Option*, std::string>> fixed;  // each with its value as typed ("" for a flag)
  std::vector<std::pair<std::string, std::string>> subs;          // (--SET:key[@], VALUE), in the order given
  std::set<std::string> seen;                                     // names of the options given
  std::vector<std::string> arg_words;                             // "--reps 2", in the order given
};

// One fixed option (`word` is argv[i]): given once, a flag without a value, an option with one after '='
// or in the next word. Returns the index of the last word it used.
int take_fixed(const Option& spec, const std::string& word, const std::optional<std::string>& inline_value,
               int i, int argc, const char* const* argv, SortedWords& out) {
  const std::string option = std::string("--") + spec.name;
  if (!out.seen.insert(spec.name).second) throw usage_error(option + " is given twice; give it once");
  if (spec.flag()) {
    if (inline_value) throw usage_error(option + " is a flag and takes no value (got '" + excerpt(word) + "')");
    out.fixed.emplace_back(&spec, "");
    out.arg_words.push_back(option);
    return i;
  }
  std::string value;
  if (inline_value) {
    value = *inline_value;
  } else {
    if (i + 1 >= argc || std::string_view(argv[i + 1] ? argv[i + 1] : "").substr(0, 2) == "--")
      throw usage_error(option + " needs a value, like " + spec.with_example() + " (to give one that starts with '--', "
                        "write " + option + "=VALUE)");
    value = argv[++i];
  }
  out.fixed.emplace_back(&spec, value);
  out.arg_words.push_back(option + " " + value);
  return i;
}

// Sub-options (a `--` word whose name has a ':', with the next word as its value whatever it looks like)
// go aside; fixed options are checked against their table; anything else is refused.
SortedWords sort_words(int argc, const char* const* argv, Command command) {
  SortedWords out;
  std::vector<std::string> words;
  for (int i = 1; i < argc; ++i) words.emplace_back(argv[i] ? argv[i] : "");
  refuse_control_characters(words);  // every word is echoed into the log (FMWORK ARG, the args JSON)
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i] ? argv[i] : "";
    // The words that start a mode of their own (driver.cpp reads them first on the line) said "unknown option"
    // or "unexpected argument" anywhere else, as if the driver had no such thing.
    if (word == "run" || word == "--cache" || word == "--version") {
      throw usage_error(word == "run" ? "'run' is a sub-command and comes first: driver run EXPERIMENT (--out ROOT | --list)"
                        : word == "--cache" ? "--cache is a sub-command and comes first: driver --cache "
                                              "list|report|clear [--cache_dir DIR]"
                                            : "--version stands alone on the command line: driver --version");
    }
    if (word.rfind("--", 0) != 0) {
      throw usage_error("unexpected argument '" + excerpt(word) + "'; options are written --NAME VALUE, flags --NAME, and " +
                        sub_option_shape());
    }
    const std::string name = word.substr(2);
    const size_t eq = name.find('=');
    const Option* spec = find_option(name);
    std::optional<std::string> inline_value;
    if (!spec && eq != std::string::npos && (spec = find_option(name.substr(0, eq))) != nullptr)
      inline_value = name.substr(eq + 1);
    if (spec && !spec->takes(command)) refuse_other_commands_option(*spec, command);
    if (spec) {
      i = take_fixed(*spec, word, inline_value, i, argc, argv, out);
      continue;
    }
    if (name.find(':') == std::string::npos) {
      throw usage_error(unknown_option("--" + name.substr(0, eq), option_names(command)) + unknown_option_tail(command));
    }
    // `--model:dtype=float32` took the next word as its value, then was an unknown key "dtype=float32" (or,
    // last on the line, had "no value"): the value is a word of its own. ('=' inside a quoted key is a key's.)
    // A secret's value (--model:token=...) is not repeated: kNotShown stands for it, as everywhere.
    if (eq != std::string::npos && name.find_first_of("'\"") > eq) {
      const std::string option = word.substr(0, eq + 2);
      const bool secret = is_secret_option(option);
      const std::string value = secret ? std::string(kNotShown) : excerpt(name.substr(eq + 1));
      throw usage_error((secret ? option + "=" + value : excerpt(word)) + ": a sub-option's value is the next word, "
                        "not after '=': write " + excerpt(option) + " " + value + " (a space, not '=')");
    }
    if (i + 1 >= argc) throw usage_error(excerpt(word) + " has no value; " + sub_option_shape());
    const std::string value = argv[i + 1] ? argv[i + 1] : "";
    out.subs.emplace_back(word, value);
    out.arg_words.push_back(word + " " + value);
    ++i;
  }
  return out;
}

}  // namespace

void check_tuned_options(const CommandLine& command_line) {
  const FixedArgs& args = command_line.args;
  const auto set = command_line.subs.find("check_outputs");
  if (set == command_line.subs.end() || args.check_outputs) return;
  // The tolerances also tune the check against the CPU, which a run on the CPU without --compile does not make;
  // cpu@ switches that check and is taken on any run, so that one option set serves a campaign's every platform.
  const bool cpu_eager = args.platform == "cpu" && !args.compile;
  for (const auto& entry : set->second.entries)
    if (entry.first != "cpu" && cpu_eager)
      throw usage_error("--check_outputs:KEY sets tolerances of --check_outputs DIR, which is not given, or of the "
                        "check against the CPU, which a run on --platform cpu without --compile does not make");
}

CommandLine parse_command_line(int argc, const char* const* argv, Command command) {
  CommandLine result;
  SortedWords words = sort_words(argc, argv, command);
  OptionGroups groups = options_from(command, words.fixed);
  result.args = std::move(groups.args);
  result.serve = std::move(groups.serve);
  result.subs = sub_option_trees(words.subs, args_resolver(result.args));
  result.arg_words = std::move(words.arg_words);
  std::sort(result.arg_words.begin(), result.arg_words.end());
  return result;
}

}  // namespace fmwork
