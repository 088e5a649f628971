// Typed option sets built from the sub-option tree, validated before anything is loaded. Each rejects
// unknown keys (listing the known ones) and wrong types (naming the expected type).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fmwork/base/python_value.hpp"

namespace fmwork {

// --compile:KEY: the keyword arguments of torch.compile that have a meaning here.
struct CompileOptions {
  std::string backend = "inductor";  // torch.compile's default; "torchscript", "cudagraphs", plugin names
  std::optional<std::string> mode;   // "default", "reduce-overhead", "max-autotune", ...
  std::optional<bool> dynamic;
  bool fullgraph = false;
  bool disable = false;
  Value options = Value::of_dict({});  // the free-form `options` dict, handed to plugin compilers as is
  Value raw = Value::of_dict({});      // the whole --compile: tree, for plugin compile hooks
};

// --model:KEY: what from_pretrained takes that has a meaning for our loaders.
struct ModelOptions {
  // "float32", "float16", "bfloat16", or "auto" (the config's torch_dtype); from torch_dtype or dtype,
  // given as a dtype (torch.float16) or a string ("float16", "auto").
  std::optional<std::string> dtype;
  std::optional<std::string> attn_implementation;  // "eager" or "sdpa"
  std::optional<bool> add_pooling_layer;
  std::optional<int64_t> vocab_size;      // for TorchScript files without a config.json beside them
  bool random_weights = false;            // opt-in: build the weights at random when the folder has none
  std::optional<int64_t> random_weights_seed;
  std::optional<bool> packed_gemm;        // ours: MKL packed GEMM for float32 on the CPU (default on with AVX-512)
  // from_pretrained keywords that mean nothing for a local folder (revision, trust_remote_code, cache_dir,
  // ...): accepted so that upstream command lines keep working, one MODEL line each, e.g.
  // "--model:revision 'main' ignored: it picks a Hub revision; a local folder is one revision".
  std::vector<std::string> ignored;
};

// --torch.call:NAME VALUE and --torch.set:PATH VALUE, in the order upstream applies them (sorted by
// key). Names and value types are checked against torch_settings' tables, which own the mapping.
struct TorchCalls { std::vector<std::pair<std::string, Value>> calls; };
struct TorchSets { std::vector<std::pair<std::string, Value>> sets; };

// --platform:KEY VALUE, handed to plugins as strings (str() of each value). Nested keys are refused.
struct PlatformOptions { std::vector<std::pair<std::string, std::string>> entries; };

// --check_outputs:KEY (ours): the tolerances of --check_outputs; absent keys take the defaults of the
// model's dtype (sweep/saved_outputs.hpp). A combination passes when every element satisfies
// |got - want| <= atol + rtol * |want| (numpy's allclose) and the cosine similarity is >= cosine.
struct CheckOptions {
  std::optional<double> atol, rtol, cosine;
};

// One key of a typed set, as the set's table declares it. The same table drives the builders below, their
// unknown-key message and `driver --help`, so the three cannot disagree.
struct OptionKeyDoc {
  std::string key;                   // as typed after --SET:, e.g. "torch_dtype"
  std::vector<std::string> aliases;  // other spellings of the same key ("dtype"); giving two of them is refused
  std::string type;                  // what the value must be, as the wrong-type message names it
  std::string example;               // the whole option with a value the builder accepts: "--model:vocab_size@ 30522"
  std::string help;                  // one line for --help
};

// A set with a key table: its keys in table order and the one-line summary --help prints for it, e.g.
// "torch.compile options: backend, mode, dynamic, fullgraph, disable, options:KEY".
struct OptionSetDoc {
  std::string set;  // "compile", "model", "check_outputs"
  std::string summary;
  std::vector<OptionKeyDoc> keys;
};

// The sets with key tables, in the order --help lists them: compile, model, check_outputs. The others are
// not here: torch.call / torch.set names belong to torch_settings (a torch module), platform keys to plugins.
const std::vector<OptionSetDoc>& option_set_docs();

// --torch.call:NAME and --torch.set:PATH as docs/options.md lists them: each name with its value type, an
// example and what it does, calls then sets. What they do is runtime/torch_settings' (a LibTorch module, out
// of this library's reach); TorchSettings.TablesHoldEveryDocumentedKey holds its tables to these names.
const std::vector<OptionSetDoc>& torch_setting_docs();

// A from_pretrained keyword that --model: accepts and ignores, and why it means nothing for a local folder.
struct IgnoredKeyDoc {
  std::string key;
  std::string why;
};

// Those keywords, in the order the unknown-key message lists them.
const std::vector<IgnoredKeyDoc>& ignored_model_keys();

// Builders: take the dict Value of one set (CommandLine::subs[set]); throw a usage Error naming the
// option as typed (`--compile:mode`) on an unknown key (listing the known ones) or a wrong type.
CompileOptions compile_options_from(const Value& tree);
ModelOptions model_options_from(const Value& tree);
TorchCalls torch_calls_from(const Value& tree);
TorchSets torch_sets_from(const Value& tree);
PlatformOptions platform_options_from(const Value& tree);
CheckOptions check_options_from(const Value& tree);

}  // namespace fmwork
