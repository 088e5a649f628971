// Whether one combination's timing can be trusted, decided in one place: from the durations of its kept reps
// (or, for a log with no REP lines, from its STAT numbers) the coefficient of variation, the upper tail
// p90/p50, the drift between the first and last quarter of the kept reps and their count, each held to a
// threshold, give a verdict word and the reason. The driver prints it as a NOTE line (make_note_line),
// `process` shows it in its summary, CSV and report. docs/log-lines.md ("NOTE") explains the thresholds.
//
// Thresholds, and what they are calibrated against:
// - kept reps < 5: too-few-reps. With fewer, the spread below is a guess (`--reps 2` keeps one rep: its
//   stddev is 0, which says nothing).
// - CoV = stddev / mean: noisy above 2.5 %, unstable above 10 %. trtexec warns "GPU compute time is
//   unstable" above a CoV of 1 % (kUNSTABLE_PERF_REPORTING_THRESHOLD in TensorRT's sampleReporting.cpp),
//   for a GPU with locked clocks; a CPU host's reps vary more, so noisy starts at 2.5 %.
// - p90 / p50 - 1: noisy above 10 %, unstable above 25 %: torch.utils.benchmark's thresholds for its
//   interquartile range over the median (_IQR_WARN_THRESHOLD 0.1, _IQR_GROSS_WARN_THRESHOLD 0.25), held
//   here to the upper tail, where a slow outlier shows (a STAT line has no p25 / p75).
// - drift = |mean(last quarter) / mean(first quarter) - 1| of the kept reps in run order: noisy above
//   2.5 %, unstable above 10 %, as CoV: a machine warming up or throttling moves the mean, not the spread.
// The verdict is the worst of the checks; too-few-reps comes before the others.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fmwork/log/log_format.hpp"
#include "fmwork/log/stat_values.hpp"

namespace fmwork {

inline constexpr int64_t kMinKeptReps = 5;
inline constexpr double kNoisyCov = 0.025, kUnstableCov = 0.10;
inline constexpr double kNoisyTail = 0.10, kUnstableTail = 0.25;   // p90/p50 - 1
inline constexpr double kNoisyDrift = 0.025, kUnstableDrift = 0.10;

enum class VerdictWord { ok, noisy, unstable, too_few_reps };
// "ok", "noisy", "unstable", "too-few-reps": the word NOTE's verdict= and the reports write.
std::string_view verdict_text(VerdictWord word);

// The numbers a verdict is made of. cov, tail and drift are nullopt where they cannot be computed: cov and
// tail with no kept rep or a mean / p50 that is not above 0, drift with fewer than 4 kept reps or from a
// STAT line (which keeps no order).
struct Spread {
  int64_t kept = 0;
  std::optional<double> cov, tail, drift;  // tail is p90 / p50 (a ratio, 1 for no tail)
};

// The spread of the kept durations in run order (any unit; the warm-up already dropped).
Spread spread_of_kept(const std::vector<double>& kept);
// The spread of all the durations of a combination, the first `dropped` (by default warmup_reps()) left
// out as the driver's summarize() leaves them: give it what was given to summarize().
Spread spread_of_durations(const std::vector<double>& durations, std::optional<size_t> dropped = std::nullopt);
// The spread a STAT line's numbers show: kept = reps - dropped (0 when negative), cov = stddev / mean, tail
// = p90 / p50; no drift.
Spread spread_of_stat(const StatValues& values);

struct Verdict {
  VerdictWord word = VerdictWord::ok;
  std::string reason;  // "" for ok; else each check past its threshold, "; " between them
  Spread spread;
};
// The verdict of a spread as the thresholds above say. Reasons read "CoV 41.20% > 10%", "p90/p50 18.70 >
// 1.25", "drift +12.0% > 10%", "1 kept rep < 5".
Verdict judge(const Spread& spread);

// FMWORK NOTE input= batch= verdict= kept= cov= p90_p50= drift= reason=: the verdict of one combination, for
// the person reading the log (upstream's process reads only ARG and RES). cov, p90_p50 and drift are
// written with 4 decimals, "-" where the spread has none; reason is free text to the end of the line, "-"
// for ok. `process` computes the verdict again from the REP / STAT lines and does not read this line.
NoteLine make_note_line(int64_t input, int64_t batch, const Verdict& verdict);

}  // namespace fmwork
