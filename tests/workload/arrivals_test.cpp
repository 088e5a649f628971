#include "fmwork/workload/arrivals.hpp"

#include <cmath>

#include <gtest/gtest.h>

#include "fmwork/base/error.hpp"

namespace fmwork {
namespace {

TEST(Arrivals, SeededPoissonHasItsRateWithinStatisticalBounds) {
  // 20000 gaps of mean 1/50 s: the mean gap's standard deviation is 1/50/sqrt(20000), 0.7%; 4 sigma allowed.
  const double rate = 50;
  const int64_t n = 20000;
  const std::vector<ServeNanos> t = poisson_arrivals(rate, n, 7);
  ASSERT_EQ(static_cast<int64_t>(t.size()), n);
  for (size_t i = 1; i < t.size(); ++i) ASSERT_LE(t[i - 1], t[i]);
  const double mean_gap_s = static_cast<double>(t.back()) / 1e9 / static_cast<double>(n);
  EXPECT_NEAR(mean_gap_s * rate, 1.0, 4.0 / std::sqrt(static_cast<double>(n)));
  // Exponential gaps: P(gap > mean) = e^-1, within 4 binomial sigmas.
  int64_t longer = 0;
  for (size_t i = 1; i < t.size(); ++i) longer += static_cast<double>(t[i] - t[i - 1]) / 1e9 > 1.0 / rate;
  const double p = std::exp(-1.0), sigma = std::sqrt(p * (1 - p) / static_cast<double>(n));
  EXPECT_NEAR(static_cast<double>(longer) / static_cast<double>(n), p, 4 * sigma);
}

TEST(Arrivals, TheSameSeedGivesTheSameScheduleAndAnotherSeedAnother) {
  EXPECT_EQ(poisson_arrivals(20, 100, 3), poisson_arrivals(20, 100, 3));
  EXPECT_NE(poisson_arrivals(20, 100, 3), poisson_arrivals(20, 100, 4));
}

TEST(Arrivals, ScheduleCountInAWindowIsPoissonAndTheMinimumsHold) {
  // Arrivals in [1 s, 101 s) at 40/s: Poisson with mean 4000 and sigma sqrt(4000) ~ 63; 4 sigma allowed.
  const std::vector<ServeNanos> t = poisson_schedule(40, 11, 1'000'000'000, 100'000'000'000, 0);
  int64_t measured = 0;
  for (ServeNanos at : t) measured += at >= 1'000'000'000;
  EXPECT_NEAR(static_cast<double>(measured), 4000.0, 4 * std::sqrt(4000.0));
  EXPECT_GE(t.back() - 1'000'000'000, 100'000'000'000);  // the measured part spans the minimum duration
  // The minimum count wins when the duration would give fewer queries.
  const std::vector<ServeNanos> few = poisson_schedule(2, 11, 0, 1'000'000'000, 500);
  EXPECT_EQ(few.size(), 500u);
}

TEST(Arrivals, BadRatesAreRefusedNamingTheOption) {
  for (double rate : std::vector<double>{0.0, -5.0, std::nan(""), INFINITY}) {
    try {
      poisson_schedule(rate, 0, 0, 1, 1);
      FAIL() << rate;
    } catch (const Error& e) {
      EXPECT_EQ(e.exit_code(), 2);
      EXPECT_NE(std::string(e.what()).find("--rates"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(poisson_schedule(1e9, 0, 0, 10'000'000'000, 0), Error);  // past kMaxServeQueries
}

// Every caller of the schedule gets the same bound on a level's length (the capacity search's levels too).
TEST(Arrivals, ALevelThatWouldOutlastTheBoundIsRefused) {
  EXPECT_NEAR(expected_level_seconds(0.5, 1, 5, 100), 201, 1e-9);
  EXPECT_NO_THROW(check_level_length("--rates", 0.5, 1, 5, 100));
  try {
    poisson_schedule(0.001, 1, 1'000'000'000, 5'000'000'000, 100);
    FAIL() << "a level of about 100000 s was scheduled";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), 2);
    EXPECT_EQ(std::string(e.what()).rfind("--rates 0.001: a level at 0.001 queries/s takes about 100001 s", 0), 0u)
        << e.what();
  }
  EXPECT_THROW(check_arrival_rate(2e6), Error);
  EXPECT_THROW(check_arrival_rate(std::nan("")), Error);
}

}  // namespace
}  // namespace fmwork
