// Tests of the noise and validity verdicts: each threshold on either side, the order of the words, the
// spread from durations, from kept reps and from a STAT line, and the NOTE line read back.
#include "fmwork/log/verdicts.hpp"

#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "fmwork/base/error.hpp"

namespace fmwork {
namespace {

Spread spread(int64_t kept, std::optional<double> cov, std::optional<double> tail, std::optional<double> drift) {
  Spread s;
  s.kept = kept;
  s.cov = cov;
  s.tail = tail;
  s.drift = drift;
  return s;
}

TEST(Verdicts, EachThresholdOnEitherSide) {
  EXPECT_EQ(judge(spread(20, 0.025, 1.10, 0.025)).word, VerdictWord::ok) << "at the thresholds is still ok";
  EXPECT_EQ(judge(spread(20, 0.025, 1.10, 0.025)).reason, "");
  EXPECT_EQ(judge(spread(20, 0.026, 1.0, 0.0)).word, VerdictWord::noisy) << "CoV past 2.5%";
  EXPECT_EQ(judge(spread(20, 0.026, 1.0, 0.0)).reason, "CoV 2.6% > 2.5%");
  EXPECT_EQ(judge(spread(20, 0.101, 1.0, 0.0)).reason, "CoV 10.1% > 10.0%");
  EXPECT_EQ(judge(spread(20, 0.101, 1.0, 0.0)).word, VerdictWord::unstable);
  EXPECT_EQ(judge(spread(20, 0.0, 1.11, 0.0)).word, VerdictWord::noisy) << "p90/p50 past 1.10";
  EXPECT_EQ(judge(spread(20, 0.0, 1.26, 0.0)).reason, "p90/p50 1.26 > 1.25");
  EXPECT_EQ(judge(spread(20, 0.0, 1.0, -0.03)).reason, "drift -3.0% > 2.5%") << "a drift either way counts";
  EXPECT_EQ(judge(spread(20, 0.0, 1.0, 0.12)).reason, "drift +12.0% > 10.0%");
  EXPECT_EQ(judge(spread(20, 0.0, 1.0, 0.12)).word, VerdictWord::unstable);
}

TEST(Verdicts, TheWorstCheckWinsAndTooFewRepsComesFirst) {
  const Verdict both = judge(spread(20, 0.03, 1.3, std::nullopt));
  EXPECT_EQ(both.word, VerdictWord::unstable);
  EXPECT_EQ(both.reason, "CoV 3.0% > 2.5%; p90/p50 1.30 > 1.25");
  const Verdict few = judge(spread(1, 0.0, 1.0, std::nullopt));
  EXPECT_EQ(verdict_text(few.word), "too-few-reps");
  EXPECT_EQ(few.reason, "1 kept rep < 5");
  EXPECT_EQ(judge(spread(4, 0.5, 1.0, std::nullopt)).reason, "4 kept reps < 5; CoV 50.0% > 10.0%");
  EXPECT_EQ(judge(spread(5, 0.0, 1.0, std::nullopt)).word, VerdictWord::ok) << "5 kept reps are enough";
  // Unknown numbers (nullopt, NaN from a hostile log) are no finding.
  EXPECT_EQ(judge(spread(9, std::nullopt, std::nullopt, std::nullopt)).word, VerdictWord::ok);
  EXPECT_EQ(judge(spread(9, std::nan(""), std::nan(""), std::nan(""))).word, VerdictWord::ok);
}

// The case that once passed silently: p90 18x p50 drew no warning.
TEST(Verdicts, FromAStatLine) {
  // reps, dropped, mean, stddev, min, p50, p90 (StatValues' order)
  const StatValues v{10, 2, 1321.0, 544.5, 17.7, 70.7, 1321.9};
  const Spread s = spread_of_stat(v);
  EXPECT_EQ(s.kept, 8);
  EXPECT_NEAR(*s.cov, 544.5 / 1321.0, 1e-12);
  EXPECT_NEAR(*s.tail, 1321.9 / 70.7, 1e-12);
  EXPECT_FALSE(s.drift.has_value()) << "a STAT line keeps no order";
  EXPECT_EQ(judge(s).word, VerdictWord::unstable);
  // `--reps 2` keeps one rep: its stddev of 0 says nothing.
  StatValues two;
  two.reps = 2;
  two.dropped = 1;
  two.mean_ms = two.p50_ms = two.p90_ms = 3.0;
  EXPECT_EQ(judge(spread_of_stat(two)).word, VerdictWord::too_few_reps);
  StatValues zero;  // no mean, no p50: no ratio, not a division by 0
  EXPECT_FALSE(spread_of_stat(zero).cov.has_value());
  EXPECT_FALSE(spread_of_stat(zero).tail.has_value());
}

TEST(Verdicts, FromDurationsTheWarmUpIsDroppedAndTheDriftIsQuarterMeans) {
  // 10 durations: the first 2 dropped (upstream's rule); the kept 8 rise from 1.0 to 1.2.
  const std::vector<double> durations = {9, 9, 1.0, 1.0, 1.1, 1.1, 1.1, 1.1, 1.2, 1.2};
  const Spread s = spread_of_durations(durations);
  EXPECT_EQ(s.kept, 8);
  EXPECT_NEAR(*s.drift, 0.2, 1e-12);
  EXPECT_NEAR(*s.tail, 1.2 / 1.1, 1e-12);
  EXPECT_EQ(judge(s).word, VerdictWord::unstable);
  EXPECT_EQ(spread_of_kept({1.0, 1.0, 1.0, 1.0, 1.0}).cov, 0.0);
  EXPECT_FALSE(spread_of_kept({1.0, 2.0, 3.0}).drift.has_value()) << "no quarter of 3 reps";
  EXPECT_EQ(spread_of_kept({}).kept, 0);
  EXPECT_EQ(spread_of_durations({}).kept, 0);
  EXPECT_EQ(spread_of_durations({5.0, 1.0}).kept, 1);
}

TEST(Verdicts, TheNoteLineReadsBack) {
  const Verdict v = judge(spread(8, 0.412, 18.7, std::nullopt));
  const std::string text = format_line(make_note_line(16, 1, v));
  EXPECT_EQ(text,
            "FMWORK NOTE input=16 batch=1 verdict=unstable kept=8 cov=0.4120 p90_p50=18.7000 reason=CoV 41.2% > 10.0%; "
            "p90/p50 18.70 > 1.25 -- cause: the reps vary (other work on the machine, threads moving between cores); "
            "next: more reps, a quiet machine, pinned threads (--torch.call:set_num_threads@N below the cores)");
  const auto parsed = parse_line(text);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(format_line(*parsed), text);
  EXPECT_EQ(format_line(make_note_line(8, 2, judge(spread(20, 0.01, 1.01, 0.0)))),
            "FMWORK NOTE input=8 batch=2 verdict=ok kept=20 cov=0.0100 p90_p50=1.0100 drift=0.0000 reason=-");
  // A verdict outside its words (a newer driver's) is read, never written (log_records notes it).
  const auto newer = parse_line("FMWORK NOTE input=8 batch=2 verdict=fine reason=-");
  ASSERT_TRUE(newer.has_value());
  EXPECT_THROW(format_line(*newer), Error) << "verdict outside its words";
}

// Seen on a shared machine: a (128,1) point with CoV 1.1% was noisy for a drift of -2.51% against 2.5%. Two quarter means
// of reps that scatter by 1.1% differ by that much by chance: the drift limits are at least 3 CoVs.
TEST(Verdicts, TheDriftLimitScalesWithTheSpread) {
  EXPECT_EQ(judge(spread(16, 0.011, 1.02, -0.0251)).word, VerdictWord::ok);
  EXPECT_EQ(judge(spread(16, 0.011, 1.02, -0.034)).reason, "drift -3.4% > 3.3%") << "past 3 CoVs";
  EXPECT_EQ(judge(spread(16, 0.005, 1.02, 0.026)).reason, "drift +2.6% > 2.5%") << "never below 2.5%";
  EXPECT_EQ(judge(spread(16, 0.04, 1.02, 0.11)).word, VerdictWord::noisy) << "CoV 4%: 11% is within 12%";
  EXPECT_EQ(judge(spread(16, 0.04, 1.02, 0.13)).reason, "CoV 4.0% > 2.5%; drift +13.0% > 12.0%");
}

// Each non-ok verdict ends with its likely cause and the next step, in NOTE's reason and the reports.
TEST(Verdicts, EachVerdictNamesItsCauseAndTheNextStep) {
  EXPECT_EQ(judge(spread(20, 0.01, 1.0, 0.0)).hint, "") << "ok needs none";
  EXPECT_EQ(judge(spread(20, 0.01, 1.0, 0.0)).explained(), "");
  const Verdict warming = judge(spread(20, 0.0, 1.0, -0.05));
  EXPECT_EQ(warming.explained(), "drift -5.0% > 2.5% -- cause: the reps were still warming up (caches, allocator, "
                                 "lazy set-up); next: leave more first reps out (--warmup N)");
  EXPECT_NE(judge(spread(20, 0.0, 1.0, 0.05)).hint.find("the machine slowed"), std::string::npos);
  EXPECT_NE(judge(spread(3, 0.0, 1.0, std::nullopt)).hint.find("raise --reps"), std::string::npos);
  EXPECT_NE(judge(spread(20, 0.2, 1.0, 0.0)).hint.find("--torch.call:set_num_threads@N"), std::string::npos);
}

CpuUse cpu(std::optional<double> share, std::optional<double> wait, std::optional<double> pressure,
           std::optional<double> steal) {
  CpuUse u;
  u.cpu_share = share;
  u.wait_share = wait;
  u.pressure = pressure;
  u.steal_share = steal;
  return u;
}

// Seen on a shared machine: steady reps 3x slow because a neighbour held a core. The spread is fine; the CPU was not.
TEST(Verdicts, AProcessThatDidNotGetItsCpuIsContended) {
  const Spread steady = spread(20, 0.008, 1.01, 0.002);
  EXPECT_EQ(judge(steady, cpu(0.97, 0.01, 0.05, 0.0)).word, VerdictWord::ok);
  EXPECT_EQ(judge(steady, cpu(0.97, 0.10, 0.05, 0.0)).word, VerdictWord::ok) << "at the threshold is still ok";
  const Verdict waited = judge(steady, cpu(0.52, 0.481, 0.97, 0.0));
  EXPECT_EQ(waited.word, VerdictWord::contended);
  EXPECT_EQ(waited.reason, "threads waited for a CPU 48.1% of the time > 10.0% (CPU time 0.52 x wall x threads)");
  EXPECT_EQ(waited.hint, "cause: other work held the CPU while the reps ran; next: rerun on a quiet machine, or ask for "
                         "fewer threads than the free cores (--torch.call:set_num_threads@N)");
  EXPECT_EQ(judge(steady, cpu(0.95, 0.0, 0.0, 0.2)).reason, "steal 20.0% > 10.0% (CPU time 0.95 x wall x threads)");
  // Hostile round six: 4 threads on 2 CPUs wait for each other on a quiet machine, and the hint blamed other work.
  CpuUse own = cpu(0.5, 0.5, 0.5, 0.0);
  own.threads = 4, own.cpus = 2;
  EXPECT_EQ(judge(steady, own).hint, "cause: the run asked for 4 threads on 2 CPUs, so its own threads waited for each "
                                     "other (other work may have too); next: ask for at most 2 threads "
                                     "(--torch.call:set_num_threads@ 2)");
  own.threads = 2;
  EXPECT_EQ(judge(steady, own).hint.rfind("cause: other work held the CPU", 0), 0u) << "as many threads as CPUs";
  // Without a run-queue wait (no schedstat): a low CPU share counts only beside pressure, since work that does not
  // keep its threads busy (a tiny model, batch 1) has a low share on an idle machine too.
  EXPECT_EQ(judge(steady, cpu(0.5, std::nullopt, 0.01, std::nullopt)).word, VerdictWord::ok);
  EXPECT_EQ(judge(steady, cpu(0.5, std::nullopt, 0.9, std::nullopt)).reason,
            "CPU time 0.50 x wall x threads < 0.80 with CPU pressure 90.0% > 20.0%");
  EXPECT_EQ(judge(steady, cpu(0.5, 0.02, 0.9, std::nullopt)).word, VerdictWord::ok) << "the wait, where known, decides";
  // First of the words, the other findings kept after it; NaN is no finding.
  const Verdict both = judge(spread(3, 0.2, 1.0, std::nullopt), cpu(0.4, 0.5, 1.0, 0.0));
  EXPECT_EQ(both.word, VerdictWord::contended);
  EXPECT_EQ(both.reason.rfind("threads waited", 0), 0u) << both.reason;
  EXPECT_NE(both.reason.find("; 3 kept reps < 5; CoV 20.0% > 10.0%"), std::string::npos) << both.reason;
  EXPECT_EQ(judge(steady, cpu(std::nan(""), std::nan(""), std::nan(""), std::nan(""))).word, VerdictWord::ok);
  EXPECT_EQ(verdict_text(VerdictWord::contended), "contended");
}

RunPoint point(int64_t input, int64_t batch, std::optional<double> flops, std::optional<double> gflops,
                std::optional<double> min_ms = std::nullopt, std::optional<double> profile_ms = std::nullopt,
                std::optional<double> cov = std::nullopt) {
  RunPoint p;
  p.input = input, p.batch = batch, p.flops = flops, p.gflops = gflops;
  p.min_ms = min_ms, p.profile_ms = profile_ms, p.cov = cov;
  return p;
}

TEST(Verdicts, SteadyButWrongRepsAreImplausible) {
  const std::vector<RunPoint> earlier = {point(64, 1, 1e9, 40.0), point(128, 1, 2e9, 44.0)};
  // More work at under half the best rate of no more work: the run lost speed midway.
  EXPECT_EQ(implausible_reason(point(128, 8, 1.6e10, 21.9), earlier),
            "gflops 21.900 < half of input 128 batch 1's 44.000, with no more work");
  EXPECT_EQ(implausible_reason(point(128, 8, 1.6e10, 22.0), earlier), "") << "at half is still plausible";
  EXPECT_EQ(implausible_reason(point(32, 1, 5e8, 10.0), earlier), "")
      << "less work than every earlier combination: a small shape may be slow";
  EXPECT_EQ(implausible_reason(point(128, 8, std::nullopt, std::nullopt), earlier), "") << "no work known";
  EXPECT_EQ(implausible_reason(point(128, 8, 1.6e10, std::nan("")), earlier), "");
  // The --profile rep (slower by the profiler's overhead if anything) under the fastest timed rep / (1.25 + 3 CoV).
  EXPECT_EQ(implausible_reason(point(512, 8, std::nullopt, std::nullopt, 2676.0, 963.0, 0.01), {}),
            "the --profile rep took 963.000 ms, under the fastest timed rep's 2676.000 ms / 1.28");
  EXPECT_EQ(implausible_reason(point(512, 8, std::nullopt, std::nullopt, 1000.0, 900.0, 0.01), {}), "");
  EXPECT_EQ(implausible_reason(point(512, 8, std::nullopt, std::nullopt, 1000.0, 700.0, 0.1), {}), "")
      << "the margin grows with the reps' own spread";

  // The verdict: after contended, before too-few-reps and the spread, with its cause and next step.
  const Spread steady = spread(20, 0.008, 1.01, 0.002);
  const Verdict v = judge(steady, std::nullopt, "gflops 1.000 < half of input 8 batch 1's 3.000, with no more work");
  EXPECT_EQ(v.word, VerdictWord::implausible);
  EXPECT_EQ(verdict_text(v.word), "implausible");
  EXPECT_NE(v.hint.find("next: rerun on a quiet machine, or each combination alone (--isolate), and compare"),
            std::string::npos)
      << v.hint;
  EXPECT_EQ(judge(spread(3, 0.2, 1.0, std::nullopt), std::nullopt, "x").word, VerdictWord::implausible);
  EXPECT_EQ(judge(steady, cpu(0.52, 0.481, 0.97, 0.0), "x").word, VerdictWord::contended) << "a known cause first";
  EXPECT_EQ(judge(steady, std::nullopt, "").word, VerdictWord::ok);
}

// STAT's numbers as the check reads them, the profiled rep's time among them.
TEST(Verdicts, RunPointOfAStatLine) {
  StatExtras extras;
  extras.work = WorkFacts{2e9, "formula", std::nullopt};
  extras.profile_ms = 3.25;
  const StatLine line = make_stat_line(128, 2, StatValues{20, 4, 3, 0.3, 2.9, 3, 3.1, 3.2, 3.2}, extras);
  const std::string text = format_line(line);
  EXPECT_NE(text.find(" profile_ms=3.250"), std::string::npos) << text;
  const auto parsed = parse_line(text);
  ASSERT_TRUE(parsed.has_value());
  const RunPoint p = run_point_of(128, 2, std::get<StatLine>(*parsed).fields);
  EXPECT_EQ(p.input, 128);
  EXPECT_EQ(p.batch, 2);
  EXPECT_DOUBLE_EQ(*p.flops, 2e9);
  EXPECT_NEAR(*p.gflops, 2e9 / 3e-3 / 1e9, 1e-3);
  EXPECT_DOUBLE_EQ(*p.min_ms, 2.9);
  EXPECT_DOUBLE_EQ(*p.profile_ms, 3.25);
  EXPECT_DOUBLE_EQ(*p.cov, 0.1);
}

TEST(Verdicts, StatsCpuFieldsReadBack) {
  StatExtras extras;
  extras.cpu = cpu(0.5212, 0.48071, 0.97, std::nullopt);
  const StatLine line = make_stat_line(128, 1, StatValues{20, 4, 3, 0.1, 2.9, 3, 3.1, 3.2, 3.2}, extras);
  const std::string text = format_line(line);
  EXPECT_NE(text.find(" cpu_share=0.5212 wait_share=0.4807 cpu_pressure=0.9700"), std::string::npos) << text;
  EXPECT_EQ(text.find("steal_share"), std::string::npos) << "a share not measured is left out";
  const auto parsed = parse_line(text);
  ASSERT_TRUE(parsed.has_value());
  const std::optional<CpuUse> use = cpu_use_of(std::get<StatLine>(*parsed).fields);
  ASSERT_TRUE(use.has_value());
  EXPECT_EQ(use->wait_share, 0.4807);
  EXPECT_FALSE(use->steal_share.has_value());
  EXPECT_FALSE(cpu_use_of(make_stat_line(128, 1, StatValues{}).fields).has_value()) << "an older STAT line";
  EXPECT_EQ(judge(spread(16, 0.01, 1.0, 0.0), use).word, VerdictWord::contended);
}


// Kept reps of mixed lengths: rep i ran `tokens` tokens (100 to 1000, in no order) whose attention pairs grow with
// their square, taking 2 ms + 0.01 ms a token + 1e-5 ms a pair, times 1 + `noise` x a fixed +-1 pattern.
struct MixedReps {
  std::vector<double> kept;
  std::vector<RepWork> work;
};
MixedReps mixed_reps(size_t n, double noise) {
  MixedReps r;
  for (size_t i = 0; i < n; ++i) {
    const double tokens = 100 + static_cast<double>((i * 7) % 10) * 100, pairs = tokens * tokens / 4 + (i % 3) * 5000.0;
    const double sign = (i * 5) % 4 < 2 ? 1.0 : -1.0;
    r.kept.push_back((2.0 + 0.01 * tokens + 1e-5 * pairs) * (1 + noise * sign));
    r.work.push_back({tokens, pairs});
  }
  return r;
}

// Defect: every mixed-length run was unstable, even on a quiet machine: each rep drew other lengths,
// and the verdict read the draws' spread as the machine's. At equal work it reads the machine's alone.
TEST(Verdicts, MixedLengthsAreJudgedAtEqualWork) {
  const MixedReps quiet = mixed_reps(16, 0.002);
  EXPECT_EQ(judge(spread_of_kept(quiet.kept)).word, VerdictWord::unstable) << "the draws' spread";
  const std::optional<EqualWork> equal = equal_work_spread(quiet.kept, quiet.work);
  ASSERT_TRUE(equal.has_value());
  EXPECT_EQ(equal->terms, 2);
  EXPECT_TRUE(equal->spread.equal_work);
  EXPECT_EQ(equal->spread.kept, 16);
  EXPECT_LT(*equal->spread.cov, 0.005);
  EXPECT_GT(equal->explained, 0.99);
  EXPECT_EQ(judge(equal->spread).word, VerdictWord::ok);
  // A machine that does vary still shows: 5% about the fit is noisy or worse, said at equal work, and the hint
  // does not blame the draws.
  const MixedReps busy = mixed_reps(16, 0.05);
  const Verdict v = judge(equal_work_spread(busy.kept, busy.work)->spread);
  EXPECT_NE(v.word, VerdictWord::ok);
  EXPECT_EQ(v.reason.rfind("CoV at equal work ", 0), 0u) << v.reason;
  EXPECT_NE(v.hint.find("the reps vary beyond what their drawn lengths explain"), std::string::npos) << v.hint;
}

// Time per token would spread with a fixed overhead (a small model's launch, the pooler): 5 ms + 1 us a token is
// 55 us a token at 100 tokens and 6 us at 1000. The intercept takes it.
TEST(Verdicts, AFixedOverheadIsNotACostPerToken) {
  std::vector<double> kept, per_token;
  std::vector<RepWork> work;
  for (int i = 0; i < 12; ++i) {
    const double tokens = 100 + (i * 5 % 12) * 80.0;
    kept.push_back(5.0 + 0.001 * tokens);
    per_token.push_back(kept.back() / tokens);
    work.push_back({tokens, tokens * 10});
  }
  EXPECT_EQ(judge(spread_of_kept(per_token)).word, VerdictWord::unstable) << "time per token";
  const std::optional<EqualWork> equal = equal_work_spread(kept, work);
  ASSERT_TRUE(equal.has_value());
  EXPECT_EQ(equal->terms, 1) << "pairs move with tokens here: one column";
  EXPECT_NEAR(*equal->spread.cov, 0.0, 1e-9);
}

TEST(Verdicts, EqualWorkNeedsWorkThatVariesAndReps) {
  EXPECT_FALSE(equal_work_spread({1.0, 1.1, 0.9, 1.0, 1.2}, std::vector<RepWork>(5, {64, 4096})).has_value())
      << "one fixed length: the reps' own spread stands";
  EXPECT_FALSE(equal_work_spread({1.0, 2.0, 3.0}, {{1, 1}, {2, 4}, {3, 9}}).has_value()) << "3 kept reps";
  EXPECT_FALSE(equal_work_spread({1.0, 2.0, 3.0, 4.0}, {{1, 1}, {2, 4}, {3, 9}}).has_value()) << "one work a rep";
  const std::optional<EqualWork> four = equal_work_spread({1.0, 2.1, 2.9, 4.0}, {{1, 1}, {2, 4}, {3, 9}, {4, 16}});
  ASSERT_TRUE(four.has_value());
  EXPECT_EQ(four->terms, 1) << "fewer than 8 reps: tokens alone";
}

// The driver writes the spread at equal work into STAT and judges what it wrote, read back; process reads the
// same fields: NOTE and process's verdict agree to the digit.
TEST(Verdicts, TheSpreadAtEqualWorkTravelsInStat) {
  const MixedReps busy = mixed_reps(16, 0.03);
  const EqualWork equal = *equal_work_spread(busy.kept, busy.work);
  StatValues values{20, 4, 10.0, 3.0, 5.0, 10.0, 14.0, 15.0, 16.0};
  StatExtras extras;
  TokenRates rates;
  rates.real_tokens = 300.0, rates.padded_tokens = 500.0, rates.real_per_s = 30000.0, rates.padded_per_s = 50000.0;
  rates.work_cov = equal.spread.cov, rates.work_tail = equal.spread.tail, rates.work_drift = equal.spread.drift;
  rates.work_explained = equal.explained;
  extras.tokens = rates;
  const std::string text = format_line(make_stat_line(64, 8, values, extras));
  EXPECT_NE(text.find(" work_cov="), std::string::npos) << text;
  const auto parsed = parse_line(text);
  ASSERT_TRUE(parsed.has_value());
  const std::optional<Spread> read = equal_work_spread_of_stat(std::get<StatLine>(*parsed).fields);
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->kept, 16);
  EXPECT_TRUE(read->equal_work);
  EXPECT_NEAR(*read->cov, *equal.spread.cov, 5e-5);
  EXPECT_EQ(judge(*read).word, judge(equal.spread).word);
  EXPECT_NE(format_line(make_note_line(64, 8, judge(*read))).find(" spread_of=equal_work reason="), std::string::npos);
  EXPECT_FALSE(equal_work_spread_of_stat(Fields{}).has_value());
}

// A spread is blamed on other work only on the counters' evidence: threads that waited under 2% of the time for a
// CPU had it; other tasks waiting for one (CPU pressure) show other work beside it, sharing caches and memory.
TEST(Verdicts, ASpreadIsBlamedOnOtherWorkOnlyOnEvidence) {
  const Spread wide = spread(20, 0.05, 1.0, 0.0);
  const Verdict quiet = judge(wide, cpu(0.98, 0.004, 0.01, 0.0));
  EXPECT_EQ(quiet.word, VerdictWord::noisy);
  EXPECT_EQ(quiet.hint, "cause: the reps vary, though the process had its CPU (threads waited for one 0.4% of the time) "
                        "on a quiet machine (CPU pressure 1.0%): not other work, but threads moving between cores, "
                        "frequency changes, memory; next: more reps, a quiet machine, pinned threads "
                        "(--torch.call:set_num_threads@N below the cores)");
  EXPECT_NE(judge(wide, cpu(0.98, 0.007, 0.5, 0.0))
                .hint.find("though the process had its CPU (threads waited for one 0.7% of the time) while other work "
                           "ran (CPU pressure 50.0%): that work's share of caches and memory"),
            std::string::npos);
  EXPECT_NE(judge(wide, cpu(0.98, 0.004, std::nullopt, 0.0)).hint.find(": not other work taking the CPU"),
            std::string::npos);
  EXPECT_NE(judge(wide, cpu(0.9, 0.05, 0.3, 0.0)).hint.find("other work on the machine"), std::string::npos)
      << "5% waited: not cleared";
  EXPECT_NE(judge(wide).hint.find("other work on the machine"), std::string::npos) << "nothing measured";
}
}  // namespace
}  // namespace fmwork
