#include "fmwork/log/stats.hpp"

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "fmwork/base/error.hpp"
#include "fmwork/log/log_format.hpp"

namespace fmwork {
namespace {

TEST(Stats, WarmupRuleIsUpstreams) {
  // int(max(0.2 * reps, 1))
  EXPECT_EQ(warmup_reps(1), 1u);
  EXPECT_EQ(warmup_reps(2), 1u);
  EXPECT_EQ(warmup_reps(5), 1u);
  EXPECT_EQ(warmup_reps(9), 1u);
  EXPECT_EQ(warmup_reps(10), 2u);
  EXPECT_EQ(warmup_reps(14), 2u);
  EXPECT_EQ(warmup_reps(15), 3u);  // 0.2 * 15 == 3.0000000000000004
  EXPECT_EQ(warmup_reps(35), 7u);  // 0.2 * 35 == 7.000000000000001
  EXPECT_EQ(warmup_reps(100), 20u);
  EXPECT_EQ(warmup_reps(101), 20u);
}

TEST(Stats, MedianOddAndEven) {
  EXPECT_EQ(median({3.0}), 3.0);
  EXPECT_EQ(median({3.0, 1.0, 2.0}), 2.0);
  EXPECT_EQ(median({4.0, 1.0, 3.0, 2.0}), 2.5);
  EXPECT_EQ(median({5.0, 1.0}), 3.0);
  EXPECT_EQ(median({1.0, 1.0, 9.0, 9.0, 2.0, 8.0}), 5.0);
  // Even count: (a + b) / 2 as numpy computes it.
  const double a = 0.003702383, b = 0.003702621;
  EXPECT_EQ(median({b, a}), (a + b) / 2.0);
}

TEST(Stats, MedianOfNothingThrows) { EXPECT_THROW(median({}), Error); }

TEST(Stats, PercentileLinearLikeNumpy) {
  const std::vector<double> v = {4.0, 1.0, 3.0, 2.0};
  EXPECT_DOUBLE_EQ(percentile(v, 0), 1.0);
  EXPECT_DOUBLE_EQ(percentile(v, 100), 4.0);
  EXPECT_DOUBLE_EQ(percentile(v, 50), 2.5);
  EXPECT_DOUBLE_EQ(percentile(v, 90), 3.7);   // np.percentile([1,2,3,4], 90) == 3.7
  EXPECT_DOUBLE_EQ(percentile(v, 25), 1.75);  // index 0.75
  const std::vector<double> w = {10, 20, 30, 40, 50};
  EXPECT_DOUBLE_EQ(percentile(w, 99), 49.6);  // index 3.96
  EXPECT_DOUBLE_EQ(percentile(w, 10), 14.0);  // index 0.4
  EXPECT_EQ(percentile({7.0}, 99), 7.0);
}

TEST(Stats, PercentileChecksItsInput) {
  EXPECT_THROW(percentile({}, 50), Error);
  EXPECT_THROW(percentile({1.0}, -1), Error);
  EXPECT_THROW(percentile({1.0}, 100.5), Error);
  EXPECT_THROW(percentile({1.0}, std::nan("")), Error);
}

TEST(Stats, SummaryOfTenRepsDropsTwo) {
  const std::vector<double> d = {100, 50, 1, 2, 3, 4, 5, 6, 7, 8};
  Summary s = summarize(d);
  EXPECT_EQ(s.reps, 10u);
  EXPECT_EQ(s.dropped, 2u);
  EXPECT_EQ(s.median, 4.5);
  EXPECT_EQ(s.mean, 4.5);
  EXPECT_DOUBLE_EQ(s.stddev, std::sqrt(5.25));  // population: sum of squares 42 / 8
  EXPECT_EQ(s.min, 1);
  EXPECT_EQ(s.max, 8);
  EXPECT_DOUBLE_EQ(s.p50, 4.5);
  EXPECT_DOUBLE_EQ(s.p90, 7.3);
  EXPECT_DOUBLE_EQ(s.p99, 7.93);
}

TEST(Stats, SummaryOfTwoRepsKeepsOne) {
  Summary s = summarize({0.75, 0.25});
  EXPECT_EQ(s.dropped, 1u);
  EXPECT_EQ(s.median, 0.25);
  EXPECT_EQ(s.mean, 0.25);
  EXPECT_EQ(s.stddev, 0.0);
  EXPECT_EQ(s.min, 0.25);
  EXPECT_EQ(s.max, 0.25);
  EXPECT_EQ(s.p99, 0.25);
}

TEST(Stats, SummaryOfFiveRepsDropsOne) {
  Summary s = summarize({9, 4, 1, 3, 2});
  EXPECT_EQ(s.dropped, 1u);
  EXPECT_EQ(s.median, 2.5);  // of {4, 1, 3, 2}
  EXPECT_EQ(s.mean, 2.5);
  EXPECT_DOUBLE_EQ(s.stddev, std::sqrt(1.25));
  EXPECT_EQ(s.min, 1);
  EXPECT_EQ(s.max, 4);
}

TEST(Stats, SummaryOfHundredRepsDropsTwenty) {
  std::vector<double> d;
  for (int i = 0; i < 20; ++i) d.push_back(1000.0);  // warm-up outliers, all dropped
  for (int i = 1; i <= 80; ++i) d.push_back(i);
  Summary s = summarize(d);
  EXPECT_EQ(s.reps, 100u);
  EXPECT_EQ(s.dropped, 20u);
  EXPECT_EQ(s.median, 40.5);
  EXPECT_EQ(s.mean, 40.5);
  EXPECT_EQ(s.min, 1);
  EXPECT_EQ(s.max, 80);
  EXPECT_DOUBLE_EQ(s.p90, 72.1);   // index 71.1
  EXPECT_DOUBLE_EQ(s.p99, 79.21);  // index 78.21
}

TEST(Stats, SummaryDropsTheCountGivenInsteadOfTheRule) {
  // --warmup 3 of 5 reps: the rule would drop 1 (median 2.5 of {4, 1, 3, 2}).
  Summary s = summarize({9, 4, 1, 3, 2}, 3);
  EXPECT_EQ(s.reps, 5u);
  EXPECT_EQ(s.dropped, 3u);
  EXPECT_EQ(s.median, 2.5);  // of {3, 2}
  EXPECT_EQ(s.min, 2);
  EXPECT_EQ(s.max, 3);
  Summary none = summarize({9, 4, 1, 3, 2}, 0);
  EXPECT_EQ(none.dropped, 0u);
  EXPECT_EQ(none.max, 9);  // the first rep is kept
  EXPECT_EQ(none.median, 3);
}

TEST(Stats, SummaryRefusesToDropEveryRep) {
  try {
    summarize({1.0, 2.0, 3.0}, 3);
    FAIL() << "no throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::runtime);
    EXPECT_STREQ(e.what(), "statistics need at least one rep after the 3 dropped as warm-up, got 3 reps");
  }
}

TEST(Stats, SummaryNeedsTwoReps) {
  EXPECT_THROW(summarize({}), Error);
  try {
    summarize({1.0});
    FAIL() << "no throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::runtime);
    EXPECT_NE(std::string(e.what()).find("at least 2 reps"), std::string::npos) << e.what();
  }
}

TEST(Stats, MedianOfRealDurationsMatchesUpstreamLatency) {
  // The last reps of upstream's README example, as upstream computes them: float(t1 - t0) / 1e9.
  std::vector<double> d = {0.757057369, 0.004468641, 0.003862192, 0.003697189, 0.003702383};
  Summary s = summarize(d);  // drops 1; median of 4 = (0.003702383 + 0.003862192) / 2
  EXPECT_EQ(s.median, (0.003702383 + 0.003862192) / 2.0);
}

// ---- the numbers of RES and STAT, written by log_format ----

TEST(Stats, ResLineFromSummaryComputesLikeUpstream) {
  Summary s;
  s.median = 0.003691;  // seconds
  ResLine res = make_res_line(1108911088153850, 1108912235531503, "m", "BertModel", 128, 1, latency_ms(s),
                              throughput(s, 1));
  EXPECT_EQ(res.latency_ms, 0.003691 * 1000.0);
  EXPECT_EQ(res.throughput, 1.0 / 0.003691);
  EXPECT_EQ(format_line(res), "FMWORK RES 1108911.088153850 1108912.235531503 m BertModel 128 1 3.691 270.9");
  s.median = 0.0125;
  res = make_res_line(0, 1, "m", "c", 64, 8, latency_ms(s), throughput(s, 8));
  EXPECT_EQ(format_line(res), "FMWORK RES 0.000000000 0.000000001 m c 64 8 12.500 640.0");
}

TEST(Stats, StatLineFromSummary) {
  Summary s;
  s.reps = 20;
  s.dropped = 4;
  s.mean = 0.0037121234;
  s.stddev = 0.000021;
  s.min = 0.00369;
  s.p50 = 0.003701;
  s.p90 = 0.00373;
  s.p99 = 0.00379;
  s.max = 0.003795;
  EXPECT_EQ(format_line(make_stat_line(128, 1, stat_values(s))),
            "FMWORK STAT input=128 batch=1 reps=20 dropped=4 mean_ms=3.712123 stddev_ms=0.021000 min_ms=3.690000 "
            "p50_ms=3.701000 p90_ms=3.730000 p99_ms=3.790000 max_ms=3.795000 tokens_per_s=34585.247");
}

}  // namespace
}  // namespace fmwork
