// Statistics of rep durations, computed as numpy computes them (see stats.hpp).
#include "fmwork/log/stats.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "fmwork/base/error.hpp"

namespace fmwork {

size_t warmup_reps(size_t reps) {
  // Upstream: int(max(0.2 * len(dts), 1)), evaluated in the same order.
  return static_cast<size_t>(std::max(0.2 * static_cast<double>(reps), 1.0));
}

double median(std::vector<double> values) {
  if (values.empty()) throw runtime_error("median of no values");
  const size_t n = values.size();
  const size_t mid = n / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
  const double upper = values[mid];
  if (n % 2 == 1) return upper;
  const double lower = *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid));
  return (lower + upper) / 2.0;  // np.mean of the two middle values
}

namespace {

// numpy's percentile, method 'linear', on sorted values: virtual index (n - 1) * q / 100, then _lerp.
double percentile_sorted(const std::vector<double>& sorted, double q) {
  const size_t n = sorted.size();
  const double index = static_cast<double>(n - 1) * (q / 100.0);
  const double below = std::floor(index);
  size_t lo = static_cast<size_t>(below);
  if (lo > n - 1) lo = n - 1;
  const size_t hi = std::min(lo + 1, n - 1);
  const double t = index - below;
  const double a = sorted[lo], b = sorted[hi];
  const double diff = b - a;
  // numpy's _lerp: a + diff * t, or b - diff * (1 - t) when t >= 0.5 (more accurate near b).
  return t >= 0.5 ? b - diff * (1.0 - t) : a + diff * t;
}

void check_q(double q) {
  if (!(q >= 0.0 && q <= 100.0)) throw runtime_error("percentile must be in [0, 100], got " + std::to_string(q));
}

}  // namespace

double percentile(std::vector<double> values, double q) {
  if (values.empty()) throw runtime_error("percentile of no values");
  check_q(q);
  std::sort(values.begin(), values.end());
  return percentile_sorted(values, q);
}

Summary summarize(const std::vector<double>& durations, std::optional<size_t> dropped) {
  if (durations.size() < 2) {
    throw runtime_error("statistics need at least 2 reps (the first max(int(0.2 * reps), 1) are dropped as warm-up), got " +
                        std::to_string(durations.size()));
  }
  Summary s;
  s.reps = durations.size();
  s.dropped = dropped ? *dropped : warmup_reps(s.reps);
  if (s.dropped >= s.reps)
    throw runtime_error("statistics need at least one rep after the " + std::to_string(s.dropped) +
                        " dropped as warm-up, got " + std::to_string(s.reps) + " reps");
  std::vector<double> kept(durations.begin() + static_cast<std::ptrdiff_t>(s.dropped), durations.end());
  s.median = median(kept);

  double sum = 0;
  for (double d : kept) sum += d;
  const double n = static_cast<double>(kept.size());
  s.mean = sum / n;
  double squares = 0;
  for (double d : kept) squares += (d - s.mean) * (d - s.mean);
  s.stddev = std::sqrt(squares / n);  // population (ddof = 0), like np.std

  std::sort(kept.begin(), kept.end());
  s.min = kept.front();
  s.max = kept.back();
  s.p50 = percentile_sorted(kept, 50);
  s.p90 = percentile_sorted(kept, 90);
  s.p99 = percentile_sorted(kept, 99);
  return s;
}

double milliseconds(double seconds) { return seconds * 1000.0; }

double latency_ms(const Summary& summary) { return milliseconds(summary.median); }

double throughput(const Summary& summary, int64_t batch) { return static_cast<double>(batch) / summary.median; }

StatValues stat_values(const Summary& s) {
  StatValues v;
  v.reps = static_cast<int64_t>(s.reps);
  v.dropped = static_cast<int64_t>(s.dropped);
  v.mean_ms = milliseconds(s.mean);
  v.stddev_ms = milliseconds(s.stddev);
  v.min_ms = milliseconds(s.min);
  v.p50_ms = milliseconds(s.p50);
  v.p90_ms = milliseconds(s.p90);
  v.p99_ms = milliseconds(s.p99);
  v.max_ms = milliseconds(s.max);
  return v;
}

}  // namespace fmwork
