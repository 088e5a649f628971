// Typed option sets built from the sub-option trees: unknown keys and wrong types are refused up front.
// over 500 lines: every set's table (the --torch.call: and --torch.set: names and their value checks included)
// beside the builders that read them, one concern: what a sub-option may be.
#include "fmwork/cli/option_sets.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <string_view>
#include <thread>

#include <fmt/format.h>

#include "fmwork/base/error.hpp"
#include "fmwork/base/option_values.hpp"
#include "fmwork/base/python_literal.hpp"
#include "fmwork/base/text_format.hpp"
#include "fmwork/cli/model_keys.hpp"
#include "fmwork/hf/config.hpp"

namespace fmwork {

namespace {

using Entries = std::vector<std::pair<std::string, Value>>;

// The key is the user's (an unknown one may be any length): an excerpt of it.
std::string option_name(const std::string& set, const std::string& key) { return "--" + set + ":" + excerpt(key); }

// "the string 'x'", "the int 5", "None": what was given, for messages.
std::string describe(const Value& v) {
  if (v.type == Value::Type::none) return "None";
  if (v.type == Value::Type::string) return "the string " + excerpt(repr(v));
  if (v.type == Value::Type::dict && v.entries.empty()) return "an empty dict";
  return "the " + type_name(v.type) + " " + excerpt(repr(v));
}

// The tree's entries sorted by key (the order upstream applies them in).
Entries sorted_entries(const Value& tree, const std::string& set) {
  if (tree.type != Value::Type::dict)
    throw usage_error("--" + set + ": expected a tree of keys, got " + describe(tree));
  Entries entries = tree.entries;
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return entries;
}

// `more`, when given, is appended to the message (what else the set accepts); `also_known` are the keys it
// names, offered with `known` as the key meant.
[[noreturn]] void unknown_key(const std::string& set, const std::string& key, std::vector<std::string> known,
                              const std::string& more = "", const std::vector<std::string>& also_known = {}) {
  std::sort(known.begin(), known.end());
  std::vector<std::string> keys = known;  // the bare keys: "--model:" would make every key look close
  keys.insert(keys.end(), also_known.begin(), also_known.end());
  const std::optional<std::string> meant = closest_option(key, keys);
  throw usage_error("unknown option " + option_name(set, key) +
                    did_you_mean(meant ? std::optional<std::string>(option_name(set, *meant)) : std::nullopt) +
                    "; known --" + set + ": keys are " + joined(known) + more);
}

// A wrong type. When a plain string was given that, read as with '@', would have been accepted, the
// message says to add the '@'.
// `suggest`, when given, names the value meant ("bf16" -> bfloat16), for a "did you mean" at the end.
[[noreturn]] void wrong_type(const std::string& set, const std::string& key, const std::string& expected,
                             const Value& got, const std::function<bool(const Value&)>& accepts,
                             std::optional<std::string> (*suggest)(const Value&)) {
  std::string message = option_name(set, key) + " expects " + expected + "; got " + describe(got);
  if (suggest) message += did_you_mean(suggest(got));
  if (got.type == Value::Type::string) {
    try {
      const Value typed = parse_value(got.text, option_name(set, key) + "@");
      if (accepts(typed))
        message += " \u2014 add '@' to the key to pass a typed value: " + option_name(set, key) + "@ " + excerpt(got.text);
    } catch (const Error&) {
    }
  }
  throw usage_error(message);
}

bool is_bool(const Value& v) { return v.type == Value::Type::boolean; }
bool is_int(const Value& v) { return v.type == Value::Type::integer; }
bool is_number(const Value& v) { return v.type == Value::Type::integer || v.type == Value::Type::floating; }
bool is_string(const Value& v) { return v.type == Value::Type::string; }
bool is_dict(const Value& v) { return v.type == Value::Type::dict; }
bool is_bool_or_none(const Value& v) { return is_bool(v) || v.type == Value::Type::none; }

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

bool is_model_dtype(const Value& v) { return model_dtype(v).has_value(); }

// The short names of the model dtypes that other tools take (bf16, fp16, ...), for "did you mean": the
// option keeps torch's spellings, as upstream's from_pretrained does.
const std::pair<const char*, const char*> kDtypeShorthands[] = {
    {"bf16", "bfloat16"}, {"fp16", "float16"}, {"f16", "float16"}, {"fp32", "float32"}, {"f32", "float32"}};

// The model dtype a string that is none meant: a shorthand's, else the closest spelling.
std::optional<std::string> meant_model_dtype(const Value& v) {
  if (v.type != Value::Type::string) return std::nullopt;
  std::string text = v.text;
  if (text.rfind("torch.", 0) == 0) text = text.substr(6);
  for (const auto& [shorthand, dtype] : kDtypeShorthands)
    if (text == shorthand) return std::string(dtype);
  return closest_option(text, {"float32", "float16", "bfloat16", "auto"});
}

// A value type a key takes: how messages name it, and the test. The same test decides whether a plain
// string, read with '@', would have passed (the hint of wrong_type).
struct Kind {
  const char* expected;
  bool (*accepts)(const Value&);
  std::optional<std::string> (*suggest)(const Value&) = nullptr;  // the value meant, for a refused one
};

const Kind kString{"a string", is_string};
const Kind kBool{"a bool (True or False)", is_bool};
const Kind kBoolOrNone{"a bool (True or False) or None", is_bool_or_none};
const Kind kInt{"an int", is_int};
const Kind kNumber{"a number (an int or a float)", is_number};  // a tolerance: Python takes either
const Kind kCompileDict{"a dict (--compile:options:KEY VALUE, or a dict given with '@')", is_dict};
// A key the set accepts with any value and ignores: a from_pretrained keyword that changes nothing here.
const Kind kIgnored{"any value (ignored)", [](const Value&) { return true; }};
const Kind kModelDtype{
    "torch.float32, torch.float16, torch.bfloat16, or one of the strings float32, float16, bfloat16, auto",
    is_model_dtype, meant_model_dtype};

// `value`, or the value its text reads as where it is a plain string and `kind` takes that value instead.
Value as_typed(const Value& value, const Kind& kind, const std::string& option) {
  if (value.type != Value::Type::string || kind.accepts(value)) return value;
  try {
    Value parsed = parse_value(value.text, option);
    if (kind.accepts(parsed)) return parsed;
  } catch (const Error&) {
  }
  return value;
}

// One key of a set's table. `store` runs once the kind accepted the value: it checks what the kind cannot
// (ranges, choices), naming the option as typed, and writes the struct.
template <typename Options>
struct KeySpec {
  const char* key;
  const char* alias;    // another spelling of the same key, or nullptr
  const Kind* kind;
  const char* example;  // what follows "--SET:KEY" in an option it accepts: "@ True", " bfloat16", ":k@ 1"
  const char* summary;  // the key as the set's one-line --help summary spells it; nullptr: left to "..."
  const char* help;
  void (*store)(Options&, const std::string& option, const Value&);
  // The model files that take the key (--model:'s rows; a bit per ModelFile), and whether it was given so:
  // model_key_not_taken reads them. nullptr: every file takes it.
  bool (*given)(const Options&) = nullptr;
  unsigned files = ~0u;
  // Its value is written nowhere (is_secret_key). Only an ignored row (ignored_key) may be: a row that stores
  // its value would hand it to code that writes it, so doc_of refuses the mark anywhere else.
  bool secret = false;

  bool ignored() const { return kind == &kIgnored; }
};

template <typename Options>
struct SetTable {
  const char* set;
  const char* purpose;  // the --help summary: purpose, the keys it names, then note
  const char* note;
  std::vector<KeySpec<Options>> keys;
  const char* shape = "KEY";  // what stands for a key in --help: "NAME" in "--torch.call:NAME"
  // A plain value that reads as a value the key's kind accepts is taken as typed (the torch sets: upstream
  // pastes the text into Python source, so `--torch.call:set_grad_enabled False` works there as with '@').
  bool typed_text = false;
};

// The keys (and aliases) of the rows that set something, or (`ignored`) of the rows that ignore their value.
template <typename Options>
std::vector<std::string> known_keys(const SetTable<Options>& table, bool ignored = false) {
  std::vector<std::string> names;
  for (const auto& spec : table.keys) {
    if (spec.ignored() != ignored) continue;
    names.emplace_back(spec.key);
    if (spec.alias) names.emplace_back(spec.alias);
  }
  return names;
}

template <typename Options>
const KeySpec<Options>* find_spec(const SetTable<Options>& table, const std::string& key) {
  for (const auto& spec : table.keys)
    if (key == spec.key || (spec.alias && key == spec.alias)) return &spec;
  return nullptr;
}

// Applies the table to the entries (sorted by key), so errors come in the order upstream meets the keys.
// Returns a line for each ignored key given ("--model:revision 'main' ignored: <why>"; a secret's value
// kNotShown), in the entries' order, for MODEL. The unknown-key message offers the closest of the table's keys,
// the ignored ones included, as the key meant, and lists the ignored ones after `ignored_as` when there are.
template <typename Options>
std::vector<std::string> apply_table(const SetTable<Options>& table, const Entries& entries, Options& out,
                                     const std::string& ignored_as = "") {
  const std::string set = table.set;
  std::vector<std::pair<const KeySpec<Options>*, std::string>> given;  // spec, the spelling that set it
  std::vector<std::string> ignored_lines;
  for (const auto& [key, given_value] : entries) {
    const KeySpec<Options>* spec = find_spec(table, key);
    if (!spec) {
      const std::vector<std::string> ignored = known_keys(table, true);
      unknown_key(set, key, known_keys(table), ignored.empty() ? "" : " (" + ignored_as + ": " + joined(ignored) + ")",
                  ignored);
    }
    for (const auto& [earlier, spelling] : given)
      if (earlier == spec)
        throw usage_error(option_name(set, spelling) + " and " + option_name(set, key) +
                          " are both given; give one of them");
    given.emplace_back(spec, key);
    const Value v = table.typed_text ? as_typed(given_value, *spec->kind, option_name(set, key)) : given_value;
    if (!spec->kind->accepts(v)) wrong_type(set, key, spec->kind->expected, v, spec->kind->accepts, spec->kind->suggest);
    if (spec->ignored())
      ignored_lines.push_back(option_name(set, key) + " " + (spec->secret ? std::string(kNotShown) : excerpt(repr(v), 200)) +
                              " ignored: " + spec->help);
    else
      spec->store(out, option_name(set, key), v);
  }
  return ignored_lines;
}

template <typename Options>
OptionSetDoc doc_of(const SetTable<Options>& table) {
  OptionSetDoc doc{table.set, table.purpose, {}, {}, table.shape};
  std::string named;
  bool left_out = false;
  for (const auto& spec : table.keys) {
    if (spec.secret && !spec.ignored())
      throw runtime_error(option_name(table.set, spec.key) + ": a secret key must be an ignored row (ignored_key)");
    std::vector<std::string> aliases;
    if (spec.alias) aliases.emplace_back(spec.alias);
    (spec.ignored() ? doc.ignored : doc.keys)
        .push_back({spec.key, aliases, spec.kind->expected, option_name(table.set, spec.key) + spec.example, spec.help,
                    spec.secret});
    if (spec.ignored()) continue;  // the summary names what the set does
    if (spec.summary) named += (named.empty() ? "" : ", ") + std::string(spec.summary);
    left_out = left_out || !spec.summary;
  }
  if (!named.empty()) doc.summary += ": " + named + (left_out ? ", ..." : "");
  doc.summary += table.note;
  return doc;
}

const SetTable<CompileOptions>& compile_table() {
  using O = CompileOptions;
  static const SetTable<O> table{
      "compile", "torch.compile options", "",
      {{"backend", nullptr, &kString, " torchscript", "backend",
        "the compiler: inductor (an AOTInductor package), openvino (OpenVINO IR run by its C++ runtime; cpu "
        "only), torchscript (freeze + optimize_for_inference), cudagraphs (CUDA graphs around the model as "
        "loaded; cuda only) or a platform's own",
        [](O& o, const std::string&, const Value& v) { o.backend = v.text; }},
       {"mode", nullptr, &kString, " default", "mode",
        "torch.compile's mode: default, max-autotune, max-autotune-no-cudagraphs, or reduce-overhead (CUDA "
        "graphs around the compiled model; cuda only)",
        [](O& o, const std::string& option, const Value& v) {
          // torch.compile knows these four and raises for any other; refused here, before anything loads,
          // instead of per combination in the exporter's argparse words.
          o.mode = read_choice(option, v.text, {"default", "max-autotune", "max-autotune-no-cudagraphs", "reduce-overhead"});
        }},
       {"dynamic", nullptr, &kBoolOrNone, "@ None", "dynamic", "True, False or None; handed to plugin compilers",
        [](O& o, const std::string&, const Value& v) {
          o.dynamic = is_bool(v) ? std::optional<bool>(v.boolean) : std::nullopt;
        }},
       {"fullgraph", nullptr, &kBool, "@ False", "fullgraph", "True or False; handed to plugin compilers",
        [](O& o, const std::string&, const Value& v) { o.fullgraph = v.boolean; }},
       {"disable", nullptr, &kBool, "@ False", "disable", "True or False; handed to plugin compilers",
        [](O& o, const std::string&, const Value& v) { o.disable = v.boolean; }},
       {"options", nullptr, &kCompileDict, ":max_autotune@ True", "options:KEY",
        "free-form keys (--compile:options:KEY VALUE): Inductor's options, OpenVINO's CPU properties "
        "(docs/runtimes.md), or a plugin compiler's",
        [](O& o, const std::string&, const Value& v) { o.options = v; }}}};
  return table;
}

}  // namespace

CompileOptions compile_options_from(const Value& tree) {
  CompileOptions out;
  out.raw = tree;
  apply_table(compile_table(), sorted_entries(tree, compile_table().set), out);
  return out;
}

namespace {

constexpr unsigned file_bit(ModelFile file) { return 1u << static_cast<unsigned>(file); }
// The native encoders' own keys; a folder's (either way it runs); and a TorchScript file's.
constexpr unsigned kNative = file_bit(ModelFile::native_folder);
constexpr unsigned kFolders = kNative | file_bit(ModelFile::transformers_class);
constexpr unsigned kTorchScript = file_bit(ModelFile::torchscript);

// A from_pretrained keyword that changes nothing for a local folder run by this driver: a row of --model:'s table
// that takes any value and stores nothing, `why` as its help (MODEL names it with why), `secret` when its value
// is a credential or a proxy address. Keywords that would change the numbers or the weights (variant,
// subfolder, device_map, output_attentions, ignore_mismatched_sizes, ...) have no row: they stay refused.
KeySpec<ModelOptions> ignored_key(const char* key, const char* why, bool secret = false) {
  return {key, nullptr, &kIgnored, "@ None", nullptr, why, nullptr, nullptr, ~0u, secret};
}

// Model tables are in functions: a static of another file may ask for them before this file's statics are made.
const SetTable<ModelOptions>& model_table() {
  using O = ModelOptions;
  static const SetTable<O> table{
      "model", "model loading", "",
      {{"torch_dtype", "dtype", &kModelDtype, " bfloat16", "torch_dtype",
        "the weights' dtype: float32, float16, bfloat16, or auto (config.json's)",
        [](O& o, const std::string&, const Value& v) { o.dtype = model_dtype(v); },
        [](const O& o) { return o.dtype && *o.dtype != "auto"; }, kFolders | kTorchScript},
       {"attn_implementation", nullptr, &kString, " sdpa", "attn_implementation", "eager or sdpa",
        [](O& o, const std::string& option, const Value& v) {
          o.attn_implementation = read_choice(option, v.text, {"eager", "sdpa"});
        },
        [](const O& o) { return o.attn_implementation.has_value(); }, kFolders},
       {"add_pooling_layer", nullptr, &kBool, "@ False", "add_pooling_layer", "whether the model has its pooler",
        [](O& o, const std::string&, const Value& v) { o.add_pooling_layer = v.boolean; },
        [](const O& o) { return o.add_pooling_layer.has_value(); }, kFolders},
       {"vocab_size", nullptr, &kInt, "@ 30522", "vocab_size",
        "the vocabulary of a TorchScript file without a config.json beside it",
        [](O& o, const std::string& option, const Value& v) {
          o.vocab_size = integer_within(option, v.integer, 1, hf::kMaxVocabSize);
        },
        [](const O& o) { return o.vocab_size.has_value(); }, ~file_bit(ModelFile::transformers_class)},
       {"random_weights", nullptr, &kBool, "@ True", nullptr,
        "build the weights at random when the folder has a config.json only (opt-in)",
        [](O& o, const std::string&, const Value& v) { o.random_weights = v.boolean; },
        [](const O& o) { return o.random_weights; }, kNative},
       {"random_weights_seed", nullptr, &kInt, "@ 7", nullptr, "the seed of those random weights",
        [](O& o, const std::string&, const Value& v) { o.random_weights_seed = v.integer; }},
       {"packed_gemm", nullptr, &kBool, "@ False", nullptr, "MKL packed GEMM for float32 on the CPU (default True with AVX-512, False without: slower there)",
        [](O& o, const std::string&, const Value& v) { o.packed_gemm = v.boolean; },
        [](const O& o) { return o.packed_gemm.has_value(); }, kNative},
       {"gelu_epilogue", nullptr, &kBool, "@ True", nullptr,
        "the BERT family's feed-forward bias and GELU in its first GEMM (at::_addmm_activation; on CUDA "
        "cuBLASLt's tanh GELU, judged by --check_outputs; default False)",
        [](O& o, const std::string&, const Value& v) { o.gelu_epilogue = v.boolean; },
        [](const O& o) { return o.gelu_epilogue.has_value(); }, kNative},
       ignored_key("revision", "it picks a Hub revision; a local folder is one revision"),
       ignored_key("trust_remote_code", "it allows a model's own Python code; the native encoder and TorchScript run none"),
       ignored_key("local_files_only", "the folder is local already; nothing is downloaded"),
       ignored_key("force_download", "nothing is downloaded"),
       ignored_key("resume_download", "nothing is downloaded"),
       ignored_key("cache_dir", "no Hub cache is used; the folder is read in place"),
       ignored_key("proxies", "no network is used", true),
       ignored_key("token", "no Hub access is made", true),
       ignored_key("use_auth_token", "no Hub access is made", true),
       ignored_key("low_cpu_mem_usage", "the native loader maps the weights without a copy whatever it says"),
       ignored_key("use_safetensors", "the native loader reads safetensors only"),
       ignored_key("_fast_init", "weights are read, never initialised first")}};
  return table;
}

}  // namespace

ModelOptions model_options_from(const Value& tree) {
  ModelOptions out;
  out.ignored = apply_table(model_table(), sorted_entries(tree, model_table().set), out,
                            "accepted and ignored, as meaningless for a local folder");
  return out;
}

std::optional<std::string> model_key_not_taken(const ModelOptions& options, ModelFile file) {
  for (const auto& spec : model_table().keys)
    if (spec.given && spec.given(options) && !(spec.files & file_bit(file))) return std::string(spec.key);
  return std::nullopt;
}

namespace {

// One value per name, no nesting: torch.call, torch.set and platform.
Entries flat_entries(const Value& tree, const std::string& set, const std::string& shape) {
  Entries entries = sorted_entries(tree, set);
  for (const auto& [key, v] : entries) {
    if (v.type == Value::Type::dict) {
      std::string nested;
      if (!v.entries.empty()) nested = " (" + option_name(set, key) + ":" + excerpt(v.entries.front().first) + ")";
      throw usage_error(option_name(set, key) + " cannot hold nested keys or a dict" + nested + "; write " + shape);
    }
  }
  return entries;
}

// The range check of a torch row's value beyond its kind.
void check_torch_value(TorchCheck check, const std::string& option, const Value& v) {
  const int64_t cpus = std::max<int64_t>(1, std::thread::hardware_concurrency());
  switch (check) {
    case TorchCheck::none: return;
    case TorchCheck::thread_count:
      integer_within(option, v.integer, 1, kMaxThreadsPerCpu * cpus,
                     fmt::format(" ({} per CPU, {} CPUs here)", kMaxThreadsPerCpu, cpus));
      return;
    case TorchCheck::matmul_precision: read_choice(option, v.text, {"highest", "high", "medium"}); return;
  }
}

// The values of one torch set, each with the setting its row names, in the order given.
struct TorchValues {
  std::vector<TorchValue> values;
};

// A torch row's store: its range check, then the value with the row's setting.
template <TorchSetting setting, TorchCheck check>
void store_torch(TorchValues& out, const std::string& option, const Value& v) {
  check_torch_value(check, option, v);
  out.values.push_back({setting, v});
}

// The kind of a row's type column; a type runtime/torch_settings does not read is a table bug.
const Kind* kind_of(Value::Type type) {
  switch (type) {
    case Value::Type::boolean: return &kBool;
    case Value::Type::integer: return &kInt;
    case Value::Type::string: return &kString;
    default: throw runtime_error("torch_setting_table.hpp: a row's type must be boolean, integer or string");
  }
}

// Which table a row of FMWORK_TORCH_SETTINGS is in: a set column other than call or set does not compile.
enum class TorchSet { call, set };

// The torch.call or torch.set table: the rows of FMWORK_TORCH_SETTINGS in set `which`.
SetTable<TorchValues> torch_table(TorchSet which, const char* set, const char* purpose, const char* shape) {
  SetTable<TorchValues> table{set, purpose, "", {}, shape, true};
#define FMWORK_TORCH_KEY(id, in_set, name, type, example, check, help)                                   \
  if (which == TorchSet::in_set)                                                                         \
    table.keys.push_back({name, nullptr, kind_of(Value::Type::type), example, nullptr, help,             \
                          store_torch<TorchSetting::id, TorchCheck::check>});
  FMWORK_TORCH_SETTINGS(FMWORK_TORCH_KEY)
#undef FMWORK_TORCH_KEY
  return table;
}

const SetTable<TorchValues>& torch_call_table() {
  static const SetTable<TorchValues> table = torch_table(
      TorchSet::call, "torch.call",
      "call torch.NAME(VALUE) at start-up, in name order, e.g. --torch.call:set_grad_enabled@ False",
      "NAME");
  return table;
}

const SetTable<TorchValues>& torch_set_table() {
  static const SetTable<TorchValues> table = torch_table(
      TorchSet::set, "torch.set",
      "set torch.PATH = VALUE after the calls, e.g. --torch.set:backends.cudnn.benchmark@ True", "PATH");
  return table;
}

// The entries of `tree` given to a torch set, each read through its row (as typed, checked).
std::vector<std::pair<std::string, Value>> torch_entries(const Value& tree, const SetTable<TorchValues>& table,
                                                         const std::string& shape) {
  Entries entries = flat_entries(tree, table.set, shape);
  TorchValues values;
  apply_table(table, entries, values);
  // One value an entry, in order: the torch rows have no alias and none is ignored.
  if (values.values.size() != entries.size()) throw runtime_error("the torch tables store one value a name");
  for (size_t i = 0; i < entries.size(); ++i) entries[i].second = values.values[i].value;
  return entries;
}

}  // namespace

TorchCalls torch_calls_from(const Value& tree) {
  return {torch_entries(tree, torch_call_table(), "--torch.call:NAME VALUE")};
}

TorchSets torch_sets_from(const Value& tree) {
  return {torch_entries(tree, torch_set_table(),
                        "--torch.set:PATH VALUE (PATH with dots, like backends.cudnn.benchmark)")};
}

TorchValue torch_setting_value(const std::string& set, const std::string& name, const Value& given) {
  if (set != "torch.call" && set != "torch.set") throw runtime_error("no torch set " + set);
  TorchValues values;
  apply_table(set == "torch.call" ? torch_call_table() : torch_set_table(), {{name, given}}, values);
  return values.values.front();
}

const std::vector<OptionSetDoc>& torch_setting_docs() {
  static const std::vector<OptionSetDoc> docs = {doc_of(torch_call_table()), doc_of(torch_set_table())};
  return docs;
}

PlatformOptions platform_options_from(const Value& tree) {
  PlatformOptions out;
  for (const auto& [key, v] : flat_entries(tree, "platform", "--platform:KEY VALUE"))
    out.entries.emplace_back(key, str(v));
  return out;
}

namespace {

// A tolerance: a finite number >= 0 (inf, which 1e999 reads as, would let no output fail the check); a
// cosine similarity is also at most 1.
double tolerance(const std::string& option, const Value& v, bool at_most_one) {
  const double x = v.type == Value::Type::integer ? static_cast<double>(v.integer) : v.floating;
  if (!(x >= 0) || !std::isfinite(x) || (at_most_one && x > 1))
    throw usage_error(option + " must be " + (at_most_one ? "in [0, 1]" : "a finite number >= 0") + "; got " + excerpt(repr(v)));
  return x;
}

const SetTable<CheckOptions>& check_table() {
  using O = CheckOptions;
  static const SetTable<O> table{
      "check_outputs", "the output checks", " (tolerances: defaults by dtype)",
      {{"atol", nullptr, &kNumber, "@ 1e-5", "atol@", "absolute tolerance",
        [](O& o, const std::string& option, const Value& v) { o.atol = tolerance(option, v, false); }},
       {"rtol", nullptr, &kNumber, "@ 1e-3", "rtol@", "relative tolerance",
        [](O& o, const std::string& option, const Value& v) { o.rtol = tolerance(option, v, false); }},
       {"cosine", nullptr, &kNumber, "@ 0.999", "cosine@", "least cosine similarity of each output, in [0, 1]",
        [](O& o, const std::string& option, const Value& v) { o.cosine = tolerance(option, v, true); }},
       {"cpu", nullptr, &kBool, "@ False", "cpu@",
        "True (the default) or False: a run with --compile or off the CPU has its first combination's first rows "
        "run again by the same model eager on the CPU, compared with these tolerances (one CHECK line; a mismatch "
        "is that combination's FAIL line)",
        [](O& o, const std::string&, const Value& v) { o.cpu = v.boolean; }}}};
  return table;
}

}  // namespace

CheckOptions check_options_from(const Value& tree) {
  CheckOptions out;
  apply_table(check_table(), flat_entries(tree, check_table().set, "--check_outputs:KEY@ NUMBER"), out);
  return out;
}

const std::vector<OptionSetDoc>& option_set_docs() {
  static const std::vector<OptionSetDoc> docs = {doc_of(compile_table()), doc_of(model_table()),
                                                 doc_of(check_table())};
  return docs;
}

const std::vector<OptionKeyDoc>& ignored_model_keys() {
  static const std::vector<OptionKeyDoc> keys = doc_of(model_table()).ignored;
  return keys;
}

namespace {

template <typename Options>
bool secret_in(const SetTable<Options>& table, const std::string& set, const std::string& key) {
  const KeySpec<Options>* spec = set == table.set ? find_spec(table, key) : nullptr;
  return spec && spec->secret;
}

}  // namespace

bool is_secret_key(const std::string& set, const std::string& key) {
  return secret_in(compile_table(), set, key) || secret_in(model_table(), set, key) || secret_in(check_table(), set, key);
}

Value tree_without_secrets(const std::string& set, Value tree) {
  for (auto& [key, value] : tree.entries)
    if (is_secret_key(set, key)) value = Value::of_string(kNotShown);
  return tree;
}

}  // namespace fmwork
