// The numbers of one combination's FMWORK STAT line, in the units the line writes. A header of its own so
// that stats (which computes them: stat_values() in stats.hpp) and log_format (which writes them:
// make_stat_line()) need not know each other.
#pragma once

#include <cstdint>

namespace fmwork {

// reps run and dropped as warm-up, then the kept durations' statistics in milliseconds. The members follow
// the order of STAT's fields (FMWORK_STAT_FIELDS in log_schema.hpp); its last, tokens_per_s, is no member:
// make_stat_line() computes it from the shape and p50_ms.
struct StatValues {
  int64_t reps = 0, dropped = 0;
  double mean_ms = 0, stddev_ms = 0, min_ms = 0, p50_ms = 0, p90_ms = 0, p99_ms = 0, max_ms = 0;
};

}  // namespace fmwork
