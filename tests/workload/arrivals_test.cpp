#include "fmwork/workload/arrivals.hpp"

#include <cmath>
#include <functional>
#include <string>
#include <vector>

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

// The rates a schedule takes were checked where they were read (cli/serve_options): one it is handed all the same
// is the caller's mistake, a runtime Error that names no option (workload/ knows no command line).
void expect_invariant_error(const std::function<void()>& schedule, const std::string& what) {
  try {
    schedule();
    ADD_FAILURE() << what << " was scheduled";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::runtime) << what << ": " << e.what();
    EXPECT_EQ(std::string(e.what()).find("--"), std::string::npos) << what << ": " << e.what();
  }
}

TEST(Arrivals, BadRatesAreRuntimeErrorsNamingNoOption) {
  for (double rate : std::vector<double>{0.0, -5.0, std::nan(""), INFINITY, 2e6}) {
    expect_invariant_error([&] { poisson_schedule(rate, 0, 0, 1, 1); }, std::to_string(rate));
    expect_invariant_error([&] { poisson_arrivals(rate, 1, 0); }, std::to_string(rate));
  }
  expect_invariant_error([] { poisson_schedule(1e9, 0, 0, 10'000'000'000, 0); }, "past kMaxServeQueries");
}

// Every caller of the schedule gets the same bound on a level's length (the capacity search's levels too).
TEST(Arrivals, ALevelThatWouldOutlastTheBoundIsRefused) {
  EXPECT_NEAR(expected_level_seconds(0.5, 1, 5, 100), 201, 1e-9);
  EXPECT_NO_THROW(poisson_schedule(0.5, 1, 1'000'000'000, 5'000'000'000, 100));
  expect_invariant_error([] { poisson_schedule(0.001, 1, 1'000'000'000, 5'000'000'000, 100); },
                         "a level of about 100000 s");
}

}  // namespace
}  // namespace fmwork
