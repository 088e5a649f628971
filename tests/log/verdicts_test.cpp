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
            "p90/p50 18.70 > 1.25");
  const auto parsed = parse_line(text);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(format_line(*parsed), text);
  EXPECT_EQ(format_line(make_note_line(8, 2, judge(spread(20, 0.01, 1.01, 0.0)))),
            "FMWORK NOTE input=8 batch=2 verdict=ok kept=20 cov=0.0100 p90_p50=1.0100 drift=0.0000 reason=-");
  EXPECT_THROW(parse_line("FMWORK NOTE input=8 batch=2 verdict=fine reason=-"), Error) << "verdict outside its words";
}

}  // namespace
}  // namespace fmwork
