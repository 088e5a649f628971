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
//   max(2.5 %, 3 x CoV), unstable above max(10 %, 3 x CoV), as CoV: a machine warming up or throttling moves
//   the mean, not the spread. Scaled by the spread because two quarter means of reps that vary by CoV differ
//   by about that much by chance: a CoV of 1.1 % with a drift of -2.5 % is the reps' own scatter.
// - contended (cpu_use.hpp, STAT's cpu fields): the process did not get the CPU it asked for while its reps
//   ran: its threads waited on a run queue over 10 % of wall x threads, or the hypervisor stole over 10 % of
//   the machine's CPU, or (where the kernel gives no run-queue wait) its CPU time was under 0.8 x wall x
//   threads while some task waited for a CPU over 20 % of the time. Such reps can be steady and wrong (3x
//   slow with a CoV under 1 %): no spread check sees it.
// - implausible (implausible_reason below): steady reps can still be wrong, and two facts of the same run
//   show it without the CPU counters: a combination that reached under half the GFLOP/s of an earlier one
//   of no more work (a larger GEMM is not half as efficient: the run lost speed midway), or a --profile rep,
//   run under the profiler's overhead, faster than the fastest timed rep by more than 1.25 + 3 CoV (the
//   timed reps were slowed by something outside the model).
// The verdict is contended when the CPU was taken (the cause is known), else implausible, else too-few-reps
// when the reps are too few, else the worst of the spread checks. Each reason ends with the likely cause and
// the next step.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fmwork/base/cpu_use.hpp"
#include "fmwork/log/log_format.hpp"
#include "fmwork/log/stat_values.hpp"

namespace fmwork {

inline constexpr int64_t kMinKeptReps = 5;
inline constexpr double kNoisyCov = 0.025, kUnstableCov = 0.10;
inline constexpr double kNoisyTail = 0.10, kUnstableTail = 0.25;   // p90/p50 - 1
inline constexpr double kNoisyDrift = 0.025, kUnstableDrift = 0.10;
inline constexpr double kDriftPerCov = 3;  // the drift limits are at least this many CoVs
inline constexpr double kContendedWait = 0.10, kContendedSteal = 0.10;
inline constexpr double kContendedCpuShare = 0.80, kContendedPressure = 0.20;  // together, without a wait
// At most this run-queue wait (wait_share), the process had its CPU: its spread is not blamed on other work taking
// the CPU (CPU pressure past kContendedPressure still shows other work beside it).
inline constexpr double kHadCpuWait = 0.02;
inline constexpr double kImplausibleRateDrop = 2;      // an earlier combination of no more work, this much faster
inline constexpr double kImplausibleProfileGap = 1.25;  // + 3 CoV: the profiled rep this much under the timed min

enum class VerdictWord { ok, noisy, unstable, too_few_reps, contended, implausible };
// "ok", "noisy", "unstable", "too-few-reps", "contended", "implausible": the word NOTE's verdict= and the
// reports write.
std::string_view verdict_text(VerdictWord word);

// The numbers a verdict is made of. cov, tail and drift are nullopt where they cannot be computed: cov and
// tail with no kept rep or a mean / p50 that is not above 0, drift with fewer than 4 kept reps or from a
// STAT line (which keeps no order).
struct Spread {
  int64_t kept = 0;
  std::optional<double> cov, tail, drift;  // tail is p90 / p50 (a ratio, 1 for no tail)
  // Of the durations at equal work (equal_work_spread below): reps of mixed lengths, each brought to the kept
  // reps' mean work. The reasons and the hint say so.
  bool equal_work = false;
};

// The spread of the kept durations in run order (any unit; the warm-up already dropped).
Spread spread_of_kept(const std::vector<double>& kept);
// The spread of all the durations of a combination, the first `dropped` (by default warmup_reps()) left
// out as the driver's summarize() leaves them: give it what was given to summarize().
Spread spread_of_durations(const std::vector<double>& durations, std::optional<size_t> dropped = std::nullopt);
// The spread a STAT line's numbers show: kept = reps - dropped (0 when negative), cov = stddev / mean, tail
// = p90 / p50; no drift.
Spread spread_of_stat(const StatValues& values);

// What one kept rep of mixed lengths (--input_lengths) computed, what its duration grows with: `tokens`, the
// tokens the model ran (padded and sorted: batch x the length the batch was padded to; unpadded: the real ones),
// and `pairs`, attention's token pairs (each sequence's computed length squared, summed).
struct RepWork {
  double tokens = 0, pairs = 0;
};

// The kept durations brought to equal work. Each rep of a mixed-length run draws other lengths, so its
// durations spread by the draws as much as by the machine (a quiet machine's run was always `unstable`). By
// least squares, duration = c + a x tokens (+ b x pairs) over the kept reps; each duration less the part its
// work explains, d - a (tokens - mean) - b (pairs - mean), is the rep at the mean work; its residual is scaled
// by sqrt((n - 1) / (n - 1 - terms)) so that the fitted terms do not take the noise's variance with them. A
// fixed overhead (a small model's launch, the pooler) is the intercept, not a cost per token: time per token
// would spread with it. `pairs` is used where it does not move with `tokens` (correlation^2 < 0.999) and with 8
// kept reps or more, `tokens` with 4 or more.
struct EqualWork {
  Spread spread;          // of the durations at equal work (equal_work true); drift in run order
  double explained = 0;   // the share of the kept durations' variance the work explains (R^2, 0 to 1)
  int terms = 0;          // 1: tokens; 2: tokens and pairs
};
// nullopt where the work does not vary over the kept reps (one fixed length, unpadded or not) or there are too
// few of them: the durations' own spread stands. `kept` and `work` have one entry per kept rep, in run order.
std::optional<EqualWork> equal_work_spread(const std::vector<double>& kept, const std::vector<RepWork>& work);
// The spread a STAT line's equal-work fields hold (work_cov, work_p90_p50, work_drift; kept = reps - dropped),
// equal_work true; nullopt without work_cov. The driver judges from the fields it wrote, as `process` does,
// so that the NOTE line and process's verdict agree to the last digit.
std::optional<Spread> equal_work_spread_of_stat(const Fields& stat);

// What the run-queue wait is a share of. `wall`: wall x threads, for work that keeps its threads busy (a
// combination's reps). `wanted`: the time the threads wanted a CPU (ran or waited), once the wait is above
// kContendedTraceWait of wall x threads: work that idles between bursts (a serving level below saturation)
// waits little of the wall time however long each burst waited for a core (a neighbour doubled a level's p50
// at wait_share 0.07), and a nearly idle one's trace of waiting says nothing.
enum class WaitShareOf { wall, wanted };
inline constexpr double kContendedTraceWait = 0.01;

// Why the process did not get its CPU, as the thresholds above say ("threads waited for a CPU 48.1% of the
// time > 10.0%", with `wanted` "... of the time they wanted one > 10.0%"); "" when it did or nothing measured
// says otherwise.
std::string contention_reason(const CpuUse& use, WaitShareOf of = WaitShareOf::wall);

// The CPU shares a STAT line holds (cpu_share, wait_share, cpu_pressure, steal_share); nullopt when it has none.
std::optional<CpuUse> cpu_use_of(const Fields& stat);

// What the plausibility checks read of one combination: its shape and STAT's numbers (each absent where the
// line has none).
struct RunPoint {
  int64_t input = 0, batch = 0;
  std::optional<double> flops, gflops, min_ms, cov, profile_ms;
};
// STAT's numbers as a RunPoint: flops, gflops, min_ms, profile_ms, and cov = stddev_ms / mean_ms.
RunPoint run_point_of(int64_t input, int64_t batch, const Fields& stat);
// Why `point` cannot be what this model runs at here, judged against the same run's `earlier` combinations
// (the thresholds above); "" when nothing says so. Reasons read "gflops 12.3 < half of input 64 batch 1's
// 40.1, with no more work" and "the --profile rep took 963.000 ms, under the fastest timed rep's 2676.000 ms
// / 1.25".
std::string implausible_reason(const RunPoint& point, const std::vector<RunPoint>& earlier);

struct Verdict {
  VerdictWord word = VerdictWord::ok;
  std::string reason;  // "" for ok; else each check past its threshold, "; " between them
  std::string hint;    // "" for ok; else the likely cause and the next step ("cause: ...; next: ...")
  Spread spread;
  // What NOTE's reason= and the reports show: the reason, then " -- " and the hint; "" for ok.
  std::string explained() const;
};
// The verdict of a spread (and of the CPU the process got, where measured, and implausible_reason()'s text)
// as the thresholds above say. Reasons read "CoV 41.20% > 10%", "p90/p50 18.70 > 1.25", "drift +12.0% > 10%",
// "1 kept rep < 5", "threads waited for a CPU 48.1% of the time > 10.0%" (contended).
Verdict judge(const Spread& spread, const std::optional<CpuUse>& cpu = std::nullopt,
              const std::string& implausible = "");

// FMWORK NOTE input= batch= verdict= kept= cov= p90_p50= drift= reason=: the verdict of one combination, for
// the person reading the log (upstream's process reads only ARG and RES). cov, p90_p50 and drift are
// written with 4 decimals, left out where the spread has none; reason (Verdict::explained()) is free text to
// the end of the line, "-" for ok. `process` computes the verdict again from the REP / STAT lines and does not read this line.
NoteLine make_note_line(int64_t input, int64_t batch, const Verdict& verdict);

}  // namespace fmwork
