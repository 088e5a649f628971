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

// The highest arrival rate a level takes (queries a second), and the longest a level may last: a level lasts
// its warm-up and then until both minimums hold, so a slow rate with a query minimum (--rates 0.0001 with 100
// queries: 11 days) would run for days with nothing to show; an hour is past any useful level.
constexpr double kMaxArrivalRate = 1e6;
constexpr double kMaxLevelSeconds = 3600;

// About how long an open level at `rate_per_s` lasts: the warm-up, then the longer of the minimum duration and
// the time its arrivals take to reach `min_queries` (their expected count).
double expected_level_seconds(double rate_per_s, double warmup_s, double duration_s, int64_t min_queries);

// The share of kMaxServeQueries a level's expected count may take: the rest is room for the draw's spread.
constexpr double kScheduleRoom = 0.9;

// The highest rate a level with these minimums may run at: at most kMaxArrivalRate, and low enough that its
// expected queries (the rate over the warm-up and the minimum duration, plus min_queries) stay within
// kScheduleRoom of kMaxServeQueries. What the capacity search doubles up to.
double highest_level_rate(double warmup_s, double duration_s, int64_t min_queries);

// The arrival times of `count` queries of a Poisson process of `rate_per_s` queries a second (> 0),
// from time 0: the first arrives after one exponential gap, each next one gap later; non-decreasing.
// A rate outside (0, kMaxArrivalRate] or a count outside [0, kMaxServeQueries] is the caller's mistake: a runtime
// Error (the command line's values are checked by cli/serve_options before any level is planned).
std::vector<ServeNanos> poisson_arrivals(double rate_per_s, int64_t count, uint64_t seed);

// The schedule of an open-loop level: Poisson arrivals at `rate_per_s` drawn (as poisson_arrivals draws them,
// the same seed giving the same times) until both minimums of the measured part hold (LoadGen's rule): the
// arrivals from `warmup` on span at least `min_duration` and number at least `min_queries`. The warm-up's
// arrivals come first. The plan must be one the options admit (cli/serve_options holds every level to these
// bounds before any runs): a rate outside (0, kMaxArrivalRate], above highest_level_rate, or whose level would
// last past kMaxLevelSeconds, or a draw past kMaxServeQueries all the same, is a runtime Error naming no option.
std::vector<ServeNanos> poisson_schedule(double rate_per_s, uint64_t seed, ServeNanos warmup, ServeNanos min_duration,
                                         int64_t min_queries);

}  // namespace fmwork
