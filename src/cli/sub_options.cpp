// The sub-option trees (sub_options.hpp): keys split as upstream's shlex splits them, one tree per set,
// and the conflicts between options that set the same node.
#include "fmwork/cli/sub_options.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "fmwork/base/error.hpp"
#include "fmwork/cli/option_sets.hpp"

namespace fmwork {

const std::vector<std::string> kSubOptionSets = {"compile", "model", "torch.call", "torch.set", "platform", "check_outputs"};

std::string sub_option_shape() {
  return "sub-options look like --SET:key[@] VALUE with SET one of " + fmt::format("{}", fmt::join(kSubOptionSets, ", "));
}

void sort_keys_recursively(Value& value) {
  if (value.type != Value::Type::dict) return;
  std::sort(value.entries.begin(), value.entries.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& entry : value.entries) sort_keys_recursively(entry.second);
}

namespace {

// Splits the key of a sub-option (without `--` and `@`) on ':' as upstream's shlex does: quoted parts keep
// their ':' and lose their quotes, a backslash outside quotes escapes the next character. Unlike shlex,
// empty parts are kept (and refused by the caller).
std::vector<std::string> split_key(const std::string& word, const std::string& key) {
  std::vector<std::string> parts(1);
  size_t i = 0;
  while (i < key.size()) {
    const char c = key[i];
    if (c == ':') {
      parts.emplace_back();
      ++i;
    } else if (c == '\'') {
      const size_t close = key.find('\'', i + 1);
      if (close == std::string::npos) throw usage_error(excerpt(word) + ": the key has no closing quotation");
      parts.back() += key.substr(i + 1, close - i - 1);
      i = close + 1;
    } else if (c == '"') {
      ++i;
      for (;;) {
        if (i >= key.size()) throw usage_error(excerpt(word) + ": the key has no closing quotation");
        if (key[i] == '"') {
          ++i;
          break;
        }
        if (key[i] == '\\' && i + 1 < key.size() && (key[i + 1] == '"' || key[i + 1] == '\\')) ++i;
        parts.back() += key[i++];
      }
    } else if (c == '\\') {
      if (i + 1 >= key.size()) throw usage_error(excerpt(word) + ": the key ends with a backslash that escapes nothing");
      parts.back() += key[i + 1];
      i += 2;
    } else {
      parts.back() += c;
      ++i;
    }
  }
  return parts;
}

std::string display_path(const std::vector<std::string>& path) { return excerpt("--" + fmt::format("{}", fmt::join(path, ":"))); }

// Builds the sub-option trees, remembering which option created each node for conflict messages.
class SubTree {
 public:
  explicit SubTree(std::map<std::string, Value>& subs) : subs_(subs) {}

  void set(const std::vector<std::string>& path, Value value, const std::string& arg_word) {
    Value* node = &subs_[path[0]];
    if (node->type != Value::Type::dict) *node = Value::of_dict({});
    for (size_t depth = 1; depth < path.size(); ++depth) {
      const std::vector<std::string> here(path.begin(), path.begin() + static_cast<long>(depth) + 1);
      const bool last = depth + 1 == path.size();
      auto it = std::find_if(node->entries.begin(), node->entries.end(),
                             [&](const auto& e) { return e.first == path[depth]; });
      if (it == node->entries.end()) {
        creators_.emplace(here, arg_word);
        if (last) {
          node->entries.emplace_back(path[depth], std::move(value));
          return;
        }
        intermediates_.insert(here);
        node->entries.emplace_back(path[depth], Value::of_dict({}));
        node = &node->entries.back().second;
        continue;
      }
      const std::string earlier = creator_of(here);
      if (last) {
        if (intermediates_.count(here) != 0)
          throw usage_error(arg_word + " conflicts with " + earlier + ": " + display_path(here) +
                            " already holds keys, so it cannot also hold a value");
        throw usage_error(arg_word + " conflicts with " + earlier + ": " + display_path(here) + " is set twice");
      }
      if (it->second.type != Value::Type::dict)
        throw usage_error(arg_word + " conflicts with " + earlier + ": " + display_path(here) +
                          " already holds a value, so it cannot also hold keys");
      node = &it->second;
    }
  }

 private:
  std::map<std::string, Value>& subs_;
  std::map<std::vector<std::string>, std::string> creators_;
  std::set<std::vector<std::string>> intermediates_;  // dicts made by nested keys, not given with `@`

  // The option that made this node, or the nearest enclosing one (keys inside a dict given with `@`).
  std::string creator_of(std::vector<std::string> path) const {
    while (!path.empty()) {
      auto it = creators_.find(path);
      if (it != creators_.end()) return it->second;
      path.pop_back();
    }
    return "an earlier option";
  }
};

// The sub-options into one tree per set, in the order given (conflict messages name the earlier option).
void add_sub_options(const std::vector<std::pair<std::string, std::string>>& sub_words, const NameResolver& resolve,
                     std::map<std::string, Value>& subs) {
  SubTree tree(subs);
  for (const auto& [word, raw] : sub_words) {
    std::string key = word.substr(2);
    const bool typed = !key.empty() && key.back() == '@';
    if (typed) key.pop_back();
    std::vector<std::string> path = split_key(word, key);
    if (path.size() > kMaxSubOptionKeys + 1)  // the tree, and every walk of it, would be as deep
      throw usage_error(excerpt(word) + " has " + std::to_string(path.size() - 1) + " keys after the set; a sub-option "
                        "nests at most " + std::to_string(kMaxSubOptionKeys) + " keys deep (--SET:key[:key...])");
    if (std::find(kSubOptionSets.begin(), kSubOptionSets.end(), path[0]) == kSubOptionSets.end())
      throw usage_error("unknown sub-option set '" + excerpt(path[0]) + "' in " + excerpt(word) + "; the sets are " +
                        fmt::format("{}", fmt::join(kSubOptionSets, ", ")));
    if (std::any_of(path.begin() + 1, path.end(), [](const std::string& p) { return p.empty(); }))
      throw usage_error(excerpt(word) + " has an empty key; sub-options look like --SET:key[:key...][@] VALUE, e.g. "
                        "--compile:options:max_autotune@ True");
    // A secret's value (--model:token) is in no message: a conflict names the option with kNotShown, and a
    // value that is no Python literal is said to be one without quoting it.
    const bool secret = is_secret_option(word);
    Value value = Value::of_string(raw);
    if (typed && secret) {
      try {
        value = parse_value(raw, word, resolve);
      } catch (const Error&) {
        throw usage_error(word + ": its value (not shown: a secret) is no Python literal; quote a string: " + word +
                          " 'VALUE', or give it without '@'");
      }
    } else if (typed) {
      value = parse_value(raw, word, resolve);
    }
    tree.set(path, std::move(value), excerpt(word) + " " + (secret ? std::string(kNotShown) : excerpt(raw)));
  }
}

}  // namespace

bool is_secret_option(const std::string& word) {
  if (word.rfind("--", 0) != 0 || word.find(':') == std::string::npos) return false;
  std::string key = word.substr(2);
  if (!key.empty() && key.back() == '@') key.pop_back();
  try {
    const std::vector<std::string> path = split_key(word, key);
    return path.size() > 1 && is_secret_key(path[0], path[1]);
  } catch (const Error&) {
    return false;  // a word the parser refuses, naming the word alone
  }
}

std::string arg_text_without_secret(const std::string& text) {
  // The word ends at a space, but a quoted key may hold one (--model:token:"a b"): each space is tried.
  for (size_t space = text.find(' '); space != std::string::npos; space = text.find(' ', space + 1))
    if (is_secret_option(text.substr(0, space))) return text.substr(0, space + 1) + kNotShown;
  return text;
}

std::vector<std::string> argv_without_secrets(std::vector<std::string> argv) {
  for (size_t i = 0; i + 1 < argv.size(); ++i) {
    if (!is_secret_option(argv[i])) continue;
    argv[i + 1] = argv[i].back() == '@' ? "'" + std::string(kNotShown) + "'" : std::string(kNotShown);
    ++i;
  }
  return argv;
}

std::map<std::string, Value> sub_option_trees(const std::vector<std::pair<std::string, std::string>>& words,
                                              const NameResolver& resolve) {
  std::map<std::string, Value> trees;
  add_sub_options(words, resolve, trees);
  for (size_t i = 0; i < 4; ++i) trees.emplace(kSubOptionSets[i], Value::of_dict({}));  // compile ... torch.set
  for (auto& [set, value] : trees) sort_keys_recursively(value);
  return trees;
}

}  // namespace fmwork
