// Typed option sets built from the sub-option trees: unknown keys and wrong types are refused up front.
#include "fmwork/option_sets.hpp"

#include <algorithm>
#include <functional>

#include "fmwork/error.hpp"
#include "fmwork/python_literal.hpp"

namespace fmwork {

namespace {

using Entries = std::vector<std::pair<std::string, Value>>;

std::string option_name(const std::string& set, const std::string& key) { return "--" + set + ":" + key; }

// "the string 'x'", "the int 5", "None": what was given, for messages.
std::string describe(const Value& v) {
  if (v.type == Value::Type::none) return "None";
  if (v.type == Value::Type::string) return "the string " + repr(v);
  if (v.type == Value::Type::dict && v.entries.empty()) return "an empty dict";
  return "the " + type_name(v.type) + " " + repr(v);
}

// The tree's entries sorted by key (the order upstream applies them in).
Entries sorted_entries(const Value& tree, const std::string& set) {
  if (tree.type != Value::Type::dict)
    throw usage_error("--" + set + ": expected a tree of keys, got " + describe(tree));
  Entries entries = tree.entries;
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return entries;
}

// `more`, when given, is appended to the message (what else the set accepts).
[[noreturn]] void unknown_key(const std::string& set, const std::string& key, std::vector<std::string> known,
                              const std::string& more = "") {
  std::sort(known.begin(), known.end());
  std::string list;
  for (size_t i = 0; i < known.size(); ++i) list += (i ? ", " : "") + known[i];
  throw usage_error("unknown option " + option_name(set, key) + "; known --" + set + ": keys are " + list + more);
}

// A wrong type. When a plain string was given that, read as with '@', would have been accepted, the
// message says to add the '@'.
[[noreturn]] void wrong_type(const std::string& set, const std::string& key, const std::string& expected,
                             const Value& got, const std::function<bool(const Value&)>& accepts) {
  std::string message = option_name(set, key) + " expects " + expected + "; got " + describe(got);
  if (got.type == Value::Type::string) {
    try {
      const Value typed = parse_value(got.text, option_name(set, key) + "@");
      if (accepts(typed))
        message += " \u2014 add '@' to the key to pass a typed value: " + option_name(set, key) + "@ " + got.text;
    } catch (const Error&) {
    }
  }
  throw usage_error(message);
}

bool is_bool(const Value& v) { return v.type == Value::Type::boolean; }
bool is_int(const Value& v) { return v.type == Value::Type::integer; }

bool get_bool(const std::string& set, const std::string& key, const Value& v) {
  if (!is_bool(v)) wrong_type(set, key, "a bool (True or False)", v, is_bool);
  return v.boolean;
}

int64_t get_int(const std::string& set, const std::string& key, const Value& v) {
  if (!is_int(v)) wrong_type(set, key, "an int", v, is_int);
  return v.integer;
}

// A number: an int or a float, as Python would accept either for a tolerance.
double get_number(const std::string& set, const std::string& key, const Value& v) {
  auto is_number = [](const Value& x) { return x.type == Value::Type::integer || x.type == Value::Type::floating; };
  if (!is_number(v)) wrong_type(set, key, "a number (an int or a float)", v, is_number);
  return v.type == Value::Type::integer ? static_cast<double>(v.integer) : v.floating;
}

std::string get_string(const std::string& set, const std::string& key, const Value& v) {
  if (v.type != Value::Type::string)
    wrong_type(set, key, "a string", v, [](const Value&) { return false; });
  return v.text;
}

// The model dtype from a dtype value (torch.float16) or a string ("float16", "torch.float16", "auto").
std::optional<std::string> model_dtype(const Value& v) {
  std::optional<std::string> name;
  if (v.type == Value::Type::dtype) name = v.text;
  if (v.type == Value::Type::string) {
    if (v.text == "auto") return std::string("auto");
    const std::string_view text = v.text;
    name = canonical_dtype_name(text.substr(0, 6) == "torch." ? text.substr(6) : text);
  }
  if (name == "float32" || name == "float16" || name == "bfloat16") return name;  // what the encoders run
  return std::nullopt;
}

}  // namespace

CompileOptions compile_options_from(const Value& tree) {
  const std::string set = "compile";
  CompileOptions out;
  out.raw = tree;
  for (const auto& [key, v] : sorted_entries(tree, set)) {
    if (key == "backend") {
      out.backend = get_string(set, key, v);
    } else if (key == "mode") {
      out.mode = get_string(set, key, v);
    } else if (key == "dynamic") {
      if (v.type == Value::Type::none) out.dynamic.reset();
      else if (is_bool(v)) out.dynamic = v.boolean;
      else wrong_type(set, key, "a bool (True or False) or None", v,
                      [](const Value& t) { return is_bool(t) || t.type == Value::Type::none; });
    } else if (key == "fullgraph") {
      out.fullgraph = get_bool(set, key, v);
    } else if (key == "disable") {
      out.disable = get_bool(set, key, v);
    } else if (key == "options") {
      if (v.type != Value::Type::dict)
        wrong_type(set, key, "a dict (--compile:options:KEY VALUE, or a dict given with '@')", v,
                   [](const Value& t) { return t.type == Value::Type::dict; });
      out.options = v;
    } else {
      unknown_key(set, key, {"backend", "mode", "dynamic", "fullgraph", "disable", "options"});
    }
  }
  return out;
}

namespace {

// from_pretrained keywords that change nothing for a local folder run by this driver, with why. Keywords
// that would change the numbers or the weights (variant, subfolder, device_map, output_attentions,
// ignore_mismatched_sizes, ...) are not here: they stay refused.
const std::pair<const char*, const char*> kIgnoredModelKeys[] = {
    {"revision", "it picks a Hub revision; a local folder is one revision"},
    {"trust_remote_code", "it allows a model's own Python code; the native encoder and TorchScript run none"},
    {"local_files_only", "the folder is local already; nothing is downloaded"},
    {"force_download", "nothing is downloaded"},
    {"resume_download", "nothing is downloaded"},
    {"cache_dir", "no Hub cache is used; the folder is read in place"},
    {"proxies", "no network is used"},
    {"token", "no Hub access is made"},
    {"use_auth_token", "no Hub access is made"},
    {"low_cpu_mem_usage", "the native loader maps the weights without a copy whatever it says"},
    {"use_safetensors", "the native loader reads safetensors only"},
    {"_fast_init", "weights are read, never initialised first"},
};

const char* ignored_model_key(const std::string& key) {
  for (const auto& [name, why] : kIgnoredModelKeys)
    if (key == name) return why;
  return nullptr;
}

}  // namespace

ModelOptions model_options_from(const Value& tree) {
  const std::string set = "model";
  ModelOptions out;
  std::optional<std::string> dtype_key;
  for (const auto& [key, v] : sorted_entries(tree, set)) {
    if (key == "torch_dtype" || key == "dtype") {
      if (dtype_key)
        throw usage_error("--model:dtype and --model:torch_dtype are both given; give one of them");
      dtype_key = key;
      out.dtype = model_dtype(v);
      if (!out.dtype)
        wrong_type(set, key,
                   "torch.float32, torch.float16, torch.bfloat16, or one of the strings float32, float16, bfloat16, "
                   "auto",
                   v, [](const Value& t) { return model_dtype(t).has_value(); });
    } else if (key == "attn_implementation") {
      const std::string impl = get_string(set, key, v);
      if (impl != "eager" && impl != "sdpa")
        throw usage_error(option_name(set, key) + " must be eager or sdpa; got '" + impl + "'");
      out.attn_implementation = impl;
    } else if (key == "add_pooling_layer") {
      out.add_pooling_layer = get_bool(set, key, v);
    } else if (key == "vocab_size") {
      const int64_t size = get_int(set, key, v);
      if (size <= 0) throw usage_error(option_name(set, key) + " must be positive; got " + std::to_string(size));
      out.vocab_size = size;
    } else if (key == "random_weights") {
      out.random_weights = get_bool(set, key, v);
    } else if (key == "random_weights_seed") {
      out.random_weights_seed = get_int(set, key, v);
    } else if (key == "packed_gemm") {
      out.packed_gemm = get_bool(set, key, v);
    } else if (const char* why = ignored_model_key(key)) {
      const bool secret = key == "token" || key == "use_auth_token" || key == "proxies";
      out.ignored.push_back(option_name(set, key) + " " + (secret ? std::string("<not shown>") : repr(v)) +
                            " ignored: " + why);
    } else {
      std::vector<std::string> known = {"torch_dtype", "dtype", "attn_implementation", "add_pooling_layer",
                                        "vocab_size", "random_weights", "random_weights_seed", "packed_gemm"};
      std::string accepted;
      for (const auto& [name, why] : kIgnoredModelKeys) accepted += std::string(accepted.empty() ? "" : ", ") + name;
      unknown_key(set, key, known, " (accepted and ignored, as meaningless for a local folder: " + accepted + ")");
    }
  }
  return out;
}

namespace {

// One value per name, no nesting: torch.call, torch.set and platform.
Entries flat_entries(const Value& tree, const std::string& set, const std::string& shape) {
  Entries entries = sorted_entries(tree, set);
  for (const auto& [key, v] : entries) {
    if (v.type == Value::Type::dict) {
      std::string nested;
      if (!v.entries.empty()) nested = " (" + option_name(set, key) + ":" + v.entries.front().first + ")";
      throw usage_error(option_name(set, key) + " cannot hold nested keys or a dict" + nested + "; write " + shape);
    }
  }
  return entries;
}

}  // namespace

TorchCalls torch_calls_from(const Value& tree) {
  return TorchCalls{flat_entries(tree, "torch.call", "--torch.call:NAME VALUE")};
}

TorchSets torch_sets_from(const Value& tree) {
  return TorchSets{flat_entries(tree, "torch.set", "--torch.set:PATH VALUE (PATH with dots, like backends.cudnn.benchmark)")};
}

PlatformOptions platform_options_from(const Value& tree) {
  PlatformOptions out;
  for (const auto& [key, v] : flat_entries(tree, "platform", "--platform:KEY VALUE"))
    out.entries.emplace_back(key, str(v));
  return out;
}

CheckOptions check_options_from(const Value& tree) {
  const std::string set = "check_outputs";
  CheckOptions out;
  for (const auto& [key, v] : flat_entries(tree, set, "--check_outputs:KEY@ NUMBER")) {
    std::optional<double>* slot = key == "atol" ? &out.atol : key == "rtol" ? &out.rtol : key == "cosine" ? &out.cosine : nullptr;
    if (!slot) unknown_key(set, key, {"atol", "rtol", "cosine"});
    const double x = get_number(set, key, v);
    if (!(x >= 0) || (key == "cosine" && x > 1))
      throw usage_error(option_name(set, key) + " must be " + (key == "cosine" ? "in [0, 1]" : "a number >= 0") +
                        "; got " + repr(v));
    *slot = x;
  }
  return out;
}

}  // namespace fmwork
