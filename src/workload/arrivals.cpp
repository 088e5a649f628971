// Seeded Poisson arrivals (arrivals.hpp).
#include "fmwork/workload/arrivals.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "fmwork/base/error.hpp"

namespace fmwork {

double expected_level_seconds(double rate_per_s, double warmup_s, double duration_s, int64_t min_queries) {
  return warmup_s + std::max(duration_s, static_cast<double>(min_queries) / rate_per_s);
}

double highest_level_rate(double warmup_s, double duration_s, int64_t min_queries) {
  const double room = static_cast<double>(kMaxServeQueries) * kScheduleRoom - static_cast<double>(min_queries);
  return warmup_s + duration_s > 0 ? std::min(kMaxArrivalRate, room / (warmup_s + duration_s)) : kMaxArrivalRate;
}

namespace {

// A seeded 64-bit generator with the same sequence on every machine and library (std::mt19937_64's
// distributions are not specified bit for bit): splitmix64.
class SeededDraws {
 public:
  explicit SeededDraws(uint64_t seed) : state_(seed) {}
  uint64_t next_u64() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1), 53 bits.
  double next_unit() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }
  // Exponential with mean 1 / rate (rate > 0): -log(1 - u) / rate.
  double next_exponential(double rate) { return -std::log1p(-next_unit()) / rate; }

 private:
  uint64_t state_;
};

// The plan's rate, held to what the options' readers admit (cli/serve_options): a runtime Error here is a caller's
// mistake, not the user's, so it names no option.
void expect_rate(double rate_per_s) {
  if (!(rate_per_s > 0) || !(rate_per_s <= kMaxArrivalRate))
    throw runtime_error(fmt::format("arrivals: a rate of {} queries/s is outside (0, {:g}]", rate_per_s, kMaxArrivalRate));
}

}  // namespace

std::vector<ServeNanos> poisson_arrivals(double rate_per_s, int64_t count, uint64_t seed) {
  expect_rate(rate_per_s);
  if (count < 0 || count > kMaxServeQueries)
    throw runtime_error(fmt::format("arrivals: {} queries is outside the 0 to {} a level schedules", count,
                                    kMaxServeQueries));
  SeededDraws draws(seed);
  std::vector<ServeNanos> times;
  times.reserve(static_cast<size_t>(count));
  double t = 0;  // seconds, summed in double: 2e6 gaps keep nanosecond resolution over hours
  for (int64_t i = 0; i < count; ++i) {
    t += draws.next_exponential(rate_per_s);
    times.push_back(static_cast<ServeNanos>(std::llround(t * 1e9)));
  }
  return times;
}

std::vector<ServeNanos> poisson_schedule(double rate_per_s, uint64_t seed, ServeNanos warmup, ServeNanos min_duration,
                                         int64_t min_queries) {
  expect_rate(rate_per_s);
  // Bounded before drawing (the expected count, with room for the draw's spread), as the options were.
  const double warmup_s = static_cast<double>(warmup) / 1e9, duration_s = static_cast<double>(min_duration) / 1e9;
  if (rate_per_s > highest_level_rate(warmup_s, duration_s, min_queries) ||
      expected_level_seconds(rate_per_s, warmup_s, duration_s, min_queries) > kMaxLevelSeconds)
    throw runtime_error(fmt::format("arrivals: a level at {:g} queries/s with these minimums is past the {} queries or "
                                    "{:g} s a level may take", rate_per_s, kMaxServeQueries, kMaxLevelSeconds));
  SeededDraws draws(seed);
  std::vector<ServeNanos> times;
  double t = 0;
  int64_t measured = 0;
  for (;;) {
    t += draws.next_exponential(rate_per_s);
    const auto at = static_cast<ServeNanos>(std::llround(t * 1e9));
    if (static_cast<int64_t>(times.size()) >= kMaxServeQueries)
      throw runtime_error(fmt::format("arrivals: a level at {:g} queries/s drew more than the {} queries a level may "
                                      "hold", rate_per_s, kMaxServeQueries));
    times.push_back(at);
    if (at >= warmup && ++measured >= min_queries && at - warmup >= min_duration) break;
  }
  return times;
}

}  // namespace fmwork
