// Latency percentiles and the latency bound (latency_stats.hpp).
#include "fmwork/workload/latency_stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "fmwork/base/error.hpp"
#include "fmwork/base/text_format.hpp"
#include "fmwork/log/stats.hpp"

namespace fmwork {

LatencySummary summarize_latencies(const std::vector<double>& latencies_ms) {
  LatencySummary s;
  s.count = static_cast<int64_t>(latencies_ms.size());
  if (latencies_ms.empty()) return s;
  std::vector<double> sorted = latencies_ms;
  std::sort(sorted.begin(), sorted.end());
  s.mean_ms = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(sorted.size());
  // percentile() sorts its own copy; the values are sorted already, so each call is linear.
  s.p50_ms = percentile(sorted, 50);
  s.p90_ms = percentile(sorted, 90);
  s.p99_ms = percentile(sorted, 99);
  s.p999_ms = percentile(sorted, 99.9);
  s.max_ms = sorted.back();
  return s;
}

LatencyBound parse_latency_bound(const std::string& text, const std::string& option) {
  const std::string form = " expects pQ:MS, a percentile of the latency and its bound in milliseconds, like p99:50 "
                           "(Q from above 0 to 100: p50, p90, p99, p99.9); got '" + excerpt(text) + "'";
  const size_t colon = text.find(':');
  if (text.size() < 4 || text[0] != 'p' || colon == std::string::npos) throw usage_error(option + form);
  const std::optional<double> q_read = parse_decimal(text.substr(1, colon - 1));  // the serving options' one reader
  const std::optional<double> ms_read = parse_decimal(text.substr(colon + 1));
  if (!q_read || !ms_read) throw usage_error(option + form);
  const double q = *q_read, ms = *ms_read;
  if (!(q > 0 && q <= 100))
    throw usage_error(option + " " + excerpt(text) + ": the percentile must be above 0 and at most 100 (p99, p99.9)");
  if (!(ms > 0) || !std::isfinite(ms))
    throw usage_error(option + " " + excerpt(text) + ": the bound must be a positive number of milliseconds");
  return LatencyBound{q, ms, text};
}

std::optional<double> bound_percentile(const std::vector<double>& latencies_ms, const LatencyBound& bound) {
  if (latencies_ms.empty()) return std::nullopt;
  return percentile(latencies_ms, bound.percentile);
}

}  // namespace fmwork
