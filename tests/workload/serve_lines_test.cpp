#include "fmwork/workload/serve_lines.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "fmwork/base/error.hpp"
#include "fmwork/log/log_records.hpp"
#include "support/sim_clock.hpp"

namespace fmwork {
namespace {

TEST(ServeLines, ALevelAndASearchWriteLinesThatReadBack) {
  SimClock clock;
  const ServePlan plan = open_plan(50, 4, 3 * kMs, kSecond, 20);
  LengthSampler lengths(parse_length_spec("32", "--input_lengths"), 1);
  const ServeRun run = run_serve_level(plan, lengths, clock, [&](const BatchToRun&) { clock.advance(4 * kMs); });
  const LatencyBound bound = parse_latency_bound("p99:50", "--latency_bound");
  const LevelSummary summary = summarize_level(run, plan, bound);
  const std::string serve = format_line(make_serve_line({1, "levels", length_spec_text(lengths.spec()), "padded"}, plan, summary, bound));
  EXPECT_EQ(serve.rfind("FMWORK SERVE level=1 phase=levels arrival=poisson rate=50.000 lengths=fixed:32 ", 0), 0u)
      << serve;
  EXPECT_NE(serve.find(" verdict=VALID reason=kept up, enough queries, p99 "), std::string::npos) << serve;

  CapacityResult result;
  result.tried = {{20, true, 10.5, 20, ""}, {40, false, 80.25, 35, ""}, {30, true, 20, 30, ""}};
  result.capacity = 30;
  result.lowest_failed = 40;
  const std::string capacity = format_line(make_capacity_line(bound, result, {29.5, std::nullopt}, 3.0));
  EXPECT_EQ(capacity,
            "FMWORK CAPACITY bound=p99:50 result=found capacity_qps=30.000 bound_ms=20.000 achieved_qps=29.500 "
            "lowest_failed_qps=40.000 steps=3 tried=20:pass:10.500,40:fail:80.250,30:pass:20.000 "
            "price_per_hour=3.0000 usd_per_million=27.777778 reason=capacity at p99 <= 50 ms: 30.00 queries/s after 3 "
            "levels, $27.7778 per million queries at $3/h");
  const ParsedLog log = parse_log_text(serve + "\n" + capacity + "\n", "serve.log");
  ASSERT_EQ(log.serve.size(), 1u);
  ASSERT_EQ(log.capacity.size(), 1u);
  EXPECT_EQ(format_line(log.serve[0]), serve);
  EXPECT_EQ(format_line(log.capacity[0]), capacity);
  // A bad verdict is refused by the reader like any other malformed field.
  EXPECT_THROW(parse_log_text("FMWORK SERVE level=1 phase=levels arrival=poisson verdict=MAYBE reason=x\n", "x.log"),
               Error);
}

// An overloaded level whose first batch outlasts the level: no measured query is answered, so it has no
// latency, busy share or achieved rate. None of them is written as a number (0 was read as "instant"); the
// reason says why, and the bound is "not measured", not "0.000 ms > 50 ms".
TEST(ServeLines, ALevelThatAnsweredNoQueryHasNoFiguresItDidNotMeasure) {
  SimClock clock;
  const ServePlan plan = open_plan(200, 4, 0, kSecond, 20);
  LengthSampler lengths(parse_length_spec("32", "--input_lengths"), 1);
  const ServeRun run = run_serve_level(plan, lengths, clock, [&](const BatchToRun&) { clock.advance(100 * kSecond); });
  const LatencyBound bound = parse_latency_bound("p99:50", "--latency_bound");
  const LevelSummary summary = summarize_level(run, plan, bound);
  ASSERT_EQ(summary.queries, 0) << "the plan must answer no measured query";
  const std::string line = format_line(make_serve_line({1, "levels", "fixed:32", "padded"}, plan, summary, bound));
  for (const char* key : {"p50_ms=", "p90_ms=", "p99_ms=", "p999_ms=", "max_ms=", "mean_ms=", "queue_p50_ms=",
                          "busy=", "achieved_qps=", "tokens_per_s=", "bound_ms=", "window_s="})
    EXPECT_EQ(line.find(std::string(" ") + key), std::string::npos) << fmt::format("{} written: {}", key, line);
  EXPECT_NE(line.find("no latency: no query scheduled after the warm-up was answered"), std::string::npos) << line;
  EXPECT_NE(line.find("p99 not measured, so not held to 50 ms"), std::string::npos) << line;
  EXPECT_NE(line.find(" verdict=INVALID "), std::string::npos) << line;
  const ParsedLog log = parse_log_text(line + "\n", "serve.log");
  ASSERT_EQ(log.serve.size(), 1u) << "the line reads back";

  CapacityResult result;
  result.tried = {{80, false, std::nullopt, 0, ""}};
  const std::string capacity = format_line(make_capacity_line(bound, result, {}, std::nullopt));
  EXPECT_NE(capacity.find(" tried=80:fail:- "), std::string::npos) << capacity;
  EXPECT_NE(capacity.find("80 queries/s, failed (no measured query (no latency)), and the search goes no lower than its floor"), std::string::npos) << capacity;
}

// Where the device has an energy counter, a level's SERVE line carries its energy per 1000 answered queries,
// the mean power and the window; the CAPACITY line the capacity level's energy. Without one, neither is written.
TEST(ServeLines, TheEnergyOfALevelAndOfTheCapacityWhereMeasured) {
  SimClock clock;
  const ServePlan plan = open_plan(50, 4, 3 * kMs, kSecond, 20);
  LengthSampler lengths(parse_length_spec("32", "--input_lengths"), 1);
  const ServeRun run = run_serve_level(plan, lengths, clock, [&](const BatchToRun&) { clock.advance(4 * kMs); });
  LevelSummary summary = summarize_level(run, plan, std::nullopt);
  const ServeLabels labels{1, "levels", "fixed:32", "unpadded"};
  const std::string without = format_line(make_serve_line(labels, plan, summary, std::nullopt));
  for (const char* key : {" joules_per_1000_q=", " watts=", " energy_window_s="})
    EXPECT_EQ(without.find(key), std::string::npos) << key << " written without a counter: " << without;
  summary.joules_per_1000_q = 812.5, summary.watts = 402.3, summary.energy_window_s = 3.25;
  const std::string with = format_line(make_serve_line(labels, plan, summary, std::nullopt));
  EXPECT_NE(with.find(" busy="), std::string::npos) << with;
  EXPECT_NE(with.find(" joules_per_1000_q=812.500 watts=402.3 energy_window_s=3.250 verdict="), std::string::npos)
      << with;

  const LatencyBound bound = parse_latency_bound("p99:130", "--latency_bound");
  CapacityResult result;
  result.tried = {{20, true, 10.5, 20, ""}};
  result.capacity = 20;
  const std::string capacity = format_line(make_capacity_line(bound, result, {19.5, 812.5}, std::nullopt));
  EXPECT_NE(capacity.find(" steps=1 tried=20:pass:10.500 joules_per_1000_q=812.500 reason="), std::string::npos)
      << capacity;
  const ParsedLog log = parse_log_text(with + "\n" + capacity + "\n", "serve.log");
  ASSERT_EQ(log.serve.size(), 1u);
  ASSERT_EQ(log.capacity.size(), 1u);
  EXPECT_EQ(format_line(log.capacity[0]), capacity);
  result.capacity.reset();
  const std::string none = format_line(make_capacity_line(bound, result, {std::nullopt, 812.5}, std::nullopt));
  EXPECT_EQ(none.find("joules_per_1000_q="), std::string::npos) << "no capacity, no energy at it: " << none;
}

// A level run while other work held the CPU says so as the sweep does: the CPU shares, timing=contended and the
// reason's words; a quiet one timing=ok. A level measured on no CPU counters (another device) writes neither.
TEST(ServeLines, AContendedLevelSaysSoAndIsNoProofForTheSearch) {
  SimClock clock;
  const ServePlan plan = open_plan(50, 1, 0, kSecond, 20);
  LengthSampler lengths(parse_length_spec("32", "--input_lengths"), 1);
  const ServeRun run = run_serve_level(plan, lengths, clock, [&](const BatchToRun&) { clock.advance(8 * kMs); });
  const LatencyBound bound = parse_latency_bound("p99:5", "--latency_bound");  // lone queries of 8 ms: a proof
  LevelSummary summary = summarize_level(run, plan, bound);
  ASSERT_TRUE(lower_rate_cannot_help(summary, bound)) << summary.reason;
  const ServeLabels labels{1, "search", "fixed:32", "padded"};
  const std::string unmetered = format_line(make_serve_line(labels, plan, summary, bound));
  EXPECT_EQ(unmetered.find(" timing="), std::string::npos) << unmetered;

  CpuUse quiet;
  quiet.cpu_share = 0.97, quiet.wait_share = 0.01;
  LevelSummary calm = summary;
  mark_contention(calm, quiet);
  const std::string ok = format_line(make_serve_line(labels, plan, calm, bound));
  EXPECT_NE(ok.find(" cpu_share=0.9700 wait_share=0.0100 timing=ok bound="), std::string::npos) << ok;
  EXPECT_EQ(ok.find("contended"), std::string::npos) << ok;

  CpuUse busy;
  busy.cpu_share = 0.45, busy.wait_share = 0.481;
  mark_contention(summary, busy);
  EXPECT_FALSE(lower_rate_cannot_help(summary, bound)) << "a busy machine's slow lone queries prove nothing";
  const std::string line = format_line(make_serve_line(labels, plan, summary, bound));
  EXPECT_NE(line.find(" cpu_share=0.4500 wait_share=0.4810 timing=contended bound="), std::string::npos) << line;
  EXPECT_NE(line.find("; contended: threads waited for a CPU 51.7% of the time they wanted one > 10.0%"), std::string::npos) << line;
  EXPECT_NE(line.find("rerun on a quiet machine"), std::string::npos) << line;
  const ParsedLog log = parse_log_text(line + "\n", "serve.log");
  ASSERT_EQ(log.serve.size(), 1u);
  EXPECT_EQ(*log.serve[0].fields.find("timing"), "contended");
}

// A capacity decided on contended levels says so in its fields and its reason; one found on quiet levels beside
// contended ones says how many were.
TEST(ServeLines, ACapacityFoundOnContendedLevelsSaysSo) {
  const LatencyBound bound = parse_latency_bound("p99:100", "--latency_bound");
  CapacityResult result;
  result.tried = {{10, true, 40, 10, ""}, {20, false, 150, 18, ""}, {15, true, 90, 15, ""}};
  result.tried[1].contended = true;
  result.capacity = 15;
  result.lowest_failed = 20;
  AtCapacity at{15, std::nullopt, true};
  const std::string line = format_line(make_capacity_line(bound, result, at, std::nullopt));
  EXPECT_NE(line.find(" timing=contended contended_levels=1 reason=capacity at p99 <= 100 ms: 15.00 queries/s after 3 "
                      "levels; found on contended levels (1 of 3 levels contended, at 20 queries/s): other work held "
                      "the CPU, so the figure is the busy machine's; rerun on a quiet machine"),
            std::string::npos)
      << line;
  result.tried[1].contended = false;
  const std::string quiet = format_line(make_capacity_line(bound, result, at, std::nullopt));
  EXPECT_NE(quiet.find(" timing=ok contended_levels=0 reason=capacity at p99 <= 100 ms: 15.00 queries/s after 3 levels"),
            std::string::npos) << quiet;
  EXPECT_EQ(quiet.find("busy machine"), std::string::npos) << quiet;
  const ParsedLog log = parse_log_text(line + "\n" + quiet + "\n", "serve.log");
  EXPECT_EQ(log.capacity.size(), 2u);
}

// A search the budget or a Ctrl-C ended: result=partial, the bracket so far, and why it stopped.
TEST(ServeLines, APartialSearchGivesTheBracketFoundSoFar) {
  const LatencyBound bound = parse_latency_bound("p99:100", "--latency_bound");
  CapacityResult result;
  result.tried = {{10, true, 40, 10, ""}, {20, false, 150, 18, ""}};
  result.capacity = 10;
  result.lowest_failed = 20;
  result.stopped = "the time budget, --search_budget_s 30: 25.0 s spent, and the level at 15 queries/s would take about 7.7 s more";
  const std::string line = format_line(make_capacity_line(bound, result, {10, std::nullopt}, 2.0));
  EXPECT_NE(line.find(" result=partial capacity_qps=10.000 "), std::string::npos) << line;
  EXPECT_NE(line.find(" lowest_failed_qps=20.000 "), std::string::npos) << line;
  EXPECT_NE(line.find("reason=partial: the search stopped after 2 levels (the time budget, --search_budget_s 30: "),
            std::string::npos) << line;
  EXPECT_NE(line.find("p99 <= 100 ms held at 10 queries/s, failed at 20: the capacity lies between them, $"),
            std::string::npos) << line;
  const ParsedLog log = parse_log_text(line + "\n", "serve.log");
  ASSERT_EQ(log.capacity.size(), 1u);
  EXPECT_EQ(*log.capacity[0].fields.find("result"), "partial");

  CapacityResult nothing;
  nothing.stopped = "SIGINT asked to stop";
  const std::string empty = format_line(make_capacity_line(bound, nothing, {}, std::nullopt));
  EXPECT_NE(empty.find(" result=partial steps=0 tried=- reason=partial: the search stopped after 0 levels (SIGINT asked "
                       "to stop); no level finished: nothing is known of p99 <= 100 ms yet"), std::string::npos) << empty;
}

// An overloaded level: the warm-up's queries queue up and their batches drain well into the window. Those
// batches kept the device busy there, but they hold no measured query: batches, mean_batch and the histogram
// count only the batches that do.
TEST(ServeLines, WarmUpBatchesDrainingIntoTheWindowAreNotCountedAsMeasured) {
  SimClock clock;
  const ServePlan plan = open_plan(400, 1, 0, kSecond, 20);  // 200 warm-up queries in 0.5 s, 10 ms a batch of one
  LengthSampler lengths(parse_length_spec("32", "--input_lengths"), 1);
  const ServeRun run = run_serve_level(plan, lengths, clock, [&](const BatchToRun&) { clock.advance(10 * kMs); });
  int64_t measured_batches = 0, warmup_batches_in_window = 0;
  for (const BatchRun& b : run.batches) {
    if (b.measured > 0) ++measured_batches;
    else if (b.end > run.warmup) ++warmup_batches_in_window;
  }
  ASSERT_GT(warmup_batches_in_window, 0) << "the plan must drain warm-up batches into the window";
  const LevelSummary summary = summarize_level(run, plan, std::nullopt);
  EXPECT_EQ(summary.batches, measured_batches);
  EXPECT_EQ(summary.batch_histogram, (std::vector<std::pair<int64_t, int64_t>>{{1, measured_batches}}));
  EXPECT_EQ(summary.queries, measured_batches) << "one query a batch";
}

// A level that waited for a core at each batch but left the device idle between them: the wait is a small share
// of the wall time and a large one of the time it wanted a CPU. That is contention; a nearly idle level's trace of
// waiting is not.
TEST(ServeLines, ALightLevelThatWaitedForEachCoreIsContended) {
  LevelSummary light;
  CpuUse use;
  use.cpu_share = 0.029, use.wait_share = 0.074;
  mark_contention(light, use);
  EXPECT_FALSE(light.contended.empty()) << "waited 72% of the time it wanted a CPU";
  LevelSummary idle;
  use.cpu_share = 0.001, use.wait_share = 0.0005;
  mark_contention(idle, use);
  EXPECT_TRUE(idle.contended.empty()) << idle.contended;
  LevelSummary quiet;
  use.cpu_share = 0.5, use.wait_share = 0.02;
  mark_contention(quiet, use);
  EXPECT_TRUE(quiet.contended.empty()) << quiet.contended;
}

}  // namespace
}  // namespace fmwork
