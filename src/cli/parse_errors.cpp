// CLI11's parse errors in our words (see parse_errors.hpp).
#include "fmwork/cli/parse_errors.hpp"

#include <algorithm>
#include <optional>
#include <regex>

#include <CLI/CLI.hpp>

#include "fmwork/base/error.hpp"
#include "fmwork/base/option_values.hpp"
#include "fmwork/base/text_format.hpp"

namespace fmwork {
namespace {

// The longest CLI11 message the patterns below read (std::regex's depth grows with the text), and the longest
// word of the user's quoted whole in it.
constexpr size_t kMaxParseMessage = 4096;
constexpr size_t kMaxQuotedWord = 200;

// CLI11's name of a value's type in words: "FORMAT:{json,csv}" -> "one of json, csv", "INT" -> "a whole
// number", anything else (TEXT, PATH) -> "".
std::string type_words(const std::string& type) {
  std::smatch m;
  static const std::regex choices("^[A-Z_]+:\\{(.*)\\}$");
  if (std::regex_match(type, m, choices)) return "one of " + std::regex_replace(m[1].str(), std::regex(","), ", ");
  if (type == "INT" || type == "UINT") return "a whole number";
  if (type == "FLOAT") return "a number";
  return "";
}

// The messages of values: missing, given to a flag, not converted, out of range. Empty when none matches.
std::string value_error_text(const std::string& message) {
  std::smatch m;
  static const std::regex missing("^(\\S+): [0-9]+ required (.+) missing$");
  static const std::regex flag_value("^Could not convert: (\\S+) = (.*)$");
  static const std::regex flag_values("^(\\S+): too many inputs for a flag$");
  static const std::regex true_false("^(\\S+): Should be true/false or a number$");
  static const std::regex range("^(\\S+): Value (.*) not in range (\\S+) to (\\S+)$");
  static const std::regex not_allowed("^The value (.*) is not an allowed value for (\\S+)$");
  if (std::regex_match(message, m, missing)) {
    const std::string words = type_words(m[2].str());
    return m[1].str() + " needs a value" + (words.empty() ? "" : ": " + words);
  }
  if (std::regex_match(message, m, flag_value))
    return m[1].str() + " is a flag and takes no value (got " + m[2].str() + "); give " + m[1].str() + " alone";
  if (std::regex_match(message, m, flag_values) || std::regex_match(message, m, true_false))
    return m[1].str() + " is a flag and takes no value; give " + m[1].str() + " alone";
  if (std::regex_match(message, m, range))
    return m[1].str() + " " + m[2].str() + ": give a value from " + m[3].str() + " to " + m[4].str();
  if (std::regex_match(message, m, not_allowed)) return m[2].str() + " " + m[1].str() + ": not a value it takes";
  return "";
}

}  // namespace

std::string parse_error_text(const std::string& message) {
  // std::regex recurses once a character: a message of 100,000 characters overflowed the stack (a signal,
  // not an error line). The user's words in it are cut (parse_error_line) before it comes here.
  if (message.size() > kMaxParseMessage) return excerpt(message, 200);
  std::smatch m;
  static const std::regex at_most("^(\\S+): At Most ([0-9]+) required but received ([0-9]+)$");
  static const std::regex at_least("^(\\S+): At least ([0-9]+) required but received ([0-9]+)$");
  static const std::regex exactly("^Expected exactly ([0-9]+) arguments? to (\\S+), got ([0-9]+)$");
  if (std::regex_match(message, m, at_most)) {
    if (m[2] == "1") return m[1].str() + " is given " + m[3].str() + " times; give it once";
    return m[1].str() + " takes at most " + m[2].str() + " values; got " + m[3].str();
  }
  if (std::regex_match(message, m, at_least))
    return m[1].str() + " takes at least " + m[2].str() + " values; got " + m[3].str();
  if (std::regex_match(message, m, exactly))
    return m[2].str() + " takes " + m[1].str() + " values; got " + m[3].str();
  const std::string value = value_error_text(message);
  return value.empty() ? message : value;
}

std::string parse_error_line(const CLI::App& app, const std::string& cli11_message,
                             const std::vector<std::string>& words) {
  // CLI11 quotes the user's words whole: each long one cut to an excerpt, so that the line stays a line and
  // the patterns below read a short text.
  std::string message = cli11_message;
  for (const std::string& word : words) {
    if (word.size() <= kMaxQuotedWord) continue;
    const std::string cut = excerpt(word);
    for (size_t at = message.find(word); at != std::string::npos; at = message.find(word, at + cut.size()))
      message.replace(at, word.size(), cut);
  }
  std::vector<std::string> names;
  for (const CLI::Option* o : app.get_options())
    for (const std::string& name : o->get_lnames()) names.push_back("--" + name);
  std::optional<std::string> unknown;  // the first word written as an option that is none of app's
  for (const std::string& word : words) {
    const std::string name = word.substr(0, word.find('='));
    if (name.rfind("--", 0) == 0 && std::find(names.begin(), names.end(), name) == names.end()) {
      unknown = name;
      break;
    }
  }
  const std::string hint = unknown ? did_you_mean(closest_option(*unknown, names)) : "";
  if (unknown) unknown = excerpt(*unknown);
  // CLI11's ExtrasError: "The following argument(s) was (were) not expected: ...", never shown as it is.
  static const std::regex extras("^The following arguments? (?:was|were) not expected: (.*)$");
  std::smatch m;
  if (message.size() <= kMaxParseMessage && std::regex_match(message, m, extras))
    return unknown ? "unknown option " + *unknown + hint : "unexpected argument: " + m[1].str();
  return parse_error_text(message) + hint;
}

CLI::Validator choice_of(const std::string& option, const std::vector<std::string>& names) {
  return CLI::Validator(
      [option, names](std::string& value) {
        read_choice(option, value, names);
        return std::string();
      },
      "{" + joined(names, ",") + "}");
}

}  // namespace fmwork
