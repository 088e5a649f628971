// What an AOTInductor package (.pt2) says about itself, read without LibTorch: the metadata the package
// holds (each `*_metadata.json` member, a JSON object of strings, which LibTorch's loader hands over as
// get_metadata()), with the fmwork.* keys tools/aoti_export.py writes, and, for a package exported by
// someone else, its call spec. The loader (loaders/aoti_model) takes the map from LibTorch and the facts
// from here. Every value is untrusted: a bad one is refused naming the package and the key, never read as
// a default.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace fmwork {

// The most intra-op threads fmwork.threads may name, and the largest batch or input size of its ranges
// (what --batch_sizes and --input_sizes take: 18 digits).
constexpr int64_t kMaxPackageThreads = 1 << 16;
constexpr int64_t kMaxPackageSize = 999'999'999'999'999'999;

// What a package says about itself: from the fmwork.* metadata our exporter writes, else its call spec.
struct AotiFacts {
  std::vector<std::string> inputs;   // forward's inputs in order (input_ids, attention_mask, token_type_ids)
  std::vector<std::string> outputs;  // output names (empty: output_0, output_1, ...)
  int64_t batch_min = 1, batch_max = 0, input_min = 1, input_max = 0;  // 0: not recorded
  std::string dtype = "unknown", vec_isa, device;
  int64_t threads = 0;                // the intra-op threads its CPU kernels were built for (0: unknown)
  std::map<std::string, std::string> metadata;  // everything, as the package holds it
};

// The package's call spec, for its inputs: `() -> in_spec`, torch.export's pytree of (args, kwargs) as
// JSON text ("[1, {...}]"). Asked for only when the metadata has no fmwork.inputs.
using CallSpecSource = std::function<std::string()>;

// Interprets `metadata` (the package's, every key as it holds it) for the package at `path`. Keys read,
// each optional (absent: the default of AotiFacts) but, when present, strictly:
//   fmwork.inputs   comma-separated, each one of model_input_names() once, input_ids among them; absent:
//                   the inputs of the call spec (inputs_from_call_spec)
//   fmwork.outputs  comma-separated non-empty names, each once
//   fmwork.dtype    float32, float16 or bfloat16
//   fmwork.vec_isa, AOTI_DEVICE_KEY  printable text of at most 100 characters
//   fmwork.threads  a whole number from 0 (a GPU package: no thread count baked) to kMaxPackageThreads
//   fmwork.batch_min / batch_max, fmwork.input_min / input_max  whole numbers from 1 to kMaxPackageSize,
//                   min <= max, the two of a pair given together
// Other keys (AOTI_*, fmwork.torch, ...) are kept in `metadata` and not read. Throws a one-line usage Error
// "<path>: the package's metadata fmwork.batch_max is 'x'; ...": what the key holds and what would be right.
AotiFacts aoti_facts_from(const std::map<std::string, std::string>& metadata, const CallSpecSource& in_spec,
                          const std::string& path);

// A package carries no shape checks of its own: run at a shape it was not built for, a static one computes its
// own shape (reporting the asked one's throughput) or reads past the inputs and dies. So a package must say its
// ranges: throws a one-line usage Error "<path>: the package does not record the batch sizes it was built for
// (fmwork.batch_min/batch_max) ..." when `facts` lack either pair; nothing otherwise.
void require_shape_ranges(const AotiFacts& facts, const std::string& path);

// The inputs of a package whose metadata does not name them, from its call spec `in_spec` (JSON, read with
// parse_json's limits). Keyword inputs are named by the kwargs dict's keys; positional ones are taken to be
// input_ids, attention_mask, token_type_ids in that order, as forward() declares them in every Hugging Face
// encoder. Throws a one-line usage Error "<path>: cannot tell the package's inputs: <why>; export it with
// keyword inputs named ..." for a spec that is not (args, kwargs), an input the driver cannot feed, one
// named twice, or no input_ids.
std::vector<std::string> inputs_from_call_spec(std::string_view in_spec, const std::string& path);

}  // namespace fmwork
