// The GEMM rate cache entry read back and checked (gemm_cache.hpp).
#include "fmwork/cache/gemm_cache.hpp"

#include <fmt/format.h>

#include "fmwork/base/text_format.hpp"

namespace fmwork {

namespace {

// A whole number of digits from 1 to `max`, or nullopt ("12 junk", "0x10", "-1", "1e3" included).
std::optional<int64_t> count_in(const std::string& text, int64_t max) {
  if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  const int64_t v = std::stoll(text);
  return v >= 1 && v <= max ? std::optional<int64_t>(v) : std::nullopt;
}

}  // namespace

std::optional<CachedGemmFacts> read_gemm_cache_facts(const std::map<std::string, std::string>& facts) {
  const auto gflops = facts.find("gflops"), n = facts.find("n"), repeats = facts.find("repeats");
  if (gflops == facts.end() || n == facts.end() || repeats == facts.end()) return std::nullopt;
  const std::optional<double> rate = parse_decimal(gflops->second);
  const std::optional<int64_t> size = count_in(n->second, 16384), best_of = count_in(repeats->second, 1000);
  if (!rate || !(*rate > 0) || *rate > kMaxPlausibleGflops || !size || !best_of) return std::nullopt;
  return CachedGemmFacts{*rate, *size, static_cast<int>(*best_of)};
}

std::string cached_gemm_rate_disagreement(double cached_gflops, double now_gflops) {
  if (now_gflops > cached_gflops * kCachedRateBelowFactor)
    return fmt::format("the cached GEMM rate, {:.1f} GFLOP/s, is below one product timed now ({:.1f}): it was "
                       "measured on a busy machine, so it is measured again and replaced", cached_gflops, now_gflops);
  if (now_gflops * kCachedRateAboveFactor < cached_gflops)
    return fmt::format("the cached GEMM rate, {:.1f} GFLOP/s, is more than {:g}x one product timed now ({:.1f}): it "
                       "is not this machine's, so it is measured again and replaced", cached_gflops,
                       kCachedRateAboveFactor, now_gflops);
  return "";
}

}  // namespace fmwork
