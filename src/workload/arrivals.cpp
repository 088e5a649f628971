// Seeded Poisson arrivals (arrivals.hpp).
#include "fmwork/workload/arrivals.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "fmwork/base/error.hpp"

namespace fmwork {

uint64_t SeededDraws::next_u64() {
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

double SeededDraws::next_unit() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

double SeededDraws::next_exponential(double rate) { return -std::log1p(-next_unit()) / rate; }

std::vector<ServeNanos> poisson_arrivals(double rate_per_s, int64_t count, uint64_t seed) {
  if (!(rate_per_s > 0) || !std::isfinite(rate_per_s))
    throw usage_error(fmt::format("an arrival rate must be a positive number of queries a second, got {}", rate_per_s));
  if (count < 0 || count > kMaxServeQueries)
    throw usage_error(fmt::format("{} queries is out of range: a load level schedules 0 to {}", count, kMaxServeQueries));
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
  if (!(rate_per_s > 0) || !std::isfinite(rate_per_s))
    throw usage_error(fmt::format("--rates {}: a rate must be a positive number of queries a second", rate_per_s));
  // Bounded before drawing: the expected count, with room for the draw's spread.
  const double expected = rate_per_s * static_cast<double>(warmup + min_duration) / 1e9 + static_cast<double>(min_queries);
  if (!(expected <= static_cast<double>(kMaxServeQueries) * 0.9))
    throw usage_error(fmt::format("--rates {:g}: warm-up and the minimum duration would schedule about {:.0f} queries, "
                                  "more than the {} a level may hold; give a lower rate or a shorter --duration_s",
                                  rate_per_s, expected, kMaxServeQueries));
  SeededDraws draws(seed);
  std::vector<ServeNanos> times;
  double t = 0;
  int64_t measured = 0;
  for (;;) {
    t += draws.next_exponential(rate_per_s);
    const auto at = static_cast<ServeNanos>(std::llround(t * 1e9));
    if (static_cast<int64_t>(times.size()) >= kMaxServeQueries)
      throw usage_error(fmt::format("--rates {:g}: the level would schedule more than {} queries; give a lower rate or "
                                    "a shorter --duration_s", rate_per_s, kMaxServeQueries));
    times.push_back(at);
    if (at >= warmup && ++measured >= min_queries && at - warmup >= min_duration) break;
  }
  return times;
}

}  // namespace fmwork
