// The latency percentiles of a load level and the bound a capacity search holds them to.
// Percentiles are numpy's default (method 'linear': the virtual index (n - 1) x q / 100 between the two
// closest ranks, interpolated), computed by log/stats.hpp's percentile(), the driver's one definition: the
// same numbers numpy.percentile gives on the same values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fmwork {

// p50 / p90 / p99 / p99.9 / max and the mean of the latencies (milliseconds); for none, count 0 and the figures
// 0 as placeholders: no writer shows them then (measured() is false; make_serve_line leaves them out).
struct LatencySummary {
  int64_t count = 0;
  double mean_ms = 0, p50_ms = 0, p90_ms = 0, p99_ms = 0, p999_ms = 0, max_ms = 0;
  bool measured() const { return count > 0; }
};

// The summary of `latencies_ms` (any order).
LatencySummary summarize_latencies(const std::vector<double>& latencies_ms);

// "p99:50": the 99th percentile of the latencies at most 50 ms. The percentile is p followed by a number
// in (0, 100] (p50, p90, p99, p99.9, p100 = the maximum); the milliseconds a positive finite number.
struct LatencyBound {
  double percentile = 99;
  double ms = 0;
  std::string text;  // as given, "p99:50": the label of log lines and messages
};

// Parses `text` given to `option` ("--latency_bound"); a usage Error naming the option and the accepted form
// for anything else ("p99", "p0:5", "p101:5", "p99:-1", "p99:abc", "99:50").
LatencyBound parse_latency_bound(const std::string& text, const std::string& option);

// The value of `bound`'s percentile over `latencies_ms` (numpy's linear); nullopt for none: a latency that was
// not measured is no number, never 0.
std::optional<double> bound_percentile(const std::vector<double>& latencies_ms, const LatencyBound& bound);

}  // namespace fmwork
