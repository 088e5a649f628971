// The command line of every command (cli.hpp): the one tokenizer, argv sorted into the options of the one table
// (options.hpp), sub-options and keyed words, then each turned into what it stands for.
#include "fmwork/cli/cli.hpp"

#include <algorithm>
#include <optional>
#include <set>
#include <string_view>

#include "fmwork/base/error.hpp"
#include "fmwork/base/text_format.hpp"
#include "fmwork/cli/option_sets.hpp"
#include "fmwork/cli/usage.hpp"

namespace fmwork {

namespace {

// What follows "unknown option --X; did you mean ...?": where the command's options are listed.
std::string unknown_option_tail(Command command) {
  if (command == Command::serve) return "; driver serve --help lists serve's options and the model's";
  if (!runs_model(command)) return command_text(command).see;
  return "; the fixed options are " + joined(option_names(command)) + ", and " + sub_option_shape();
}

// An option of the table that `command` does not take: whose it is, from the row.
[[noreturn]] void refuse_other_commands_option(const Option& option, Command command) {
  const Command owner = command == Command::sweep ? Command::serve : Command::sweep;
  throw usage_error(option.option() + " is " + command_text(owner).whose + "; " + command_text(command).does + " (" +
                    command_text(command).line + " --help)");
}

// argv sorted out: the rows given with their values, the sub-options for the trees, and the ARG line words.
struct SortedWords {
  std::vector<std::pair<const Option*, std::string>> fixed;  // each value as typed ("" for a flag), in order
  std::vector<std::pair<std::string, std::string>> subs;     // (--SET:key[@], VALUE), in the order given
  std::set<std::string> seen;                                // names of the rows given
  std::vector<std::string> arg_words;                        // "--reps 2", in the order given
};

// Whether argv[at] is a value: there, and not an option (a list's words end at any "-x" word, "-" excepted).
bool is_value(int at, int argc, const char* const* argv, bool list) {
  const std::string_view word = at < argc && argv[at] ? argv[at] : "--";
  return word.substr(0, 2) != "--" && !(list && word.size() > 1 && word[0] == '-');
}

// One option (`word` is argv[i]) and the words its row takes: once unless it repeats (OptionWords each, list), a
// flag without a value, the others with theirs after '=' or in the next words. Returns the index of the last
// word it used.
int take_option(const Option& spec, const std::string& word, const std::optional<std::string>& inline_value, int i,
                int argc, const char* const* argv, Command command, SortedWords& out) {
  const std::string option = spec.option(), see = command_text(command).see;
  const bool list = spec.words == OptionWords::list;
  if (!out.seen.insert(spec.name).second && spec.words != OptionWords::each && !list)
    throw usage_error(option + " is given twice; give it once" + see);
  if (spec.flag()) {
    if (inline_value) throw usage_error(option + " is a flag and takes no value (got '" + excerpt(word) + "')" + see);
    out.fixed.emplace_back(&spec, "");
    out.arg_words.push_back(option);
    return i;
  }
  const size_t count = spec.words == OptionWords::two ? 2 : 1;
  std::vector<std::string> values;
  if (inline_value) values.push_back(*inline_value);
  while ((values.size() < count || list) && is_value(i + 1, argc, argv, list)) values.emplace_back(argv[++i]);
  if (values.size() < count && count == 1 && spec.choices)
    throw usage_error(option + " needs a value: one of " + joined(spec.choices()) + see);
  if (values.size() < count && count == 1)
    throw usage_error(option + " needs a value, like " + spec.with_example() + " (to give one that starts with '" +
                      (list ? "-" : "--") + "', write " + option + "=VALUE)" + see);
  if (values.size() < count)
    throw usage_error(option + " takes " + std::to_string(count) + " values, like " + spec.with_example() + "; got " +
                      std::to_string(values.size()) + see);
  for (const std::string& value : values) out.fixed.emplace_back(&spec, value);
  out.arg_words.push_back(option + " " + joined(values, " "));
  return i;
}

// A word that is no option: the command's positional row's (a list's or a positional's, once), else refused.
void take_positional(const std::string& word, Command command, SortedWords& out) {
  const Option* row = nullptr;
  for (const Option* option : options_of(command))
    if (option->words == OptionWords::positional || option->positional) row = option;
  if (!row) {
    throw usage_error("unexpected argument '" + excerpt(word) + "'; options are written --NAME VALUE, flags --NAME, and " +
                      sub_option_shape());
  }
  if ((word.size() > 1 && word[0] == '-') || (!out.seen.insert(row->name).second && !row->positional))
    throw usage_error("unexpected argument: " + excerpt(word) + command_text(command).see);
  out.fixed.emplace_back(row, word);
  out.arg_words.push_back(word);
}

// A sub-option (a `--` word whose name has a ':', with the next word as its value whatever it looks like) of a
// command that runs the model, aside for the trees (`word` is argv[i]; `eq` where a '=' is in its name).
void take_sub_option(const std::string& word, size_t eq, int i, int argc, const char* const* argv, SortedWords& out) {
  const std::string name = word.substr(2);
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
}

// A word of the command's open-ended family, `--F:KEY VALUE` or `--F:KEY=VALUE` (`word` is argv[i]), as (KEY,
// VALUE) in `subs`. Returns the index of the last word it used.
int take_keyed(const std::string& word, int i, int argc, const char* const* argv, SortedWords& out) {
  std::string key = word.substr(word.find(':') + 1), value;
  const std::string family = word.substr(0, word.find(':'));
  // "--slurm:" took the next word ("--out") as its value and left the one after unexpected.
  if (key.empty() || key[0] == '=')
    throw usage_error(excerpt(word) + ": no KEY after ':'; write " + family + ":KEY VALUE");
  if (const size_t eq = key.find('='); eq != std::string::npos) {
    value = key.substr(eq + 1);
    key.resize(eq);
  } else if (i + 1 < argc) {
    value = argv[++i] ? argv[i] : "";
  } else {
    throw usage_error(excerpt(word) + ": a value is missing (" + family + ":KEY VALUE; an empty VALUE \"\" for a flag)");
  }
  out.subs.emplace_back(key, value);
  out.arg_words.push_back(word + " " + value);
  return i;
}

// Each word to its row: options with their values, sub-options aside, positional words; anything else refused.
SortedWords sort_words(int argc, const char* const* argv, Command command) {
  SortedWords out;
  std::vector<std::string> words;
  for (int i = 1; i < argc; ++i) words.emplace_back(argv[i] ? argv[i] : "");
  refuse_control_characters(words);  // every word is echoed into the log (FMWORK ARG, the args JSON)
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i] ? argv[i] : "";
    // The words that start a mode of their own (driver.cpp reads them first on the line) said "unknown option"
    // or "unexpected argument" anywhere else, as if the driver had no such thing.
    if (runs_model(command) && (word == "run" || word == "--cache" || word == "--version")) {
      throw usage_error(word == "run" ? "'run' is a sub-command and comes first: driver run " +
                                            command_synopsis(Command::run)
                        : word == "--cache" ? "--cache is a sub-command and comes first: driver --cache " +
                                                  command_synopsis(Command::cache)
                                            : "--version stands alone on the command line: driver --version");
    }
    if (word.rfind("--", 0) != 0) {
      take_positional(word, command, out);
      continue;
    }
    const std::string name = word.substr(2);
    const size_t eq = name.find('=');
    const Option* spec = find_option(name, command);
    std::optional<std::string> inline_value;
    if (!spec && eq != std::string::npos && (spec = find_option(name.substr(0, eq), command)) != nullptr)
      inline_value = name.substr(eq + 1);
    if (spec && !spec->takes(command)) refuse_other_commands_option(*spec, command);
    if (spec) {
      i = take_option(*spec, word, inline_value, i, argc, argv, command, out);
    } else if (const char* keys = command_text(command).keys; keys && name.rfind(std::string(keys) + ":", 0) == 0) {
      i = take_keyed(word, i, argc, argv, out);
    } else if (name.find(':') != std::string::npos && runs_model(command)) {
      take_sub_option(word, eq, i++, argc, argv, out);
    } else {
      throw usage_error(unknown_option("--" + name.substr(0, eq), option_names(command)) + unknown_option_tail(command));
    }
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
  result.given = words.seen;
  if (!runs_model(command)) {
    OptionGroups groups = command_options_from(command, words.fixed);
    result.process = std::move(groups.process);
    result.run = std::move(groups.run);
    result.cache = std::move(groups.cache);
    result.keyed = std::move(words.subs);
    return result;
  }
  OptionGroups groups = options_from(command, words.fixed);
  result.args = std::move(groups.args);
  result.serve = std::move(groups.serve);
  result.subs = sub_option_trees(words.subs, args_resolver(result.args));
  result.arg_words = std::move(words.arg_words);
  std::sort(result.arg_words.begin(), result.arg_words.end());
  return result;
}

bool asks_for_help(const std::vector<std::string>& words) {
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string& word = words[i];
    if (word == "--help" || word == "-h") return true;
    // --SET:KEY VALUE and --slurm:KEY VALUE: the next word is the value.
    if (word.rfind("--", 0) == 0 && word.find(':') != std::string::npos && word.find('=') == std::string::npos) ++i;
  }
  return false;
}

CommandLine parse_command_line(const std::vector<std::string>& words, Command command) {
  std::vector<const char*> argv = {command_text(command).line};
  for (const std::string& word : words) argv.push_back(word.c_str());
  return parse_command_line(static_cast<int>(argv.size()), argv.data(), command);
}

}  // namespace fmwork
