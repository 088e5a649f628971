// When the queries of a serving run arrive: a seeded Poisson process at a target rate (the open loop,
// MLPerf LoadGen's Server scenario), drawn whole before the run so that the generator never waits on the
// model. The closed loop (N users, each sending its next query when the last one is answered) has no
// schedule to draw: serve_loop.hpp schedules each user's next query at its previous one's answer.
#pragma once

#include <cstdint>
#include <vector>

namespace fmwork {

// Integer nanoseconds from the start of a serving run (the same unit as log_format's Nanos).
using ServeNanos = int64_t;

// The most queries one load level may schedule: each costs a few dozen bytes of bookkeeping and its
// latency, so the bound keeps a typo (--rates 1e9) from asking for gigabytes.
constexpr int64_t kMaxServeQueries = 2'000'000;

// A seeded 64-bit generator with the same sequence on every machine and library (std::mt19937_64's
// distributions are not specified bit for bit): splitmix64.
class SeededDraws {
 public:
  explicit SeededDraws(uint64_t seed) : state_(seed) {}
  uint64_t next_u64();
  // Uniform in [0, 1), 53 bits.
  double next_unit();
  // Exponential with mean 1 / rate (rate > 0): -log(1 - u) / rate.
  double next_exponential(double rate);

 private:
  uint64_t state_;
};

// The arrival times of `count` queries of a Poisson process of `rate_per_s` queries a second (> 0),
// from time 0: the first arrives after one exponential gap, each next one gap later; non-decreasing.
// Throws a usage Error for a rate that is not a positive finite number or a count out of [0, kMaxServeQueries].
std::vector<ServeNanos> poisson_arrivals(double rate_per_s, int64_t count, uint64_t seed);

// The schedule of an open-loop level: Poisson arrivals at `rate_per_s` drawn (as poisson_arrivals draws them,
// the same seed giving the same times) until both minimums of the measured part hold (LoadGen's rule): the
// arrivals from `warmup` on span at least `min_duration` and number at least `min_queries`. The warm-up's
// arrivals come first. A usage Error naming --rates when that would pass kMaxServeQueries, or for a rate that
// is not a positive finite number.
std::vector<ServeNanos> poisson_schedule(double rate_per_s, uint64_t seed, ServeNanos warmup, ServeNanos min_duration,
                                         int64_t min_queries);

}  // namespace fmwork
