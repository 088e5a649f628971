// Fuzz target: a GEMM rate entry of the artifact cache read back (cache/gemm_cache). The input is the entry's
// manifest.json as the cache stores it, or its "facts" object alone, a NUL byte, then a rate "timed now"
// (decimal text; none after the NUL: 100). The cache folder is the user's to edit or share, so the facts are
// untrusted: read_gemm_cache_facts must return an entry within its bounds or nothing, and the check of the
// cached rate against the one timed now must say one line or nothing.
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "fmwork/base/json_input.hpp"
#include "fmwork/base/text_format.hpp"
#include "fmwork/cache/gemm_cache.hpp"
#include "fuzz_support.hpp"

namespace {

// The facts' own promises (gemm_cache.hpp): a rate above 0 and at most kMaxPlausibleGflops, n and repeats in range.
bool holds_its_contract(const fmwork::CachedGemmFacts& f) {
  return f.gflops > 0 && f.gflops <= fmwork::kMaxPlausibleGflops && f.n >= 1 && f.n <= 16384 && f.repeats >= 1 &&
         f.repeats <= 1000;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input = fmwork::fuzz::as_text(data, size);
  const size_t cut = std::min(input.find('\0'), input.size());
  const std::string_view manifest_text = input.substr(0, cut);
  const std::optional<double> now =
      cut < input.size() ? fmwork::parse_decimal(input.substr(cut + 1)) : std::optional<double>(100);
  fmwork::fuzz::refusal_allowed([&] {
    const nlohmann::json doc = fmwork::parse_json(manifest_text, "gemm/<key>/manifest.json");
    const nlohmann::json& facts_json = doc.is_object() && doc.contains("facts") ? doc["facts"] : doc;
    if (!facts_json.is_object()) return;  // the cache reads such a manifest as damaged, not as facts
    std::map<std::string, std::string> facts;
    for (const auto& item : facts_json.items()) {
      if (!item.value().is_string()) return;
      facts[item.key()] = item.value().get<std::string>();
    }
    const std::optional<fmwork::CachedGemmFacts> read = fmwork::read_gemm_cache_facts(facts);
    if (!read) return;
    if (!holds_its_contract(*read)) __builtin_trap();
    if (!now || !(*now > 0)) return;
    const std::string why = fmwork::cached_gemm_rate_disagreement(read->gflops, *now);
    if (why.find('\n') != std::string::npos) __builtin_trap();
  });
  return 0;
}
