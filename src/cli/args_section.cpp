// The ARGS section (args_section.hpp): the FMWORK ARG lines and the args JSON, byte for byte as upstream's
// fmwork.args_show writes them (Python's json.dumps(obj, indent=4) of to_evaluable_strings(args)).
#include "fmwork/cli/args_section.hpp"

#include <algorithm>

#include "fmwork/base/python_text.hpp"
#include "fmwork/cli/option_sets.hpp"
#include "fmwork/log/log_format.hpp"

namespace fmwork {

namespace {

// Upstream's to_evaluable_strings: dicts become objects, strings stay as they are, the rest is repr().
nlohmann::ordered_json to_evaluable(const Value& v) {
  if (v.type != Value::Type::dict) return str(v);
  auto object = nlohmann::ordered_json::object();
  for (const auto& [key, value] : v.entries) object[key] = to_evaluable(value);
  return object;
}

}  // namespace

std::string format_args_section(const CommandLine& command_line) {
  auto root = nlohmann::ordered_json::object();
  for (auto& [name, text] : args_json_fields(command_line.args)) root[name] = std::move(text);
  auto subs = nlohmann::ordered_json::object();
  for (const auto& [set, value] : command_line.subs) {  // std::map: sorted, as upstream sorts subs
    Value sorted = tree_without_secrets(set, value);
    sort_keys_recursively(sorted);
    subs[set] = to_evaluable(sorted);
  }
  root["subs"] = std::move(subs);

  // A secret's option is echoed with kNotShown for its value: upstream's process still sees it was given.
  std::vector<std::string> words;
  for (const auto& w : command_line.arg_words) words.push_back(arg_text_without_secret(w));
  std::sort(words.begin(), words.end());
  std::string out;
  for (const auto& w : words) out += format_line(ArgLine{w}) + "\n";  // the one ARG writer, which escapes controls
  out += "\n";
  out += python_json_dumps(root, BadBytes::surrogateescape);  // sys.argv's decoding
  out += "\n";
  return out;
}

}  // namespace fmwork
