// `process --compare A B`: the results of two sets of logs side by side, per matching combination, with a
// flag where the change is within the runs' own spread. No LibTorch here.
#pragma once

#include <string>
#include <vector>

#include "fmwork/log_records.hpp"

namespace fmwork {

// A table, one row per combination found in both: the key (the campaign's run_id label when the logs have
// one, else model, class and precision; then input and batch), A's and B's latency (RES median, ms), the
// ratio B/A of latency and of throughput, and `noise` when |B - A| is within the combined spread: the root
// of the sum of squares of both STAT stddev_ms ("?" when a side has no STAT line). Then a line counting the
// combinations found on one side only.
std::string compare_report(const std::vector<ParsedLog>& a, const std::vector<ParsedLog>& b);

}  // namespace fmwork
