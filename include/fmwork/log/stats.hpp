// Statistics of the rep durations of one combination, with upstream's warm-up rule.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "fmwork/log/stat_values.hpp"

namespace fmwork {

// Upstream's warm-up rule: the first max(int(0.2 * reps), 1) reps are dropped before the median.
size_t warmup_reps(size_t reps);

// Median as numpy computes it ((a + b) / 2 of the two middle values for an even count). Throws a runtime
// Error for an empty input.
double median(std::vector<double> values);

// Percentile q in [0, 100] with linear interpolation between closest ranks (numpy's default method
// 'linear', including its _lerp rounding). Throws a runtime Error for an empty input or q out of range.
double percentile(std::vector<double> values, double q);

// Summary of the durations (seconds) after dropping the first `dropped` from the front: by default
// warmup_reps(durations.size()), upstream's rule; a count given (--warmup N, ours) must leave at least one.
// Give the durations as upstream computes them, double(t1 - t0) / 1e9 from integer nanoseconds, and
// `median` is bit for bit upstream's. stddev is the population standard deviation (numpy's np.std);
// mean and stddev sum in order (numpy sums pairwise: they may differ in the last bits). p50/p90/p99 use
// percentile() on the kept durations. Throws a runtime Error when durations.size() < 2 or when `dropped`
// leaves no duration.
struct Summary {
  size_t reps = 0, dropped = 0;
  double median = 0, mean = 0, stddev = 0, min = 0, max = 0, p50 = 0, p90 = 0, p99 = 0;
};
Summary summarize(const std::vector<double>& durations, std::optional<size_t> dropped = std::nullopt);

// The numbers the RES and STAT lines write, computed here so that log_format only formats them. The
// expressions are upstream's, evaluated in the same order, so that the text is bit for bit upstream's.
// Seconds to milliseconds: seconds * 1000.0.
double milliseconds(double seconds);
// RES's latency: median * 1000.0 ('%.3f' % (med * 1000.0) upstream).
double latency_ms(const Summary& summary);
// RES's throughput in sequences per second: batch / median ('%.1f' % (batch_size / med) upstream).
double throughput(const Summary& summary, int64_t batch);
// STAT's numbers: reps and dropped as they are, the statistics through milliseconds().
StatValues stat_values(const Summary& summary);

}  // namespace fmwork
