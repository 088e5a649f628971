// The options given, read against the one option table (options.cpp's rows): each command's rows, a name's
// row, the parsed groups with the required rows checked, and `args.NAME` and the args JSON from the rows.
#include "fmwork/cli/options.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "fmwork/base/error.hpp"
#include "fmwork/base/option_values.hpp"
#include "fmwork/base/text_format.hpp"

namespace fmwork {

std::vector<const Option*> options_of(Command command) {
  std::vector<const Option*> rows;
  for (const Option& option : options())
    if (option.takes(command)) rows.push_back(&option);
  return rows;
}

std::vector<std::string> option_names(Command command) {
  std::vector<std::string> names;
  for (const Option* option : options_of(command))
    if (option->words != OptionWords::positional) names.push_back(option->option());
  return names;
}

const Option* find_option(std::string_view name, Command command) {
  const Option* other = nullptr;  // a row of the other command that runs the model
  for (const Option& option : options()) {
    if (name != option.name || option.words == OptionWords::positional) continue;
    if (option.takes(command)) return &option;
    if (!other && runs_model(command) && (option.takes(Command::sweep) || option.takes(Command::serve))) other = &option;
  }
  return other;
}

void read_option_value(const Option& option, OptionGroups& groups, const std::string& text) {
  option.read(groups, option.option(), text);
}

OptionGroups options_from(Command command, const std::vector<std::pair<const Option*, std::string>>& given) {
  auto given_text = [&](const Option& option) -> const std::string* {
    for (const auto& [which, text] : given)
      if (which == &option) return &text;
    return nullptr;
  };
  OptionGroups groups;
  // serve's own first, checked together before the model's: "needs a load" before a missing model option.
  std::vector<std::string> serve_given;
  for (const Option* option : options_of(command))
    if (const std::string* text = given_text(*option); text && !option->takes(Command::sweep)) {
      read_option_value(*option, groups, *text);
      serve_given.emplace_back(option->name);
    }
  if (command == Command::serve) check_serve_args(groups.serve, serve_given);
  std::vector<std::string> missing;
  for (const Option* option : options_of(command))
    if (option->required_by(command) && !given_text(*option)) missing.push_back(option->option());
  if (missing.size() == 1) throw usage_error("missing required option " + missing[0]);
  if (!missing.empty()) throw usage_error("missing required options " + fmt::format("{}", fmt::join(missing, ", ")));
  for (const Option* option : options_of(command))
    if (const std::string* text = given_text(*option); text && option->takes(Command::sweep))
      read_option_value(*option, groups, *text);
  check_fixed_args(groups.args);
  return groups;
}

namespace {

// A required row of `command` that is not given: "--cache: expected list, report or clear, then optionally
// --cache_dir DIR", its choices (else its value name) and the rows that may follow.
[[noreturn]] void refuse_missing(const Option& row, Command command) {
  std::vector<std::string> words = row.choices ? row.choices() : std::vector<std::string>{row.value_name}, optional;
  for (const Option* option : options_of(command))
    if (!option->required_by(command)) optional.push_back(option->usage());
  const std::string last = words.back();
  words.pop_back();
  throw usage_error(row.option() + ": expected " + (words.empty() ? "" : joined(words) + " or ") + last +
                    (optional.empty() ? "" : ", then optionally " + joined(optional)));
}

}  // namespace

OptionGroups command_options_from(Command command, const std::vector<std::pair<const Option*, std::string>>& given) {
  OptionGroups groups;
  for (const Option* option : options_of(command))
    if (option->required_by(command) &&
        std::none_of(given.begin(), given.end(), [&](const auto& word) { return word.first == option; }))
      refuse_missing(*option, command);
  for (const Option* option : options_of(command))
    for (const auto& [which, text] : given) {
      if (which != option) continue;
      if (option->choices) read_choice(option->option(), text, option->choices());
      read_option_value(*option, groups, text);
    }
  return groups;
}

NameResolver args_resolver(const FixedArgs& args) {
  return [&args](std::string_view name) -> std::optional<Value> {
    if (name.substr(0, 5) != "args.") return std::nullopt;
    const std::string_view field = name.substr(5);
    if (field == "model_path") return Value::of_string(args.model_path);
    const Option* option = find_option(field, Command::sweep);
    return option && option->value ? option->value(args) : std::nullopt;
  };
}

std::vector<std::pair<std::string, std::string>> args_json_fields(const FixedArgs& args) {
  std::vector<std::pair<std::string, std::string>> fields = {{"model_path", args.model_path}};
  for (const Option& option : options()) {
    if (!option.value) continue;  // serve's own: echoed as ARG lines only
    const std::optional<Value> value = option.value(args);  // nullopt only where `echo` says it
    const bool given = !value || !(value->type == Value::Type::none ||
                                   (value->type == Value::Type::boolean && !value->boolean));
    if (option.upstream() || given) fields.emplace_back(option.name, option.echo ? option.echo(args) : str(value.value()));
  }
  std::sort(fields.begin(), fields.end());
  return fields;
}

}  // namespace fmwork
