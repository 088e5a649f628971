#include "fmwork/workload/latency_stats.hpp"

#include <gtest/gtest.h>

#include "fmwork/base/error.hpp"

namespace fmwork {
namespace {

// The expected values are numpy's on the same values (numpy 2.x, np.percentile's default method 'linear'):
//   v = np.array([((i * 7919) % 1009) * 0.0137 + 3.5 for i in range(1000)])
//   np.percentile(v, [50, 90, 99, 99.9]), v.max(), v.mean()
TEST(LatencyStats, PercentilesAreNumpysDefault) {
  std::vector<double> v;
  for (int i = 0; i < 1000; ++i) v.push_back(((i * 7919) % 1009) * 0.0137 + 3.5);
  const LatencySummary s = summarize_latencies(v);
  EXPECT_EQ(s.count, 1000);
  EXPECT_NEAR(s.p50_ms, 10.42535, 1e-9);
  EXPECT_NEAR(s.p90_ms, 15.92727, 1e-9);
  EXPECT_NEAR(s.p99_ms, 17.172737, 1e-9);
  EXPECT_NEAR(s.p999_ms, 17.2959137, 1e-9);
  EXPECT_DOUBLE_EQ(s.max_ms, 17.3096);
  EXPECT_NEAR(s.mean_ms, 10.4140886, 1e-9);
  // Five values, interpolated between ranks: np.percentile([12.5, 3.25, 7.0, 100.0, 9.75], [50, 90, 99, 99.9]).
  const LatencySummary few = summarize_latencies({12.5, 3.25, 7.0, 100.0, 9.75});
  EXPECT_DOUBLE_EQ(few.p50_ms, 9.75);
  EXPECT_DOUBLE_EQ(few.p90_ms, 65.0);
  EXPECT_DOUBLE_EQ(few.p99_ms, 96.5);
  EXPECT_NEAR(few.p999_ms, 99.65, 1e-12);
  EXPECT_EQ(summarize_latencies({}).count, 0);
}

TEST(LatencyStats, BoundsParseAndNonsenseIsRefusedNamingTheOption) {
  const LatencyBound b = parse_latency_bound("p99:50", "--latency_bound");
  EXPECT_EQ(b.percentile, 99);
  EXPECT_EQ(b.ms, 50);
  EXPECT_EQ(parse_latency_bound("p99.9:12.5", "--latency_bound").percentile, 99.9);
  EXPECT_EQ(parse_latency_bound("p100:1", "--latency_bound").percentile, 100);
  for (const char* bad : {"p99", "99:50", "p0:5", "p101:5", "p99:-1", "p99:0", "p99:abc", "p:5", "pp9:5", "p9.9.9:5",
                          "", "p99:50ms"}) {
    try {
      parse_latency_bound(bad, "--latency_bound");
      FAIL() << bad;
    } catch (const Error& e) {
      EXPECT_EQ(e.exit_code(), 2);
      EXPECT_EQ(std::string(e.what()).rfind("--latency_bound", 0), 0u) << e.what();
    }
  }
  EXPECT_DOUBLE_EQ(bound_percentile({1, 2, 3, 4, 5}, parse_latency_bound("p50:1", "x")).value_or(-1), 3.0);
  EXPECT_FALSE(bound_percentile({}, parse_latency_bound("p50:1", "x"))) << "no latency is not measured, never 0";
}

}  // namespace
}  // namespace fmwork
