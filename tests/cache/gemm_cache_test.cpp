// Tests of the GEMM rate cache entry: strict parsing of its facts and the check against a product timed now.
#include "fmwork/cache/gemm_cache.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace fmwork {
namespace {

std::map<std::string, std::string> entry(const std::string& gflops, const std::string& n = "2048",
                                         const std::string& repeats = "5") {
  return {{"gflops", gflops}, {"n", n}, {"repeats", repeats}};
}

// strtod read "30 junk" as 30 and "0x1p10" as 1024: an edited entry was believed.
TEST(GemmCache, FactsAreReadStrictly) {
  const std::optional<CachedGemmFacts> good = read_gemm_cache_facts(entry("123.456"));
  ASSERT_TRUE(good);
  EXPECT_EQ(good->gflops, 123.456);
  EXPECT_EQ(good->n, 2048);
  EXPECT_EQ(good->repeats, 5);
  for (const char* bad : {"30 junk", "0x1p10", "inf", "nan", "-5", "0", "1e8", "", " 30", "30.0.0", "1e999"}) {
    EXPECT_FALSE(read_gemm_cache_facts(entry(bad))) << fmt::format("gflops='{}' was believed", bad);
  }
  for (const char* bad : {"2048 junk", "0x800", "0", "16385", "-1", "2e3", ""}) {
    EXPECT_FALSE(read_gemm_cache_facts(entry("100", bad))) << fmt::format("n='{}' was believed", bad);
  }
  for (const char* bad : {"5x", "1001", "0"}) {
    EXPECT_FALSE(read_gemm_cache_facts(entry("100", "2048", bad))) << fmt::format("repeats='{}' was believed", bad);
  }
  EXPECT_FALSE(read_gemm_cache_facts({{"gflops", "100"}, {"n", "2048"}})) << "an entry without repeats";
}

// Only a figure too low was caught (a busy machine's); one far too high (an edited or foreign entry) was kept and
// made every of_peak tiny. Both ways are refused now.
TEST(GemmCache, ACachedRateFarFromOneTimedNowIsRefusedBothWays) {
  EXPECT_EQ(cached_gemm_rate_disagreement(100, 100), "");
  EXPECT_EQ(cached_gemm_rate_disagreement(100, 120), "") << "within the margin above";
  EXPECT_EQ(cached_gemm_rate_disagreement(100, 55), "") << "one product may be well below a best of several";
  EXPECT_NE(cached_gemm_rate_disagreement(600, 164), "") << "the hostile round's edited entry: of_peak 0.13, not 0.46";
  const std::string low = cached_gemm_rate_disagreement(100, 130);
  EXPECT_EQ(low.rfind("the cached GEMM rate, 100.0 GFLOP/s, is below one product timed now (130.0)", 0), 0u) << low;
  const std::string high = cached_gemm_rate_disagreement(9000, 100);
  EXPECT_EQ(high.rfind("the cached GEMM rate, 9000.0 GFLOP/s, is more than 2x one product timed now (100.0)", 0), 0u)
      << high;
}

}  // namespace
}  // namespace fmwork
