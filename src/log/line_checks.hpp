// The checks of one FMWORK line's fields against each other, for the reader (log_records.cpp): a line whose
// numbers contradict each other is no driver's, and a report built on it would quote figures nobody measured.
// Each field alone has already been checked against its table (log_rules.hpp). Private to src/log/.
#pragma once

#include <string>

#include "fmwork/log/log_format.hpp"

namespace fmwork::line_checks {

// Why `line` contradicts itself ("p50_ms=9 is above p99_ms=1: percentiles rise with the percent"), or "" when
// it does not. The rules hold for every line a driver writes, rounding included (each value rounded alike):
// a latency's percentiles rise with the percent, min <= p50 and the last <= max (STAT, SERVE); a CAPACITY's
// contended_levels is at most its steps, timing=ok has none, and the capacity lies below the lowest rate that
// failed; an INTERRUPT's complete combinations are fewer than its combinations.
std::string contradiction(const LogLine& line);

}  // namespace fmwork::line_checks
