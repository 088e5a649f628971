// The noise and validity verdict of one combination (see verdicts.hpp for the thresholds and their sources).
#include "fmwork/log/verdicts.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <utility>

#include <fmt/format.h>

#include "fmwork/log/stats.hpp"

namespace fmwork {

namespace {

double mean_of(const std::vector<double>& values, size_t from, size_t to) {
  double sum = 0;
  for (size_t i = from; i < to; ++i) sum += values[i];
  return sum / static_cast<double>(to - from);
}

// The checks past their threshold, worst first kept in `word`.
struct Findings {
  VerdictWord word = VerdictWord::ok;
  std::string reason;
  void add(VerdictWord level, const std::string& why) {
    if (word == VerdictWord::ok || (word == VerdictWord::noisy && level == VerdictWord::unstable)) word = level;
    reason += (reason.empty() ? "" : "; ") + why;
  }
};

std::string percent(double x) { return fmt::format("{:.1f}%", x * 100); }

// One relative measure against its noisy and unstable thresholds.
void hold(Findings& f, std::optional<double> value, double noisy, double unstable, const char* name, bool signed_) {
  if (!value) return;
  const double size = std::fabs(*value);
  if (!(size > noisy)) return;  // NaN is not past a threshold: it says nothing
  const bool bad = size > unstable;
  f.add(bad ? VerdictWord::unstable : VerdictWord::noisy,
        fmt::format("{} {}{} > {}", name, signed_ && *value > 0 ? "+" : "", percent(*value),
                    percent(bad ? unstable : noisy)));
}

}  // namespace

std::string_view verdict_text(VerdictWord word) {
  switch (word) {
    case VerdictWord::ok: return "ok";
    case VerdictWord::noisy: return "noisy";
    case VerdictWord::unstable: return "unstable";
    case VerdictWord::too_few_reps: return "too-few-reps";
  }
  return "ok";
}

Spread spread_of_kept(const std::vector<double>& kept) {
  Spread s;
  s.kept = static_cast<int64_t>(kept.size());
  if (kept.empty()) return s;
  const double mean = mean_of(kept, 0, kept.size());
  double squares = 0;
  for (double d : kept) squares += (d - mean) * (d - mean);
  if (mean > 0) s.cov = std::sqrt(squares / static_cast<double>(kept.size())) / mean;
  const double p50 = percentile(kept, 50);
  if (p50 > 0) s.tail = percentile(kept, 90) / p50;
  if (kept.size() >= 4) {
    const size_t quarter = kept.size() / 4;
    const double first = mean_of(kept, 0, quarter), last = mean_of(kept, kept.size() - quarter, kept.size());
    if (first > 0) s.drift = last / first - 1;
  }
  return s;
}

Spread spread_of_durations(const std::vector<double>& durations, std::optional<size_t> dropped) {
  const size_t drop = durations.empty() ? 0 : std::min(dropped ? *dropped : warmup_reps(durations.size()), durations.size());
  return spread_of_kept(std::vector<double>(durations.begin() + static_cast<std::ptrdiff_t>(drop), durations.end()));
}

Spread spread_of_stat(const StatValues& v) {
  Spread s;
  s.kept = v.reps > v.dropped ? v.reps - v.dropped : 0;
  if (v.mean_ms > 0) s.cov = v.stddev_ms / v.mean_ms;
  if (v.p50_ms > 0) s.tail = v.p90_ms / v.p50_ms;
  return s;
}

Verdict judge(const Spread& spread) {
  Findings f;
  hold(f, spread.cov, kNoisyCov, kUnstableCov, "CoV", false);
  if (spread.tail) {
    // Compared as ratios, not as ratio - 1: 1.10 - 1 is a hair above 0.10 in binary.
    if (*spread.tail > 1 + kNoisyTail) {
      const bool bad = *spread.tail > 1 + kUnstableTail;
      f.add(bad ? VerdictWord::unstable : VerdictWord::noisy,
            fmt::format("p90/p50 {:.2f} > {:.2f}", *spread.tail, 1 + (bad ? kUnstableTail : kNoisyTail)));
    }
  }
  hold(f, spread.drift, kNoisyDrift, kUnstableDrift, "drift", true);
  if (spread.kept < kMinKeptReps) {
    // First: with so few reps the other numbers are not worth reading.
    const std::string why = fmt::format("{} kept rep{} < {}", spread.kept, spread.kept == 1 ? "" : "s", kMinKeptReps);
    f.word = VerdictWord::too_few_reps;
    f.reason = f.reason.empty() ? why : why + "; " + f.reason;
  }
  return Verdict{f.word, f.reason, spread};
}

NoteLine make_note_line(int64_t input, int64_t batch, const Verdict& verdict) {
  Fields fields;
  fields.add("input", input).add("batch", batch);
  fields.add("verdict", std::string(verdict_text(verdict.word))).add("kept", verdict.spread.kept);
  // A number the spread lacks is left out rather than written as a placeholder: readers take absent as unknown.
  if (verdict.spread.cov) fields.add("cov", *verdict.spread.cov, 4);
  if (verdict.spread.tail) fields.add("p90_p50", *verdict.spread.tail, 4);
  if (verdict.spread.drift) fields.add("drift", *verdict.spread.drift, 4);
  fields.add("reason", verdict.reason.empty() ? std::string("-") : verdict.reason);
  return NoteLine{std::move(fields)};
}

}  // namespace fmwork
