// Tests of `process --compare`'s table: matching by run id (or model) plus sizes, the ratios, the noise flag.
#include "fmwork/report/compare.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "fmwork/base/error.hpp"
#include "fmwork/report/compare_output.hpp"

namespace fmwork {
namespace {

ParsedLog log_of(const std::string& text, const std::string& run_id) {
  ParsedLog log = parse_log_text(text, "x.log");
  if (!run_id.empty()) log.labels = {{"run_id", run_id}, {"run", "r"}};
  return log;
}

std::string res(int input, double latency_ms, double stddev_ms) {
  return "FMWORK RES 1.000000000 2.000000000 m c " + std::to_string(input) + " 1 " + std::to_string(latency_ms) + " " +
         std::to_string(1000.0 / latency_ms) + "\nFMWORK STAT input=" + std::to_string(input) +
         " batch=1 reps=5 dropped=1 mean_ms=1.0 stddev_ms=" + std::to_string(stddev_ms) +
         " min_ms=1.0 p50_ms=1.0 p90_ms=1.0 p99_ms=1.0 max_ms=1.0\n";
}

TEST(Compare, RatiosPerMatchingCombinationWithTheNoiseFlag) {
  const std::vector<ParsedLog> a = {log_of(res(8, 10.0, 0.5) + res(16, 20.0, 0.1) + res(32, 5, 0.1), "r.1")};
  const std::vector<ParsedLog> b = {log_of(res(8, 10.5, 0.5) + res(16, 10.0, 0.1), "r.1"),
                                    log_of(res(8, 1.0, 0.1), "r.2")};
  const std::string report = compare_report(a, b);
  EXPECT_NE(report.find("r.1      8      1       10.0000       10.5000     1.050x     0.952x  noise"), std::string::npos)
      << report;
  // Every ratio rests on 4 kept reps (too-few-reps): marked, and counted under the table. Beyond noise is said
  // in the spread cell, as the CSV says it (the cell was left blank).
  EXPECT_NE(report.find("r.1     16      1       20.0000       10.0000     0.500x     2.000x  beyond  A too-few-reps, "
                        "B too-few-reps\n"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("\n2 of 2 ratios rest on a run whose verdict is not ok (the verdicts column)"), std::string::npos)
      << report;
  EXPECT_NE(report.find("1 combinations in A only, 1 in B only"), std::string::npos) << report;
}

ParsedLog repeat_of(const std::string& text, const std::string& run, int k) {
  ParsedLog log = parse_log_text(text, "x.log");
  log.labels = {{"run_id", run + ".r" + std::to_string(k)}, {"run", "r"}, {"repeat", std::to_string(k)}};
  return log;
}

// Repeats are one side: the median, and the spread between them, which a STAT line cannot see. Here each
// run's own stddev (0.1) calls a 1 ms change beyond noise; the repeats' spread (1 and 0.5) does not.
TEST(Compare, RepeatsAreOneSideWithTheirMedianAndSpread) {
  const std::vector<ParsedLog> a = {repeat_of(res(8, 10.0, 0.1), "r.1", 1), repeat_of(res(8, 12.0, 0.1), "r.1", 2),
                                    repeat_of(res(8, 11.0, 0.1), "r.1", 3)};
  const std::vector<ParsedLog> b = {repeat_of(res(8, 12.5, 0.1), "r.1", 1), repeat_of(res(8, 11.5, 0.1), "r.1", 2),
                                    repeat_of(res(8, 12.0, 0.1), "r.1", 3)};
  const Comparison c = compare_logs(a, b);
  ASSERT_EQ(c.pairs.size(), 1u);
  EXPECT_EQ(c.pairs[0].key.run, "r.1");
  EXPECT_EQ(c.pairs[0].a.repeats, 3u);
  EXPECT_DOUBLE_EQ(c.pairs[0].a.latency_ms, 11.0);
  EXPECT_DOUBLE_EQ(c.pairs[0].b.latency_ms, 12.0);
  EXPECT_DOUBLE_EQ(*c.pairs[0].a.stddev_ms, 1.0);
  EXPECT_DOUBLE_EQ(*c.pairs[0].b.stddev_ms, 0.5);
  EXPECT_EQ(c.pairs[0].noise(), true);
  const std::string report = compare_report(a, b);
  EXPECT_NE(report.find("r.1      8      1       11.0000       12.0000     1.091x"), std::string::npos) << report;
  EXPECT_NE(report.find("repeats: up to 3 in A, 3 in B; latency is their median, the spread their stddev\n"),
            std::string::npos) << report;
  // One repeat each: the STAT spread, and the change is beyond it.
  const Comparison one = compare_logs({a[0]}, {b[2]});
  EXPECT_EQ(one.pairs.at(0).noise(), false);
  EXPECT_EQ(compare_report({a[0]}, {b[2]}).find("repeats:"), std::string::npos);
  // Without a repeat label, a later record of a key replaces the earlier one (a re-run), as before.
  const Comparison rerun = compare_logs({log_of(res(8, 10.0, 0.1), "r.1"), log_of(res(8, 30.0, 0.1), "r.1")},
                                        {log_of(res(8, 30.0, 0.1), "r.1")});
  EXPECT_DOUBLE_EQ(rerun.pairs.at(0).a.latency_ms, 30.0);
  EXPECT_EQ(rerun.pairs.at(0).a.repeats, 1u);
}

TEST(Compare, WithoutLabelsTheModelIsTheKeyAndWithoutStatTheFlagIsUnknown) {
  const std::string line = "FMWORK RES 1.000000000 2.000000000 m c 8 1 2.000 500.0\n";
  const std::string report = compare_report({log_of(line, "")}, {log_of(line, "")});
  EXPECT_NE(report.find("m c -      8      1        2.0000        2.0000     1.000x     1.000x  ?"), std::string::npos)
      << report;
}

TEST(Compare, PairsAndOneSideCombinationsAsData) {
  const std::vector<ParsedLog> a = {log_of(res(8, 10.0, 0.5) + res(16, 20.0, 0.1) + res(32, 5, 0.1), "r.1")};
  const std::vector<ParsedLog> b = {log_of(res(8, 10.5, 0.5) + res(16, 10.0, 0.1), "r.1"), log_of(res(8, 1.0, 0.1), "r.2")};
  const Comparison c = compare_logs(a, b);
  ASSERT_EQ(c.pairs.size(), 2u);
  EXPECT_EQ(c.pairs[0].key.run, "r.1");
  EXPECT_EQ(c.pairs[0].key.input, 8);
  EXPECT_EQ(c.pairs[0].key.batch, 1);
  EXPECT_EQ(c.pairs[0].key.text, "r.1      8      1");
  EXPECT_DOUBLE_EQ(c.pairs[0].latency_ratio(), 1.05);
  EXPECT_EQ(c.pairs[0].noise(), std::optional<bool>(true));
  EXPECT_DOUBLE_EQ(c.pairs[1].latency_ratio(), 0.5);
  EXPECT_NEAR(c.pairs[1].throughput_ratio(), 2.0, 1e-4);
  EXPECT_EQ(c.pairs[1].noise(), std::optional<bool>(false));
  ASSERT_EQ(c.only_a.size(), 1u);
  EXPECT_EQ(c.only_a[0].input, 32);
  ASSERT_EQ(c.only_b.size(), 1u);
  EXPECT_EQ(c.only_b[0].run, "r.2");
}

TEST(Compare, AStddevNearDoublesRangeIsAHugeSpreadNotAnException) {
  const std::string line = "FMWORK RES 1.000000000 2.000000000 m c 8 1 2.000 500.0\nFMWORK STAT input=8 batch=1 stddev_ms=1e308\n";
  const Comparison c = compare_logs({log_of(line, "")}, {log_of(line, "")});
  ASSERT_EQ(c.pairs.size(), 1u);
  EXPECT_EQ(c.pairs[0].noise(), std::optional<bool>(true));
}


// A log of our driver: META with dtype and threads, then one RES whose STAT p50 is the precise median.
std::string meta_log(const std::string& dtype, int threads, int input, double p50_ms, double stddev_ms = 0.01) {
  return fmt::format(
      "FMWORK META driver=0.1.0 platform=cpu threads={} dtype={}\n"
      "FMWORK RES 1.000000000 2.000000000 m c {} 1 {:.3f} {:.1f}\n"
      "FMWORK STAT input={} batch=1 reps=20 dropped=4 mean_ms={:.6f} stddev_ms={:.6f} min_ms={:.6f} p50_ms={:.6f} "
      "p90_ms={:.6f} p99_ms={:.6f} max_ms={:.6f}\n",  // the percentiles in order, as a driver writes them
      threads, dtype, input, p50_ms, 1000.0 / p50_ms, input, p50_ms, stddev_ms, p50_ms, p50_ms, p50_ms, p50_ms, p50_ms);
}

std::string usage_message(const std::vector<ParsedLog>& a, const std::vector<ParsedLog>& b, const CompareOptions& o) {
  try {
    compare_logs(a, b, o);
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), 2) << e.what();
    return e.what();
  }
  return "(no error)";
}

// A and B refused by default with `message`, then paired once --ignore-meta names `key`.
Comparison refused_until_ignored(const std::vector<ParsedLog>& a, const std::vector<ParsedLog>& b,
                                 const std::string& message, const std::string& key) {
  EXPECT_EQ(usage_message(a, b, {}), message);
  CompareOptions ignore;
  ignore.ignore_meta = {key};
  return compare_logs(a, b, ignore);
}

// The case that once passed silently: fp32.log against bf16.log printed an empty table and exited 0.
TEST(Compare, NothingPairsBecauseAKeyDiffersSaysWhichAndIgnoreMetaPairsThem) {
  const Comparison c = refused_until_ignored(
      {log_of(meta_log("float32", 1, 8, 10.0), "")}, {log_of(meta_log("bfloat16", 1, 8, 5.0), "")},
      "--compare: no combination of A pairs with one of B: they differ in dtype (A: float32, B: bfloat16); "
      "pass --ignore-meta dtype to pair them on input and batch",
      "dtype");
  ASSERT_EQ(c.pairs.size(), 1u);
  EXPECT_EQ(c.pairs[0].key.text, "*      8      1");
  EXPECT_DOUBLE_EQ(c.pairs[0].latency_ratio(), 0.5);
}

// Eager at 2 threads against compiled at 1 thread was paired silently: a pair differing in a key that
// matters is refused, naming the key and both values.
TEST(Compare, APairDifferingInAKeyThatMattersIsRefused) {
  const std::vector<ParsedLog> a = {log_of(meta_log("float32", 2, 8, 10.0), "r")};
  const std::vector<ParsedLog> b = {log_of(meta_log("float32", 1, 8, 10.0), "r")};
  EXPECT_EQ(refused_until_ignored(a, b,
                                  "--compare: r      8      1 differs in threads (A: 2, B: 1); compare like with "
                                  "like, or pass --ignore-meta threads to pair them anyway",
                                  "threads")
                .pairs.size(),
            1u);
  // Identical configurations pair as before, and a key only one side states is not held against it.
  EXPECT_EQ(compare_logs(a, a).pairs.size(), 1u);
  EXPECT_EQ(compare_logs(a, {log_of("FMWORK RES 1.000000000 2.000000000 m c 8 1 10.000 100.0\n", "r")}).pairs.size(), 1u);
}

TEST(Compare, MatchPairsEachThreadCountWithItsOwn) {
  const std::vector<ParsedLog> a = {log_of(meta_log("float32", 1, 8, 10.0), ""), log_of(meta_log("float32", 2, 8, 6.0), "")};
  const std::vector<ParsedLog> b = {log_of(meta_log("float32", 2, 8, 5.0), ""), log_of(meta_log("float32", 1, 8, 9.0), "")};
  CompareOptions loose;
  loose.ignore_meta = {"dtype"};
  EXPECT_EQ(usage_message(a, b, loose),
            "--compare A: *      8      1 has threads 1 and 2; name threads in --match to pair each with its own");
  CompareOptions match;
  match.match = {"threads"};
  const Comparison c = compare_logs(a, b, match);
  ASSERT_EQ(c.pairs.size(), 2u);
  EXPECT_EQ(c.pairs[0].key.run, "threads=1");
  EXPECT_DOUBLE_EQ(c.pairs[0].latency_ratio(), 0.9);
  EXPECT_EQ(c.pairs[1].key.run, "threads=2");
}

// RES rounds throughput to 0.1: 0.4 and 0.4 seq/s. The ratios come from the STAT medians.
TEST(Compare, RatiosComeFromTheUnroundedMedian) {
  const Comparison c =
      compare_logs({log_of(meta_log("float32", 1, 8, 2500.0), "")}, {log_of(meta_log("float32", 1, 8, 2437.5), "")});
  ASSERT_EQ(c.pairs.size(), 1u);
  EXPECT_DOUBLE_EQ(c.pairs[0].latency_ratio(), 0.975);
  EXPECT_NEAR(c.pairs[0].throughput_ratio(), 1 / 0.975, 1e-12) << "not 0.4 / 0.4";
  EXPECT_DOUBLE_EQ(c.pairs[0].a.tokens_per_s, 8 * 1000.0 / 2500.0);
}

TEST(Compare, SlowerMeansBeyondThePercentAndBeyondTwiceTheCov) {
  // A 10 ms, B 11 ms: +10%. Each side's CoV is stddev / mean of its STAT line.
  auto pair_with_cov = [](double stddev_ms) {
    return compare_logs({log_of(meta_log("float32", 1, 8, 10.0, stddev_ms), "")},
                        {log_of(meta_log("float32", 1, 8, 11.0, stddev_ms), "")});
  };
  EXPECT_EQ(slower_pairs(pair_with_cov(0.1), 5).size(), 1u) << "CoV 1%: +10% is beyond 5% and 2%";
  EXPECT_EQ(slower_lines(pair_with_cov(0.1), 5), "m c float32      8      1: B/A latency 1.100x (+10.0% > 5%, 2 x CoV 2.0%)\n");
  EXPECT_TRUE(slower_pairs(pair_with_cov(0.1), 15).empty()) << "within the percent";
  EXPECT_TRUE(slower_pairs(pair_with_cov(0.6), 5).empty()) << "CoV 6%: +10% is within twice the noise";
}

// Defect: two runs of one configuration with other run ids (a campaign's runs named after what they run) paired
// nothing: an empty table and exit 0. Now one line saying what each side pairs by and what to pass; and with no
// size in common, or a side without a result, a runtime Error.
TEST(Compare, AnEmptyComparisonIsAnErrorSayingWhatToPass) {
  const std::vector<ParsedLog> a = {log_of(meta_log("float32", 1, 8, 10.0), "enc-t1.1")};
  const std::vector<ParsedLog> b = {log_of(meta_log("float32", 1, 8, 9.0), "enc-t1-new.1")};
  EXPECT_EQ(usage_message(a, b, {}),
            "--compare: no combination of A pairs with one of B: they pair by run (the run_id label, else model, class "
            "and precision) (A: 'enc-t1.1'; B: 'enc-t1-new.1'); pass --match input,batch to pair on the sizes alone, "
            "or --match KEYS with the keys that should agree");
  CompareOptions sizes;
  sizes.match = {"input", "batch"};
  EXPECT_DOUBLE_EQ(compare_logs(a, b, sizes).pairs.at(0).latency_ratio(), 0.9);
  try {
    compare_logs(a, {log_of(meta_log("float32", 1, 16, 9.0), "enc-t1.1")});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), 1);
    EXPECT_EQ(std::string(e.what()), "--compare: A and B have no input and batch in common: nothing to compare; run both "
                                     "on the same --input_sizes and --batch_sizes");
  }
}

// Defect: a campaign's model name is its path relative to the campaign ("models/enc/model.pt"), a run by hand
// names it where it lies: the two never paired ("differ in model"). They pair by the folder's name, and the
// table says so.
TEST(Compare, ModelsPairByTheirFolderNameAndTheTableSaysSo) {
  const auto with_model = [](const std::string& model) {
    std::string text = meta_log("float32", 1, 8, 10.0);
    text.replace(text.find(" m c "), 5, " " + model + " c ");
    return log_of(text, "");
  };
  const Comparison c = compare_logs({with_model("models/enc/model.pt")}, {with_model("/home/u/encoders/enc/model.pt")});
  ASSERT_EQ(c.pairs.size(), 1u);
  EXPECT_EQ(c.pairs[0].key.run, "enc c float32");
  EXPECT_NE(compare_report(c).find("\nmodels paired by their folder's name: A models/enc/model.pt, B "
                                   "/home/u/encoders/enc/model.pt are both enc\n"),
            std::string::npos) << compare_report(c);
  // Two models of other names are still two models.
  EXPECT_NE(usage_message({with_model("models/enc/model.pt")}, {with_model("models/other/model.pt")}, {})
                .find("they differ in model (A: enc, B: other)"),
            std::string::npos);
}

// A run of mixed lengths on either side: the comparison is on real tokens per second (STAT's), not on a median
// batch latency, and says so.
TEST(Compare, MixedLengthsCompareOnRealTokensPerSecond) {
  const auto mixed = [](double ms, double tokens_per_s) {
    return log_of(fmt::format("FMWORK META driver=0.1.0 batching=sorted lengths=uniform:1,64\n"
                              "FMWORK RES 1.000000000 2.000000000 m c 64 8 {0:.3f} 1.0\n"
                              "FMWORK STAT input=64 batch=8 reps=20 dropped=4 mean_ms={0:.6f} stddev_ms={2:.6f} "
                              "min_ms={0:.6f} p50_ms={0:.6f} p90_ms={0:.6f} p99_ms={0:.6f} max_ms={0:.6f} tokens_per_s={1:.3f} "
                              "real_tokens=200.0 padded_tokens=300.0 padding=0.3333 padded_tokens_per_s=1.0 "
                              "work_cov=0.0200 work_p90_p50=1.0200\n",
                              ms, tokens_per_s, ms * 0.4),
                  "r");
  };
  // B's median batch is faster (4 ms against 10), but over the kept reps it did fewer real tokens a second.
  const Comparison c = compare_logs({mixed(10.0, 2000.0)}, {mixed(4.0, 1600.0)});
  ASSERT_EQ(c.pairs.size(), 1u);
  EXPECT_EQ(c.measure, Measure::real_tokens);
  EXPECT_DOUBLE_EQ(c.pairs[0].tokens_ratio(), 0.8);
  EXPECT_DOUBLE_EQ(c.pairs[0].time_ratio(), 1.25);
  // The spread is the rates' CoV at equal work (2%), not the batches' spread (40%): 2000 +- 40 against 1600 +- 32.
  EXPECT_EQ(c.pairs[0].noise(), std::optional<bool>(false));
  const std::string table = compare_report(c);
  EXPECT_NE(table.find("run  input  batch  A real_tok/s  B real_tok/s  B/A tok/s    B/A lat  spread  verdicts\n"
                       "r     64      8        2000.0        1600.0     0.800x     0.400x  beyond  \n"
                       "measure: real tokens per second"),
            std::string::npos) << table;
  EXPECT_EQ(slower_lines(c, 5), "r     64      8: B/A time per real token 1.250x (+25.0% > 5%, 2 x CoV 4.0%)\n");
  EXPECT_NE(compare_csv(c, std::nullopt).find(",real_tokens_per_s,1.25\n"), std::string::npos);
}

// The attention implementation and the GELU epilogue (META attention=, gelu_epilogue=) are the computation that
// ran: a pair differing in one is two experiments.
TEST(Compare, AttentionAndGeluEpilogueMatter) {
  const auto with = [](const std::string& extra) {
    std::string text = meta_log("float32", 1, 8, 10.0);
    text.insert(text.find('\n'), " " + extra);
    return std::vector<ParsedLog>{log_of(text, "r")};
  };
  EXPECT_EQ(usage_message(with("attention=eager gelu_epilogue=false"), with("attention=sdpa gelu_epilogue=false"), {}),
            "--compare: r      8      1 differs in attention (A: eager, B: sdpa); compare like with like, or pass "
            "--ignore-meta attention to pair them anyway");
  EXPECT_EQ(usage_message(with("attention=sdpa gelu_epilogue=true"), with("attention=sdpa gelu_epilogue=false"), {}),
            "--compare: r      8      1 differs in gelu_epilogue (A: true, B: false); compare like with like, or pass "
            "--ignore-meta gelu_epilogue to pair them anyway");
  EXPECT_EQ(compare_logs(with("attention=sdpa"), with("attention=sdpa gelu_epilogue=false")).pairs.size(), 1u)
      << "a key one side does not state is not held against the other";
}
}  // namespace
}  // namespace fmwork
