// The command line: fixed options through CLI11, `--SET:key[@] VALUE` sub-options into one tree per set,
// and the ARGS echo (FMWORK ARG lines and the args JSON) exactly as upstream's fmwork.args_show prints it.
#include "fmwork/cli/cli.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <limits>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "fmwork/base/error.hpp"
#include "fmwork/cli/option_sets.hpp"
#include "fmwork/base/python_text.hpp"
#include "fmwork/base/python_literal.hpp"

namespace fmwork {

const std::vector<std::string> kSubOptionSets = {"compile", "model", "torch.call", "torch.set", "platform", "check_outputs"};

namespace {

// The fixed options, in upstream's order, then ours. One table for the parser, the messages and --help.
struct FixedSpec { const char* name; bool flag; bool required; const char* help; };

const FixedSpec kFixed[] = {
    {"platform", false, true, "cpu, cuda, cuda:N, or the name of a device plugin"},
    {"model_class", false, true, "the architecture (BertModel, RobertaModel, AutoModel, ...); labels the RES line"},
    {"model_root", false, false, "folder the model name is relative to"},
    {"model_name", false, true, "the model: a Hugging Face model folder, an AOTInductor package (.pt2) or a TorchScript file (under --model_root)"},
    {"compile", true, false, "compile the model before the sweep (see --compile:KEY)"},
    {"eval", true, false, "put the model in evaluation mode"},
    {"input_sizes", false, true, "comma-separated sequence lengths, e.g. 128,512"},
    {"batch_sizes", false, true, "comma-separated batch sizes, e.g. 1,8"},
    {"reps", false, true, "repetitions per combination (at least 2; the first max(int(0.2*reps),1) are warm-up)"},
    {"seed", false, false, "seed of the random input tokens (ours; fixed by default so runs repeat)"},
    {"save_outputs", false, false,
     "folder: after each combination's last rep, write <input>x<batch>.safetensors with its inputs and outputs (ours)"},
    {"check_outputs", false, false,
     "folder of such files: feed their inputs, compare the outputs, print FMWORK CHECK lines (ours; "
     "--check_outputs:atol@ / rtol@ / cosine@ set the tolerances)"},
    {"isolate", true, false, "run each batch x input combination in a child process that loads the model itself (ours)"},
};

const FixedSpec* find_fixed(std::string_view name) {
  for (const auto& spec : kFixed)
    if (name == spec.name) return &spec;
  return nullptr;
}

std::string fixed_list() {
  std::vector<std::string> names;
  for (const auto& spec : kFixed) names.push_back(std::string("--") + spec.name);
  return fmt::format("{}", fmt::join(names, ", "));
}

std::string sub_shape() {
  return "sub-options look like --SET:key[@] VALUE with SET one of " + fmt::format("{}", fmt::join(kSubOptionSets, ", "));
}

std::vector<int64_t> parse_sizes(const std::string& option, const std::string& text) {
  auto fail = [&]() -> std::vector<int64_t> {
    throw usage_error("--" + option + " expects comma-separated positive integers like 64,128; got '" + text + "'");
  };
  std::vector<int64_t> sizes;
  size_t start = 0;
  for (;;) {
    const size_t comma = text.find(',', start);
    const std::string part = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (part.empty() || part.size() > 18 || part.find_first_not_of("0123456789") != std::string::npos) return fail();
    const int64_t size = std::stoll(part);
    if (size <= 0) return fail();
    sizes.push_back(size);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return sizes;
}

// Python's int() of a command-line word, for --reps: optional sign, digits with single underscores.
std::optional<int64_t> parse_python_int(const std::string& text) {
  size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
  std::string digits;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c >= '0' && c <= '9') digits.push_back(c);
    else if (c == '_' && !digits.empty() && i + 1 < text.size() && text[i + 1] >= '0' && text[i + 1] <= '9') continue;
    else return std::nullopt;
  }
  if (digits.empty() || digits.size() > 18) return std::nullopt;
  const int64_t v = std::stoll(digits);
  return negative ? -v : v;
}

// os.path.join(root, name) for two parts.
std::string path_join(const std::string& root, const std::string& name) {
  if (!name.empty() && name[0] == '/') return name;
  if (root.empty() || root.back() == '/') return root + name;
  return root + "/" + name;
}

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
      if (close == std::string::npos) throw usage_error(word + ": the key has no closing quotation");
      parts.back() += key.substr(i + 1, close - i - 1);
      i = close + 1;
    } else if (c == '"') {
      ++i;
      for (;;) {
        if (i >= key.size()) throw usage_error(word + ": the key has no closing quotation");
        if (key[i] == '"') {
          ++i;
          break;
        }
        if (key[i] == '\\' && i + 1 < key.size() && (key[i + 1] == '"' || key[i + 1] == '\\')) ++i;
        parts.back() += key[i++];
      }
    } else if (c == '\\') {
      if (i + 1 >= key.size()) throw usage_error(word + ": the key ends with a backslash that escapes nothing");
      parts.back() += key[i + 1];
      i += 2;
    } else {
      parts.back() += c;
      ++i;
    }
  }
  return parts;
}

// Sorts dict keys recursively through dict values (dicts inside lists and tuples keep their order, as
// upstream's sort_dict_recursive leaves them).
void sort_recursive(Value& v) {
  if (v.type != Value::Type::dict) return;
  std::sort(v.entries.begin(), v.entries.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& entry : v.entries) sort_recursive(entry.second);
}

std::string display_path(const std::vector<std::string>& path) { return "--" + fmt::format("{}", fmt::join(path, ":")); }

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

// --- the args JSON: Python's json.dumps(obj, indent=4) ---

// Upstream's to_evaluable_strings: dicts become objects, strings stay as they are, the rest is repr().
nlohmann::ordered_json to_evaluable(const Value& v) {
  if (v.type != Value::Type::dict) return str(v);
  auto object = nlohmann::ordered_json::object();
  for (const auto& [key, value] : v.entries) object[key] = to_evaluable(value);
  return object;
}

Value int_list(const std::vector<int64_t>& values) {
  std::vector<Value> items;
  for (int64_t v : values) items.push_back(Value::of_int(v));
  return Value::of_list(std::move(items));
}

// argv sorted out: the fixed options for CLI11, the sub-options for the trees, and the ARG line words.
struct SortedWords {
  std::vector<std::pair<std::string, std::string>> subs;  // (--SET:key[@], VALUE), in the order given
  std::vector<std::string> tokens;                        // fixed options, normalised for CLI11
  std::set<std::string> seen;                             // names of the fixed options given
  std::vector<std::string> arg_words;                     // "--reps 2", in the order given
};

// One fixed option (`word` is argv[i]): given once, a flag without a value, an option with one after '='
// or in the next word. Returns the index of the last word it used.
int take_fixed(const FixedSpec& spec, const std::string& word, const std::optional<std::string>& inline_value,
               int i, int argc, const char* const* argv, SortedWords& out) {
  const std::string option = std::string("--") + spec.name;
  if (!out.seen.insert(spec.name).second) throw usage_error(option + " is given twice; give it once");
  if (spec.flag) {
    if (inline_value) throw usage_error(option + " is a flag and takes no value (got '" + word + "')");
    out.tokens.push_back(option);
    out.arg_words.push_back(option);
    return i;
  }
  std::string value;
  if (inline_value) {
    value = *inline_value;
  } else {
    if (i + 1 >= argc || std::string_view(argv[i + 1] ? argv[i + 1] : "").substr(0, 2) == "--")
      throw usage_error(option + " needs a value (to give one that starts with '--', write " + option + "=VALUE)");
    value = argv[++i];
  }
  // CLI11 takes `--name=value` whatever the value looks like, except an empty one.
  if (value.empty()) {
    out.tokens.push_back(option);
    out.tokens.push_back(value);
  } else {
    out.tokens.push_back(option + "=" + value);
  }
  out.arg_words.push_back(option + " " + value);
  return i;
}

// Sub-options (a `--` word whose name has a ':', with the next word as its value whatever it looks like)
// go aside; fixed options are checked and normalised for CLI11; anything else is refused.
SortedWords sort_words(int argc, const char* const* argv) {
  SortedWords out;
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i] ? argv[i] : "";
    if (word.rfind("--", 0) != 0) {
      throw usage_error("unexpected argument '" + word + "'; options are written --NAME VALUE, flags --NAME, and " +
                        sub_shape());
    }
    const std::string name = word.substr(2);
    const size_t eq = name.find('=');
    const FixedSpec* spec = find_fixed(name);
    std::optional<std::string> inline_value;
    if (!spec && eq != std::string::npos && (spec = find_fixed(name.substr(0, eq))) != nullptr)
      inline_value = name.substr(eq + 1);
    if (spec) {
      i = take_fixed(*spec, word, inline_value, i, argc, argv, out);
      continue;
    }
    if (name.find(':') == std::string::npos)
      throw usage_error("unknown option " + word + "; the fixed options are " + fixed_list() + ", and " + sub_shape());
    if (i + 1 >= argc) throw usage_error(word + " has no value; " + sub_shape());
    const std::string value = argv[i + 1] ? argv[i + 1] : "";
    out.subs.emplace_back(word, value);
    out.arg_words.push_back(word + " " + value);
    ++i;
  }
  return out;
}

// The fixed options as CLI11 read them: values and flags by name.
struct FixedValues {
  std::map<std::string, std::string> values;
  std::map<std::string, bool> flags;
};

FixedValues parse_fixed(const std::vector<std::string>& tokens) {
  FixedValues out;
  CLI::App app{"fmwork embedding benchmark driver", "driver"};
  app.set_help_flag();
  for (const auto& spec : kFixed) {
    const std::string option = std::string("--") + spec.name;
    if (spec.flag) app.add_flag(option, out.flags[spec.name], spec.help);
    else app.add_option(option, out.values[spec.name], spec.help);
  }
  // CLI11's parse(vector) takes the words last first.
  std::vector<std::string> reversed(tokens.rbegin(), tokens.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    throw usage_error(std::string("command line: ") + e.what());
  }
  return out;
}

void check_required(const std::set<std::string>& seen) {
  std::vector<std::string> missing;
  for (const auto& spec : kFixed)
    if (spec.required && seen.count(spec.name) == 0) missing.push_back(std::string("--") + spec.name);
  if (missing.size() == 1) throw usage_error("missing required option " + missing[0]);
  if (!missing.empty()) throw usage_error("missing required options " + fmt::format("{}", fmt::join(missing, ", ")));
}

// The names go into the RES line, whose fields are split on spaces.
void check_names(const FixedArgs& args) {
  if (args.platform.empty()) throw usage_error("--platform is empty; give cpu, cuda, cuda:N or a plugin name");
  if (args.model_name.empty()) throw usage_error("--model_name is empty; give the model's name or path");
  if (args.model_class.empty()) throw usage_error("--model_class is empty; give the model's class, e.g. BertModel");
  for (const auto& [which, v] : {std::pair<const char*, const std::string&>{"model_name", args.model_name},
                                 std::pair<const char*, const std::string&>{"model_class", args.model_class}}) {
    if (v.find_first_of(" \t\n\v\f\r") != std::string::npos)  // what isspace() takes
      throw usage_error(std::string("--") + which + " '" + v +
                        "' contains whitespace, which would break the FMWORK RES line (its fields are split on "
                        "spaces); name it without spaces");
  }
}

int64_t parse_reps(const std::string& text) {
  const std::optional<int64_t> reps = parse_python_int(text);
  if (!reps) throw usage_error("--reps expects an integer (at least 2); got '" + text + "'");
  if (*reps < 2)
    throw usage_error("--reps must be at least 2, got " + std::to_string(*reps) +
                      ": the first max(int(0.2*reps),1) reps are dropped as warm-up, so at least 2 are needed");
  if (*reps > kMaxReps)
    throw usage_error(fmt::format("--reps must be at most {}, got {}: each rep's timestamps are kept in memory", kMaxReps, *reps));
  return *reps;
}

uint64_t parse_seed(const std::string& text) {
  uint64_t seed = 0;
  bool ok = !text.empty() && text.size() <= 20 && text.find_first_not_of("0123456789") == std::string::npos;
  if (ok) {
    try {
      seed = std::stoull(text);
    } catch (const std::exception&) {  // above 2^64 - 1
      ok = false;
    }
  }
  if (!ok) throw usage_error("--seed expects a non-negative integer below 2^64; got '" + text + "'");
  return seed;
}

// Checks and converts the values in the order the messages have always come in.
FixedArgs fixed_args_from(FixedValues& fixed, const std::set<std::string>& seen) {
  std::map<std::string, std::string>& values = fixed.values;
  FixedArgs args;
  args.platform = values["platform"];
  args.model_class = values["model_class"];
  args.model_name = values["model_name"];
  if (seen.count("model_root")) args.model_root = values["model_root"];
  args.compile = fixed.flags["compile"];
  args.eval = fixed.flags["eval"];
  args.isolate = fixed.flags["isolate"];
  check_names(args);
  args.input_sizes = parse_sizes("input_sizes", values["input_sizes"]);
  args.batch_sizes = parse_sizes("batch_sizes", values["batch_sizes"]);
  args.reps = parse_reps(values["reps"]);
  if (seen.count("seed")) {
    args.seed = parse_seed(values["seed"]);
    args.seed_given = true;
  }
  for (auto [name, slot] : {std::pair{"save_outputs", &args.save_outputs}, std::pair{"check_outputs", &args.check_outputs}}) {
    if (!seen.count(name)) continue;
    if (values[name].empty()) throw usage_error(std::string("--") + name + " is empty; give a folder");
    *slot = values[name];
  }
  args.model_path = args.model_root && !args.model_root->empty() ? path_join(*args.model_root, args.model_name)
                                                                 : args.model_name;
  return args;
}

// `@` values may name the fixed arguments, as upstream's eval namespace holds `args`. The resolver refers
// to `args`, which must outlive it.
NameResolver args_resolver(const FixedArgs& args) {
  return [&args](std::string_view name) -> std::optional<Value> {
    if (name.substr(0, 5) != "args.") return std::nullopt;
    const std::string_view field = name.substr(5);
    if (field == "platform") return Value::of_string(args.platform);
    if (field == "model_class") return Value::of_string(args.model_class);
    if (field == "model_name") return Value::of_string(args.model_name);
    if (field == "model_path") return Value::of_string(args.model_path);
    if (field == "model_root") return args.model_root ? Value::of_string(*args.model_root) : Value::none();
    if (field == "compile") return Value::of_bool(args.compile);
    if (field == "eval") return Value::of_bool(args.eval);
    if (field == "isolate") return Value::of_bool(args.isolate);
    if (field == "input_sizes") return int_list(args.input_sizes);
    if (field == "batch_sizes") return int_list(args.batch_sizes);
    if (field == "reps") return Value::of_int(args.reps);
    if (field == "save_outputs") return args.save_outputs ? Value::of_string(*args.save_outputs) : Value::none();
    if (field == "check_outputs") return args.check_outputs ? Value::of_string(*args.check_outputs) : Value::none();
    if (field == "seed") {
      if (!args.seed_given) return Value::none();
      if (args.seed > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return std::nullopt;
      return Value::of_int(static_cast<int64_t>(args.seed));
    }
    return std::nullopt;
  };
}

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
      throw usage_error("unknown sub-option set '" + path[0] + "' in " + word + "; the sets are " +
                        fmt::format("{}", fmt::join(kSubOptionSets, ", ")));
    if (std::any_of(path.begin() + 1, path.end(), [](const std::string& p) { return p.empty(); }))
      throw usage_error(word + " has an empty key; sub-options look like --SET:key[:key...][@] VALUE, e.g. "
                        "--compile:options:max_autotune@ True");
    Value value = typed ? parse_value(raw, word, resolve) : Value::of_string(raw);
    tree.set(path, std::move(value), word + " " + raw);
  }
}

}  // namespace

CommandLine parse_command_line(int argc, const char* const* argv) {
  CommandLine result;
  SortedWords words = sort_words(argc, argv);
  FixedValues fixed = parse_fixed(words.tokens);
  check_required(words.seen);
  result.args = fixed_args_from(fixed, words.seen);
  add_sub_options(words.subs, args_resolver(result.args), result.subs);
  // compile, model, torch.call and torch.set are there even when not given (CommandLine's contract).
  for (size_t i = 0; i < 4; ++i) result.subs.emplace(kSubOptionSets[i], Value::of_dict({}));
  for (auto& [set, value] : result.subs) sort_recursive(value);
  result.arg_words = std::move(words.arg_words);
  std::sort(result.arg_words.begin(), result.arg_words.end());
  return result;
}

std::string format_args_section(const CommandLine& command_line) {
  const FixedArgs& a = command_line.args;
  auto root = nlohmann::ordered_json::object();
  auto add = [&](const char* key, std::string text) { root[key] = std::move(text); };
  add("batch_sizes", repr(int_list(a.batch_sizes)));
  if (a.check_outputs) add("check_outputs", *a.check_outputs);
  add("compile", a.compile ? "True" : "False");
  add("eval", a.eval ? "True" : "False");
  add("input_sizes", repr(int_list(a.input_sizes)));
  if (a.isolate) add("isolate", "True");
  add("model_class", a.model_class);
  add("model_name", a.model_name);
  add("model_path", a.model_path);
  add("model_root", a.model_root ? *a.model_root : "None");
  add("platform", a.platform);
  add("reps", std::to_string(a.reps));
  if (a.save_outputs) add("save_outputs", *a.save_outputs);
  if (a.seed_given) add("seed", std::to_string(a.seed));
  auto subs = nlohmann::ordered_json::object();
  for (const auto& [set, value] : command_line.subs) {  // std::map: sorted, as upstream sorts subs
    Value sorted = value;
    sort_recursive(sorted);
    subs[set] = to_evaluable(sorted);
  }
  root["subs"] = std::move(subs);

  std::vector<std::string> words = command_line.arg_words;
  std::sort(words.begin(), words.end());
  std::string out;
  for (const auto& w : words) out += "FMWORK ARG " + w + "\n";
  out += "\n";
  out += python_json_dumps(root, BadBytes::surrogateescape);  // sys.argv's decoding
  out += "\n";
  return out;
}

namespace {

// The sets whose keys no option_sets table holds: torch.call / torch.set names belong to torch_settings (a
// torch module, out of reach of this torch-free library), platform keys to plugins.
struct UntabledSet {
  const char* set;
  const char* shape;
  const char* summary;
};

const UntabledSet kUntabledSets[] = {
    {"torch.call", "NAME", "call torch.NAME(VALUE) at start-up, e.g. --torch.call:set_grad_enabled@ False"},
    {"torch.set", "PATH", "set torch.PATH = VALUE at start-up, e.g. --torch.set:backends.cudnn.benchmark@ True"},
    {"platform", "KEY", "options handed to a device plugin"},
};

// A help line: the left column padded to `width`, or followed by two spaces when it is wider.
std::string help_line(std::string left, size_t width, const std::string& text) {
  if (left.size() < width) left.resize(width, ' ');
  else left += "  ";
  return left + text + "\n";
}

// `lead` then the words of `text`, in lines of at most `width` characters (a longer word stands alone); the
// lines after the first start with `indent`.
std::string wrapped(const std::string& lead, const std::string& text, size_t width, const std::string& indent) {
  std::string out, line = lead;
  bool fresh = true;  // no word on this line yet
  std::istringstream words(text);
  for (std::string word; words >> word;) {
    if (!fresh && line.size() + 1 + word.size() > width) {
      out += line + "\n";
      line = indent;
      fresh = true;
    }
    line += (fresh ? "" : " ") + word;
    fresh = false;
  }
  return out + line + "\n";
}

// One summary line per sub-option set, in kSubOptionSets' order.
std::string sub_option_summaries() {
  std::string out;
  for (const std::string& set : kSubOptionSets) {
    for (const auto& doc : option_set_docs())
      if (doc.set == set) out += help_line("  --" + set + ":KEY", 22, doc.summary);
    for (const auto& untabled : kUntabledSets)
      if (untabled.set == set) out += help_line("  --" + set + ":" + untabled.shape, 22, untabled.summary);
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
      out += help_line("  " + key.example, 40, text);
    }
  }
  std::string ignored;
  for (const auto& key : ignored_model_keys()) ignored += (ignored.empty() ? "" : ", ") + key.key;
  return out + wrapped("  ", "--model: accepts and ignores, as meaningless for a local folder: " + ignored, 100, "    ");
}

}  // namespace

std::string driver_usage() {
  std::string out =
      "usage: driver --platform P --model_class C [--model_root R] --model_name N [--compile] [--eval]\n"
      "              --input_sizes I[,I...] --batch_sizes B[,B...] --reps N [--seed S]\n"
      "              [--save_outputs DIR] [--check_outputs DIR] [--isolate] [--SET:key[@] VALUE ...]\n"
      "       driver --cache list|report|clear   (compiled packages kept in $FMWORK_CACHE)\n"
      "\n"
      "Benchmarks an embedding model over every batch size x input size, printing FMWORK lines.\n"
      "\n"
      "fixed options:\n";
  for (const auto& spec : kFixed)
    out += help_line(std::string("  --") + spec.name + (spec.flag ? "" : " VALUE"), 24,
                     std::string(spec.help) + (spec.required ? " (required)" : ""));
  out +=
      "\n"
      "sub-options: --SET:key[:key...][@] VALUE\n"
      "  A key ending in '@' takes a Python literal (None, True, False, numbers, 'strings', lists, tuples,\n"
      "  dicts, torch.float16, args.<option>); without '@' the value is a plain string.\n" +
      sub_option_summaries() + "\n" + option_key_lines() +
      "\n"
      "example:\n"
      "  driver --platform cuda --model_root /models --model_name ibm-granite/granite-embedding-125m-english \\\n"
      "         --model_class RobertaModel --input_sizes 512 --batch_sizes 1 --reps 100 \\\n"
      "         --compile:backend inductor --compile:dynamic@ True --compile:mode reduce-overhead\n";
  return out;
}

}  // namespace fmwork
