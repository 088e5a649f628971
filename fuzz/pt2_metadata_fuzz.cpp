// Fuzz target: an AOTInductor package's metadata (cache/aoti_metadata). The input is the package's
// `*_metadata.json` member as it sits in a .pt2, a NUL byte, then the call spec's in_spec text (read only
// when the metadata names no inputs; an input without a NUL has an empty call spec). The JSON is read with
// parse_json's limits and, as LibTorch's loader reads it, must be an object of strings (anything else is
// not a package's metadata and ends the input); the map is then interpreted as the loader does.
#include <algorithm>
#include <map>
#include <string>
#include <string_view>

#include "fmwork/base/json_input.hpp"
#include "fmwork/cache/aoti_metadata.hpp"
#include "fmwork/hf/model_inputs.hpp"
#include "fuzz_support.hpp"

namespace {

// The facts' own promises: inputs the driver can feed with input_ids among them, and ranges in order.
bool holds_its_contract(const fmwork::AotiFacts& f) {
  const auto& names = fmwork::model_input_names();
  const bool feedable = !f.inputs.empty() && std::all_of(f.inputs.begin(), f.inputs.end(), [&](const std::string& n) {
    return std::find(names.begin(), names.end(), n) != names.end();
  });
  const auto range_ok = [](int64_t lo, int64_t hi) { return hi == 0 ? lo == 1 : lo >= 1 && lo <= hi; };
  return feedable && std::find(f.inputs.begin(), f.inputs.end(), "input_ids") != f.inputs.end() &&
         range_ok(f.batch_min, f.batch_max) && range_ok(f.input_min, f.input_max) && f.threads >= 0 &&
         f.threads <= fmwork::kMaxPackageThreads;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input = fmwork::fuzz::as_text(data, size);
  const size_t cut = std::min(input.find('\0'), input.size());
  const std::string_view metadata_text = input.substr(0, cut);
  const std::string in_spec(input.substr(std::min(cut + 1, input.size())));
  fmwork::fuzz::refusal_allowed([&] {
    const nlohmann::json doc = fmwork::parse_json(metadata_text, "m/model_metadata.json");
    if (!doc.is_object()) return;
    std::map<std::string, std::string> metadata;
    for (const auto& item : doc.items()) {
      if (!item.value().is_string()) return;
      metadata[item.key()] = item.value().get<std::string>();
    }
    const fmwork::AotiFacts facts = fmwork::aoti_facts_from(metadata, [&] { return in_spec; }, "m.pt2");
    if (!holds_its_contract(facts)) __builtin_trap();
  });
  return 0;
}
