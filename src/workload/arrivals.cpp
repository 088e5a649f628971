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

void check_arrival_rate(double rate_per_s, const std::string& option) {
  if (!(rate_per_s > 0) || !(rate_per_s <= kMaxArrivalRate))
    throw usage_error(fmt::format("{} {}: a rate must be a number of queries a second above 0 and at most {:g}",
                                  option, rate_per_s, kMaxArrivalRate));
}

double expected_level_seconds(double rate_per_s, double warmup_s, double duration_s, int64_t min_queries) {
  return warmup_s + std::max(duration_s, static_cast<double>(min_queries) / rate_per_s);
}

namespace {

// A rate for a message, at 4 significant digits rounded away from the bound it must pass (up for a lowest rate,
// down for a highest), after a 1e-4 margin: a figure the message gives is one the check takes. Rounding to the
// nearest ("{:.4g}") gave 3e+05 for a highest rate of 299953.
double rate_to_give(double rate, bool up) {
  const double margined = up ? rate * 1.0001 : rate * 0.9999;
  const double unit = std::pow(10.0, std::floor(std::log10(margined)) - 3);
  return (up ? std::ceil(margined / unit) : std::floor(margined / unit)) * unit;
}

}  // namespace

double highest_level_rate(double warmup_s, double duration_s, int64_t min_queries) {
  const double room = static_cast<double>(kMaxServeQueries) * kScheduleRoom - static_cast<double>(min_queries);
  return warmup_s + duration_s > 0 ? std::min(kMaxArrivalRate, room / (warmup_s + duration_s)) : kMaxArrivalRate;
}

void check_level_length(const std::string& option, double rate_per_s, double warmup_s, double duration_s,
                        int64_t min_queries) {
  if (warmup_s + duration_s > kMaxLevelSeconds)
    throw usage_error(fmt::format("--warmup_s {:g} and --duration_s {:g} make every level last at least {:g} s, past "
                                  "the {:g} s a level may last; give them at most {:g} s together",
                                  warmup_s, duration_s, warmup_s + duration_s, kMaxLevelSeconds, kMaxLevelSeconds));
  // Too many queries: a high rate over the warm-up and the minimum duration. Checked for every level before the
  // first one runs (a list's last rate was refused only once the levels before it had run).
  const double highest = highest_level_rate(warmup_s, duration_s, min_queries);
  if (rate_per_s > highest)
    throw usage_error(fmt::format("{} {:g}: warm-up and the minimum duration would schedule about {:.0f} queries, more "
                                  "than the {} a level may hold; give a rate of at most {:g} queries/s, or a shorter "
                                  "--warmup_s or --duration_s", option, rate_per_s,
                                  rate_per_s * (warmup_s + duration_s) + static_cast<double>(min_queries),
                                  kMaxServeQueries, rate_to_give(highest, false)));
  // Too long: a low rate waiting for --min_queries queries.
  const double seconds = expected_level_seconds(rate_per_s, warmup_s, duration_s, min_queries);
  if (seconds <= kMaxLevelSeconds) return;
  const double window = kMaxLevelSeconds - warmup_s;  // > 0: the first check holds warm-up below the bound
  const double slowest = static_cast<double>(min_queries) / window;
  // A lower --min_queries helps only down to 1 query: below 1 / window queries/s no minimum fits, and saying
  // "or a lower --min_queries" there pointed the wrong way.
  const auto fitting_minimum = static_cast<int64_t>(std::floor(rate_per_s * window));
  const std::string or_fewer =
      fitting_minimum >= 1 ? fmt::format(", or --min_queries {} or fewer", fitting_minimum) : std::string();
  throw usage_error(fmt::format("{} {:g}: a level at {:g} queries/s takes about {:.0f} s to hold --min_queries {}, "
                                "past the {:g} s a level may last; give a rate of at least {:g} queries/s{}", option,
                                rate_per_s, rate_per_s, seconds, min_queries, kMaxLevelSeconds, rate_to_give(slowest, true),
                                or_fewer));
}

std::vector<ServeNanos> poisson_arrivals(double rate_per_s, int64_t count, uint64_t seed) {
  check_arrival_rate(rate_per_s);
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
  check_arrival_rate(rate_per_s);
  // Bounded before drawing (the expected count, with room for the draw's spread), as the options were.
  check_level_length("--rates", rate_per_s, static_cast<double>(warmup) / 1e9, static_cast<double>(min_duration) / 1e9,
                     min_queries);
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
