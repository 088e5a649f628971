// `driver --help` and `driver serve --help` (usage.hpp): the text, laid out from the one option table
// (options.hpp), option_sets' tables and the subcommands the driver declares.
#include "fmwork/cli/usage.hpp"

#include <algorithm>
#include <optional>
#include <sstream>

#include "fmwork/base/error.hpp"
#include "fmwork/base/text_format.hpp"
#include "fmwork/cli/option_row.hpp"
#include "fmwork/cli/option_sets.hpp"
#include "fmwork/cli/options.hpp"
#include "fmwork/cli/sub_options.hpp"

namespace fmwork {

namespace {

// The examples, each a whole command line. DriverTest.EveryHelpExampleRuns runs each one (on its test model,
// in place of the model and sizes named here), so an example the checks refuse fails a test.
const char* const kExamples[] = {
    "driver --platform cpu --model_class BertModel --model_name build/models/encoder-mini/model.pt "
    "--input_sizes 64,128 --batch_sizes 1,8 --reps 20 --eval --compile --compile:backend torchscript",
    "driver --platform cuda --model_root /models --model_name ibm-granite/granite-embedding-125m-english "
    "--model_class RobertaModel --input_sizes 512 --batch_sizes 1,8 --reps 100 --eval --model:torch_dtype bfloat16 "
    "--torch.call:set_grad_enabled@ False",
    "driver run configs/experiments/minilm-dtypes-threads.json --list",
    "driver --cache list",
};

// `lead` then the units, separated by spaces, in lines of at most `width` characters counting `more` (a
// longer unit stands alone); a line that goes on ends with `more`, the next starts with `indent`.
std::string wrapped_units(const std::string& lead, const std::vector<std::string>& units, size_t width,
                          const std::string& indent, const std::string& more = "") {
  std::string out, line = lead;
  bool fresh = true;  // no unit on this line yet
  for (const std::string& unit : units) {
    if (!fresh && line.size() + 1 + unit.size() + more.size() > width) {
      out += line + more + "\n";
      line = indent;
      fresh = true;
    }
    line += (fresh ? "" : " ") + unit;
    fresh = false;
  }
  return out + line + "\n";
}

// `lead` then the words of `text`, wrapped as wrapped_units wraps.
std::string wrapped(const std::string& lead, const std::string& text, size_t width, const std::string& indent) {
  std::vector<std::string> words;
  std::istringstream in(text);
  for (std::string word; in >> word;) words.push_back(word);
  return wrapped_units(lead, words, width, indent);
}

// The usage lines: the fixed options as the table declares them, then one line per subcommand.
std::string usage_lines(const std::vector<SubcommandDoc>& subcommands) {
  std::vector<std::string> units;
  for (const Option* option : options_of(Command::sweep))
    units.push_back(option->required_by(Command::sweep) ? option->usage() : "[" + option->usage() + "]");
  units.emplace_back("[--SET:key[@] VALUE ...]");
  std::string out = wrapped_units("usage: driver ", units, 99, std::string(14, ' '));
  for (const auto& subcommand : subcommands) out += "       driver " + subcommand.name + " " + subcommand.synopsis + "\n";
  return out;
}

// One summary line per sub-option set, in kSubOptionSets' order.
std::string sub_option_summaries() {
  std::string out;
  for (const std::string& set : kSubOptionSets) {
    for (const auto* docs : {&option_set_docs(), &torch_setting_docs()})
      for (const auto& doc : *docs)
        if (doc.set == set) out += option_help_line("  --" + set + ":" + doc.shape, 22, doc.summary);
    // Platform keys have no table: they belong to the plugin.
    if (set == "platform") out += option_help_line("  --platform:KEY", 22, "options handed to a device plugin");
  }
  return out;
}

// Every key of the tabled sets, shown with a value it accepts, then the keys --model: ignores.
std::string option_key_lines() {
  std::string out = "keys of --compile:, --model:, --check_outputs: (each with a value it takes):\n";
  for (const auto& doc : option_set_docs()) {
    for (const auto& key : doc.keys) {
      std::string text = key.help;
      for (const auto& alias : key.aliases) text += "; also --" + doc.set + ":" + alias;
      out += option_help_line("  " + key.example, 40, text);
    }
  }
  std::string ignored;
  for (const auto& key : ignored_model_keys()) ignored += (ignored.empty() ? "" : ", ") + key.key;
  return out + wrapped("  ", "--model: accepts and ignores, as meaningless for a local folder: " + ignored, 100, "    ");
}

// Each example in lines of at most 100 characters, an option and its value kept on one line.
std::string example_lines() {
  std::string out;
  for (const char* example : kExamples) {
    std::vector<std::string> words, units;
    std::istringstream in(example);
    for (std::string word; in >> word;) words.push_back(word);
    for (size_t i = 0; i < words.size(); ++i) {
      const bool takes_next = words[i].rfind("--", 0) == 0 && i + 1 < words.size() && words[i + 1].rfind("--", 0) != 0;
      units.push_back(takes_next ? words[i] + " " + words[i + 1] : words[i]);
      i += takes_next ? 1 : 0;
    }
    out += wrapped_units("  ", units, 100, std::string(9, ' '), " \\");
  }
  return out;
}

// "--reps, --warmup, ...": the sweep's rows that serve does not take.
std::string sweep_only_list() {
  std::vector<std::string> names;
  for (const Option* option : options_of(Command::sweep))
    if (!option->takes(Command::serve)) names.push_back(option->option());
  return joined(names);
}

}  // namespace

std::string driver_usage(const std::vector<SubcommandDoc>& subcommands) {
  std::string out = usage_lines(subcommands) +
                    "\n"
                    "Benchmarks an embedding model over every batch size x input size, printing FMWORK lines.\n";
  if (!subcommands.empty()) {
    out += "\nsubcommands:\n";
    for (const auto& subcommand : subcommands) out += option_help_line("  " + subcommand.name, 24, subcommand.summary);
  }
  out += "\nfixed options:\n";
  for (const Option* option : options_of(Command::sweep))
    out += option_help_line("  " + option->option() + (option->flag() ? "" : " VALUE"), 24,
                            std::string(option->help) + (option->required_by(Command::sweep) ? " (required)" : ""));
  out += option_help_line("  --version", 24, "prints the driver's version and git revision, alone on the command line");
  out +=
      "\n"
      "sub-options: --SET:key[:key...][@] VALUE\n"
      "  A key ending in '@' takes a Python literal (None, True, False, numbers, 'strings', lists, tuples,\n"
      "  dicts, torch.float16, args.<option>); without '@' the value is a plain string.\n" +
      sub_option_summaries() + "\n" + option_key_lines() + "\nexamples:\n" + example_lines();
  return out;
}

std::string serve_usage() {
  std::string out =
      "usage: driver serve --platform P --model_class C --model_name N [--input_sizes L] [--batch_sizes B]\n"
      "                    (--rates R[,R...] | --users N | --latency_bound pQ:MS) [OPTIONS]\n\n"
      "The serving scenario: queries arrive (open loop, seeded Poisson; or closed loop, N users), a dynamic batcher\n"
      "forms batches of at most --batch_sizes B queries (one size; default 8), and each query's latency runs from\n"
      "its scheduled arrival to its batch's outputs being ready on the device. One FMWORK SERVE line per load\n"
      "level (percentiles, achieved rate, batch sizes, busy fraction, VALID or INVALID); with --latency_bound,\n"
      "FMWORK CAPACITY: the highest rate that holds it, and the rates tried. docs/serving.md says more.\n\n"
      "serve's options:\n";
  std::vector<std::string> shared;  // the rows serve shares with the sweep, but the two it reads its own way
  for (const Option* o : options_of(Command::serve)) {
    if (!o->takes(Command::sweep)) out += option_help_line("  " + o->usage(), 28, o->help);
    else if (std::string(o->name) != "input_sizes" && std::string(o->name) != "batch_sizes") shared.push_back(o->option() + ",");
  }
  for (const std::string& set : kSubOptionSets) shared.push_back("--" + set + ":" + (set == kSubOptionSets.back() ? "" : ","));
  shared.insert(shared.end() - static_cast<std::ptrdiff_t>(kSubOptionSets.size()), "and the");
  shared.emplace_back("sets.");
  out += "\n" + wrapped_units("the model's options are the sweep's (driver --help): ", shared, 110, "");
  out += wrapped("", "--input_sizes L is a fixed query length (default 128; with --input_lengths SPEC, the longest), "
                 "--batch_sizes B the batcher's largest batch (default 8); --batching padded takes the queue in order, "
                 "sorted the oldest query with the waiting ones nearest its length, unpadded runs the real tokens "
                 "packed (native encoders: their default with --input_lengths); the sweep's own options (" +
                 sweep_only_list() + ") are not used.", 110, "");
  out += "\nexample:\n  driver serve --platform cpu --model_class BertModel --model_name all-MiniLM-L6-v2 --eval \\\n"
         "      --input_sizes 128 --batch_sizes 8 --rates 20,40,80 --latency_bound p99:50 --price_per_hour 3.20\n";
  return out;
}

namespace {

// An entry of a command's --help: `left` in a column of 30 (alone on its line when wider), the help's lines beside it.
std::string command_help_line(const std::string& left, const std::string& help) {
  std::string out = "  " + left + (left.size() >= 28 ? "\n" + std::string(30, ' ') : std::string(28 - left.size(), ' '));
  for (const char c : help) out += c == '\n' ? "\n" + std::string(30, ' ') : std::string(1, c);
  return out + "\n";
}

}  // namespace

std::string command_usage(Command command) {
  const CommandText& text = command_text(command);
  std::string usage = std::string(text.about) + "\nUsage: " + text.line + " [OPTIONS]", positionals, entries;
  for (const Option* o : options_of(command)) {
    std::string value = o->value_name;
    if (o->choices) value += ":{" + joined(o->choices(), ",") + "}";
    if (o->words == OptionWords::list) value += " ...";
    if (o->words == OptionWords::positional || o->positional) {
      const std::string name = o->positional ? o->positional : o->name;
      usage += " [" + name + (o->positional ? "...]" : "]");
      positionals += command_help_line(name + " " + value, o->help);
    }
    if (o->words != OptionWords::positional) entries += command_help_line(o->flag() ? o->option() : o->option() + " " + value, o->help);
  }
  return usage + "\n\n" + (positionals.empty() ? "" : "Positionals:\n" + positionals + "\n") + "Options:\n" +
         command_help_line("-h,--help", "Print this help message and exit") + entries + "\n";
}

std::string command_synopsis(Command command) {
  std::vector<std::string> units;
  for (const Option* option : options_of(command)) {
    const bool positional = option->words == OptionWords::positional;
    const std::string words = positional && option->choices ? joined(option->choices(), "|")
                              : positional                  ? std::string(option->value_name)
                                                            : option->usage();
    units.push_back(option->required_by(command) ? words : "[" + words + "]");
  }
  return joined(units, " ");
}

std::string subcommand_usage(const SubcommandDoc& subcommand) {
  return "usage: driver " + subcommand.name + " " + subcommand.synopsis + "\n\n" + subcommand.summary + "\n";
}

void refuse_misspelt_subcommand(const std::vector<std::string>& words, const std::vector<SubcommandDoc>& subcommands) {
  if (words.empty()) return;
  const std::string& word = words[0];
  std::vector<std::string> names;
  for (const auto& subcommand : subcommands) {
    if (word == subcommand.name) return;
    names.push_back(subcommand.name);
  }
  const bool option = word.rfind("--", 0) == 0;
  if (option) {  // a fixed option, a sub-option or the driver's own words start a sweep's line: none is a typo
    const std::string name = word.substr(2, word.find('=') - 2);  // npos - 2 still reads to the end
    if (name.find(':') != std::string::npos || (find_option(name) && find_option(name)->takes(Command::sweep)) || name == "help" || name == "version") return;
    for (const std::string& fixed : option_names(Command::sweep)) names.push_back(fixed);
    names.insert(names.end(), {"--help", "--version"});
  }
  const std::optional<std::string> meant = closest_option(word, names);
  const bool is_subcommand = meant && std::any_of(subcommands.begin(), subcommands.end(),
                                                  [&](const SubcommandDoc& s) { return s.name == *meant; });
  if (!is_subcommand) return;
  throw usage_error((option ? "unknown option " + excerpt(word) : "unknown subcommand '" + excerpt(word) + "'") + did_you_mean(meant) +
                    " (driver --help lists the subcommands)");
}

}  // namespace fmwork
