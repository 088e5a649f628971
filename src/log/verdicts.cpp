// The noise and validity verdict of one combination (see verdicts.hpp for the thresholds and their sources).
#include "fmwork/log/verdicts.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>

#include <fmt/format.h>

#include "fmwork/log/log_values.hpp"
#include "fmwork/log/stats.hpp"

namespace fmwork {

namespace {

double mean_of(const std::vector<double>& values, size_t from, size_t to) {
  double sum = 0;
  for (size_t i = from; i < to; ++i) sum += values[i];
  return sum / static_cast<double>(to - from);
}

// The checks past their threshold, worst first kept in `word`; what kind of trouble each was, for the hint.
struct Findings {
  VerdictWord word = VerdictWord::ok;
  std::string reason;
  bool spread = false, slowing = false, speeding = false;
  void add(VerdictWord level, const std::string& why) {
    if (word == VerdictWord::ok || (word == VerdictWord::noisy && level == VerdictWord::unstable)) word = level;
    reason += (reason.empty() ? "" : "; ") + why;
  }
};

// The spread's likely cause, blaming other work only on the counters' evidence: a process whose threads had the
// CPU (STAT's wait_share at most kHadCpuWait) did not lose it to other work; other tasks waiting for a CPU
// (cpu_pressure past kContendedPressure) show other work running beside it, sharing caches and memory; neither
// is the machine's own variation. Reps at equal work (mixed lengths) vary beyond what their draws explain.
std::string spread_cause(const Spread& spread, const std::optional<CpuUse>& cpu) {
  const std::string what = spread.equal_work ? "the reps vary beyond what their drawn lengths explain" : "the reps vary";
  const std::string model = spread.equal_work ? ", a model whose time is not linear in tokens" : "";
  if (!cpu || !cpu->wait_share || !(*cpu->wait_share <= kHadCpuWait))
    return what + " (other work on the machine, threads moving between cores" + model + ")";
  const std::string had = fmt::format("{}, though the process had its CPU (threads waited for one {:.1f}% of the time)",
                                      what, *cpu->wait_share * 100);
  if (cpu->pressure && *cpu->pressure > kContendedPressure)
    return fmt::format("{} while other work ran (CPU pressure {:.1f}%): that work's share of caches and memory, threads "
                       "moving between cores, frequency changes{}", had, *cpu->pressure * 100, model);
  if (cpu->pressure)
    return fmt::format("{} on a quiet machine (CPU pressure {:.1f}%): not other work, but threads moving between cores, "
                       "frequency changes, memory{}", had, *cpu->pressure * 100, model);
  return had + ": not other work taking the CPU, but threads moving between cores, frequency changes, memory" + model;
}

// The likely cause of each kind of finding and what to do next, in words a user can act on. A contended run's
// other findings are the contention's doing: its hint alone.
std::string hint_of(const Findings& f, bool contended, bool implausible, bool few, const std::string& spread_why,
                    const CpuUse* cpu) {
  std::string hint;
  const auto add = [&](const char* cause, const char* next) {
    hint += fmt::format("{}cause: {}; next: {}", hint.empty() ? "" : "; ", cause, next);
  };
  // More threads than CPUs wait for each other on a quiet machine too: the run's own doing.
  const std::string own = cpu && cpu->oversubscribed()
                              ? fmt::format("the run asked for {} threads on {} CPUs, so its own threads waited for each "
                                            "other (other work may have too)", cpu->threads, cpu->cpus)
                              : "";
  const std::string fewer = cpu && cpu->oversubscribed()
                                ? fmt::format("ask for at most {} threads (--torch.call:set_num_threads@ {})", cpu->cpus,
                                              cpu->cpus)
                                : "";
  if (contended && !own.empty()) add(own.c_str(), fewer.c_str());
  else if (contended)
    add("other work held the CPU while the reps ran",
        "rerun on a quiet machine, or ask for fewer threads than the free cores (--torch.call:set_num_threads@N)");
  if (implausible)
    add("the reps ran slower than this model runs here, steadily (a neighbour holding a core for the whole run, a "
        "frequency drop), which their spread does not show",
        "rerun on a quiet machine, or each combination alone (--isolate), and compare");
  if (few) add("too few reps to judge", "raise --reps so that 5 or more are kept after the warm-up");
  if (contended || implausible) return hint;
  if (f.speeding)
    add("the reps were still warming up (caches, allocator, lazy set-up)", "leave more first reps out (--warmup N)");
  if (f.slowing)
    add("the machine slowed while the reps ran (throttling, other work starting)", "a quiet machine, then more reps");
  if (f.spread)
    add(spread_why.c_str(), "more reps, a quiet machine, pinned threads (--torch.call:set_num_threads@N below the cores)");
  return hint;
}

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
    case VerdictWord::contended: return "contended";
    case VerdictWord::implausible: return "implausible";
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

namespace {

// Least squares of y on the centred columns x (one or two), by the normal equations: the coefficients, or
// nullopt where the columns do not determine them (no spread, or two columns that move together).
std::optional<std::vector<double>> fit(const std::vector<std::vector<double>>& x, const std::vector<double>& y) {
  const size_t n = y.size();
  const auto dot = [n](const std::vector<double>& a, const std::vector<double>& b) {
    double sum = 0;
    for (size_t i = 0; i < n; ++i) sum += a[i] * b[i];
    return sum;
  };
  if (x.size() == 1) {
    const double sxx = dot(x[0], x[0]);
    if (!(sxx > 0)) return std::nullopt;
    return std::vector<double>{dot(x[0], y) / sxx};
  }
  const double s11 = dot(x[0], x[0]), s22 = dot(x[1], x[1]), s12 = dot(x[0], x[1]);
  const double det = s11 * s22 - s12 * s12;
  // Two columns whose correlation^2 is 0.999 or more are one column twice: their split is the noise's.
  if (!(s11 > 0) || !(s22 > 0) || !(det > 0.001 * s11 * s22)) return std::nullopt;
  const double y1 = dot(x[0], y), y2 = dot(x[1], y);
  return std::vector<double>{(s22 * y1 - s12 * y2) / det, (s11 * y2 - s12 * y1) / det};
}

std::vector<double> centred(std::vector<double> v) {
  const double mean = v.empty() ? 0 : mean_of(v, 0, v.size());
  for (double& x : v) x -= mean;
  return v;
}

}  // namespace

std::optional<EqualWork> equal_work_spread(const std::vector<double>& kept, const std::vector<RepWork>& work) {
  const size_t n = kept.size();
  if (n < 4 || work.size() != n) return std::nullopt;
  std::vector<double> tokens(n), pairs(n);
  for (size_t i = 0; i < n; ++i) tokens[i] = work[i].tokens, pairs[i] = work[i].pairs;
  const std::vector<double> y = centred(kept);
  std::vector<std::vector<double>> x = {centred(tokens), centred(pairs)};
  std::optional<std::vector<double>> coefficients = n >= 8 ? fit(x, y) : std::nullopt;
  if (!coefficients) {
    x.pop_back();
    coefficients = fit(x, y);
  }
  if (!coefficients) return std::nullopt;
  const double mean = mean_of(kept, 0, n);
  const size_t terms = coefficients->size();
  const double scale = std::sqrt(static_cast<double>(n - 1) / static_cast<double>(n - 1 - terms));
  std::vector<double> adjusted(n);
  double residual = 0, total = 0;
  for (size_t i = 0; i < n; ++i) {
    double r = y[i];
    for (size_t k = 0; k < terms; ++k) r -= (*coefficients)[k] * x[k][i];
    residual += r * r, total += y[i] * y[i];
    adjusted[i] = mean + r * scale;
  }
  EqualWork out;
  out.spread = spread_of_kept(adjusted);
  out.spread.equal_work = true;
  out.explained = total > 0 ? std::clamp(1 - residual / total, 0.0, 1.0) : 0;
  out.terms = static_cast<int>(terms);
  return out;
}

std::optional<Spread> equal_work_spread_of_stat(const Fields& stat) {
  const std::optional<double> cov = stat.get_double(stat_key::work_cov);
  if (!cov) return std::nullopt;
  Spread s;
  const int64_t reps = stat.get_int(stat_key::reps).value_or(0), dropped = stat.get_int(stat_key::dropped).value_or(0);
  s.kept = reps > dropped ? reps - dropped : 0;
  s.cov = cov;
  s.tail = stat.get_double(stat_key::work_p90_p50);
  s.drift = stat.get_double(stat_key::work_drift);
  s.equal_work = true;
  return s;
}

std::string contention_reason(const CpuUse& use, WaitShareOf of) {
  const auto past = [](const std::optional<double>& v, double limit) { return v && *v > limit; };  // NaN: not past
  std::optional<double> wait = use.wait_share;
  const bool of_wanted = of == WaitShareOf::wanted && wait && use.cpu_share && *wait > kContendedTraceWait;
  if (of_wanted) wait = *wait / (*wait + *use.cpu_share);
  std::string why;
  if (past(wait, kContendedWait))
    why = fmt::format("threads waited for a CPU {} of the time{} > {}", percent(*wait),
                      of_wanted ? " they wanted one" : "", percent(kContendedWait));
  else if (!use.wait_share && use.cpu_share && *use.cpu_share < kContendedCpuShare && past(use.pressure, kContendedPressure))
    why = fmt::format("CPU time {:.2f} x wall x threads < {:.2f} with CPU pressure {} > {}", *use.cpu_share,
                      kContendedCpuShare, percent(*use.pressure), percent(kContendedPressure));
  if (past(use.steal_share, kContendedSteal))
    why += fmt::format("{}steal {} > {}", why.empty() ? "" : "; ", percent(*use.steal_share), percent(kContendedSteal));
  if (why.empty()) return why;
  // The other measures beside it, so that the line says how much CPU the process got.
  if (use.cpu_share && why.find("CPU time") == std::string::npos)
    why += fmt::format(" (CPU time {:.2f} x wall x threads)", *use.cpu_share);
  return why;
}

std::optional<CpuUse> cpu_use_of(const Fields& stat) {
  CpuUse use;
  use.cpu_share = stat.get_double(stat_key::cpu_share);
  use.wait_share = stat.get_double(stat_key::wait_share);
  use.pressure = stat.get_double(stat_key::cpu_pressure);
  use.steal_share = stat.get_double(stat_key::steal_share);
  if (!use.cpu_share && !use.wait_share && !use.pressure && !use.steal_share) return std::nullopt;
  return use;
}

RunPoint run_point_of(int64_t input, int64_t batch, const Fields& stat) {
  RunPoint p;
  p.input = input, p.batch = batch;
  p.flops = stat.get_double(stat_key::flops);
  p.gflops = stat.get_double(stat_key::gflops);
  p.min_ms = stat.get_double(stat_key::min_ms);
  p.profile_ms = stat.get_double(stat_key::profile_ms);
  const std::optional<double> mean = stat.get_double(stat_key::mean_ms), stddev = stat.get_double(stat_key::stddev_ms);
  if (mean && stddev && *mean > 0) p.cov = *stddev / *mean;
  return p;
}

std::string implausible_reason(const RunPoint& p, const std::vector<RunPoint>& earlier) {
  std::string why;
  const auto positive = [](const std::optional<double>& x) { return x && std::isfinite(*x) && *x > 0; };
  if (positive(p.flops) && positive(p.gflops)) {
    const RunPoint* best = nullptr;  // the fastest earlier combination of no more work
    for (const RunPoint& e : earlier)
      if (positive(e.flops) && positive(e.gflops) && *e.flops <= *p.flops && (!best || *e.gflops > *best->gflops))
        best = &e;
    if (best && *best->gflops > kImplausibleRateDrop * *p.gflops)
      why = fmt::format("gflops {:.3f} < half of input {} batch {}'s {:.3f}, with no more work", *p.gflops,
                        best->input, best->batch, *best->gflops);
  }
  if (positive(p.profile_ms) && positive(p.min_ms)) {
    const double gap = kImplausibleProfileGap + 3 * (p.cov && std::isfinite(*p.cov) ? *p.cov : 0);
    if (*p.profile_ms * gap < *p.min_ms)
      why += fmt::format("{}the --profile rep took {:.3f} ms, under the fastest timed rep's {:.3f} ms / {:.2f}",
                         why.empty() ? "" : "; ", *p.profile_ms, *p.min_ms, gap);
  }
  return why;
}

std::string Verdict::explained() const { return hint.empty() ? reason : reason + " -- " + hint; }

Verdict judge(const Spread& spread, const std::optional<CpuUse>& cpu, const std::string& implausible) {
  Findings f;
  const std::string at = spread.equal_work ? " at equal work" : "";
  hold(f, spread.cov, kNoisyCov, kUnstableCov, ("CoV" + at).c_str(), false);
  if (spread.tail) {
    // Compared as ratios, not as ratio - 1: 1.10 - 1 is a hair above 0.10 in binary.
    if (*spread.tail > 1 + kNoisyTail) {
      const bool bad = *spread.tail > 1 + kUnstableTail;
      f.add(bad ? VerdictWord::unstable : VerdictWord::noisy,
            fmt::format("p90/p50{} {:.2f} > {:.2f}", at, *spread.tail, 1 + (bad ? kUnstableTail : kNoisyTail)));
    }
  }
  f.spread = f.word != VerdictWord::ok;
  // Two quarter means of reps that scatter by CoV differ by about that much by chance: the drift limits are
  // at least kDriftPerCov CoVs (a NaN CoV leaves them as they are).
  const double scaled = spread.cov && *spread.cov > 0 ? kDriftPerCov * *spread.cov : 0;
  const size_t reason_size = f.reason.size();
  hold(f, spread.drift, std::max(kNoisyDrift, scaled), std::max(kUnstableDrift, scaled), ("drift" + at).c_str(), true);
  if (f.reason.size() != reason_size) (*spread.drift > 0 ? f.slowing : f.speeding) = true;
  const bool few = spread.kept < kMinKeptReps;
  if (few) {
    // First: with so few reps the other numbers are not worth reading.
    const std::string why = fmt::format("{} kept rep{} < {}", spread.kept, spread.kept == 1 ? "" : "s", kMinKeptReps);
    f.word = VerdictWord::too_few_reps;
    f.reason = f.reason.empty() ? why : why + "; " + f.reason;
  }
  if (!implausible.empty()) {
    // Before the reps' count and spread: steady reps that are wrong look fine to both.
    f.word = VerdictWord::implausible;
    f.reason = f.reason.empty() ? implausible : implausible + "; " + f.reason;
  }
  const std::string contended = cpu ? contention_reason(*cpu) : std::string();
  if (!contended.empty()) {
    // First of all: the cause is known, and steady reps of a starved process are still wrong.
    f.word = VerdictWord::contended;
    f.reason = f.reason.empty() ? contended : contended + "; " + f.reason;
  }
  const std::string hint = f.word == VerdictWord::ok ? ""
                                                     : hint_of(f, !contended.empty(), !implausible.empty(), few,
                                                               spread_cause(spread, cpu), cpu ? &*cpu : nullptr);
  return Verdict{f.word, f.reason, hint, spread};
}

NoteLine make_note_line(int64_t input, int64_t batch, const Verdict& verdict) {
  NoteLineValues v;
  v.input = input, v.batch = batch, v.verdict = verdict_text(verdict.word), v.kept = verdict.spread.kept;
  // A number the spread lacks is left out rather than written as a placeholder: readers take absent as unknown.
  v.cov = verdict.spread.cov, v.p90_p50 = verdict.spread.tail, v.drift = verdict.spread.drift;
  if (verdict.spread.equal_work) v.spread_of = "equal_work";
  v.reason = verdict.reason.empty() ? std::string("-") : verdict.explained();
  return NoteLine{to_fields(v)};
}

}  // namespace fmwork
