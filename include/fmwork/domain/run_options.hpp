// What a run is asked for beyond the fixed options, typed: the sub-option sets (--compile:, --model:,
// --torch.call:, --torch.set:, --platform:, --check_outputs:) as the loaders, platforms, compilers and the
// sweep take them. cli/option_sets.hpp builds them from the command line and owns their tables; the layers
// that use them need not know the command line.
#pragma once

#include <cstdint>
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
  std::optional<bool> gelu_epilogue;      // ours: the feed-forward's bias and GELU in its GEMM (default off)
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

// --check_outputs:KEY (ours): the tolerances of the output checks (--check_outputs DIR, and the check against the
// CPU of a run that is not CPU eager, sweep/cpu_reference.hpp); absent keys take the defaults of the model's dtype
// (sweep/saved_outputs.hpp). A combination passes when every element satisfies |got - want| <= atol + rtol *
// |want| (numpy's allclose) and the cosine similarity is >= cosine. `cpu` false (--check_outputs:cpu@ False):
// no check against the CPU.
struct CheckOptions {
  std::optional<double> atol, rtol, cosine;
  bool cpu = true;
};

}  // namespace fmwork
