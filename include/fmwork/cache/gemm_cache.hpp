// The GEMM rate the driver keeps in the artifact cache (kind "gemm"), read back without LibTorch: the entry's
// facts parsed strictly, and the check of a cached rate against one product timed now. The cache folder is
// the user's to edit or share, so an entry is untrusted text; the torch side (sweep/gemm_probe) measures and
// stores, and asks these two functions whether a stored figure may be believed.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace fmwork {

// What a "gemm" entry's facts say: the rate (GFLOP/s), the product's size n and how many products it is the best of.
struct CachedGemmFacts {
  double gflops = 0;
  int64_t n = 0;
  int repeats = 0;
};

// Ten times a 2026 GPU's dense low-precision rate (about 10^6 GFLOP/s): no cached figure above is real.
inline constexpr double kMaxPlausibleGflops = 1e7;

// The facts of an intact entry, or nullopt (measured again) for any other: each of gflops, n and repeats present
// and whole, gflops a decimal number (parse_decimal: "30 junk", "0x1p10", "inf" are refused, not read as 30,
// 1024, inf) above 0 and at most kMaxPlausibleGflops, n digits from 1 to 16384, repeats digits from 1 to 1000.
std::optional<CachedGemmFacts> read_gemm_cache_facts(const std::map<std::string, std::string>& facts);

// How far one product timed now may be from the cached best-of rate. Faster than the cache by more than
// kCachedRateBelowFactor: the cached figure was measured on a busy machine. Slower by more than
// kCachedRateAboveFactor: the cached figure is not this machine's (an edited or shared entry, another
// configuration under the same key); one product is noisier than a best of several, hence the wider margin
// (2x: a busy machine halves one product; an entry 3.6x above the machine passed the 4x this was first).
inline constexpr double kCachedRateBelowFactor = 1.25;
inline constexpr double kCachedRateAboveFactor = 2;

// "" when `cached_gflops` may be believed beside `now_gflops` (one product timed now); else why not, one line for
// the driver's note: "the cached GEMM rate, 9000.0 GFLOP/s, is more than 4x one product timed now (100.0) ...".
std::string cached_gemm_rate_disagreement(double cached_gflops, double now_gflops);

}  // namespace fmwork
