#include "fmwork/workload/capacity_search.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "fmwork/workload/serve_loop.hpp"
#include "support/sim_clock.hpp"

namespace fmwork {
namespace {

SearchStep holds_up_to(double limit, double rate) {
  SearchStep s;
  s.rate = rate;
  s.valid = rate <= limit;
  s.value_ms = rate;
  return s;
}

// A level on the simulated loop as driver serve runs one in the search: batches of up to 8 queries costing 4 ms +
// 2 ms a query, and the step's early stop taken from the level's evidence (lower_rate_cannot_help).
SearchStep simulated_step(double rate, const LatencyBound& bound, ServeNanos max_wait) {
  SimClock clock;
  ServePlan plan;
  plan.rate_per_s = rate;
  plan.warmup = kSecond / 2;
  plan.min_duration = 2 * kSecond;
  plan.min_queries = 100;
  plan.limits = BatchLimits{8, max_wait, 0, Batching::padded};
  LengthSampler lengths(parse_length_spec("16", "--input_lengths"), 1);
  const ServeRun run = run_serve_level(plan, lengths, clock, [&](const BatchToRun& b) {
    clock.advance(4 * kMs + 2 * kMs * static_cast<ServeNanos>(b.lengths.size()));
  });
  const LevelSummary s = summarize_level(run, plan, bound);
  SearchStep step{rate, s.valid, s.bound_value_ms, s.achieved_qps, s.reason};
  step.lower_cannot_help = lower_rate_cannot_help(s, bound);
  return step;
}

TEST(CapacitySearch, DoublesThenBisectsToWithinTheTolerance) {
  SearchPlan plan;
  plan.start_rate = 10;
  const CapacityResult r = search_capacity(plan, [](double rate) { return holds_up_to(37.3, rate); });
  ASSERT_TRUE(r.capacity);
  EXPECT_LE(*r.capacity, 37.3);
  EXPECT_GE(*r.capacity, 37.3 * (1 - plan.tolerance));
  ASSERT_GE(r.tried.size(), 4u);
  EXPECT_EQ(r.tried[0].rate, 10);
  EXPECT_EQ(r.tried[1].rate, 20);
  EXPECT_EQ(r.tried[2].rate, 40);
  EXPECT_FALSE(r.tried[2].valid);
  EXPECT_EQ(r.tried[3].rate, 30);
  EXPECT_EQ(tried_text({r.tried[0], r.tried[2]}), "10:pass:10.000,40:fail:40.000");
}

TEST(CapacitySearch, HalvesFromATooHighStartAndGivesUpBelowTheFloor) {
  SearchPlan plan;
  plan.start_rate = 100;
  const CapacityResult r = search_capacity(plan, [](double rate) { return holds_up_to(7, rate); });
  ASSERT_TRUE(r.capacity);
  EXPECT_GE(*r.capacity, 7 * (1 - plan.tolerance));
  EXPECT_LE(*r.capacity, 7);
  plan.floor_rate = 1;
  const CapacityResult none = search_capacity(plan, [](double rate) { return holds_up_to(0.5, rate); });
  EXPECT_FALSE(none.capacity);
  EXPECT_EQ(none.tried.back().rate, 1.5625);  // 100 / 64, the last above the floor
}

TEST(CapacitySearch, StopsHalvingWhereALowerRateCannotHelp) {
  // A level whose model alone is slower than the bound: no capacity, and no level below it is run.
  SearchPlan plan;
  plan.start_rate = 40;
  int calls = 0;
  const CapacityResult r = search_capacity(plan, [&](double rate) {
    ++calls;
    SearchStep s = holds_up_to(0, rate);
    s.lower_cannot_help = rate <= 20;
    return s;
  });
  EXPECT_FALSE(r.capacity);
  EXPECT_EQ(calls, 2);  // 40 (queueing might be why), then 20, where the model's own time is above the bound
  EXPECT_EQ(r.tried.back().rate, 20);
}

TEST(CapacitySearch, StopsAtItsStepLimit) {
  SearchPlan plan;
  plan.start_rate = 1;
  plan.max_steps = 5;
  plan.tolerance = 1e-6;
  const CapacityResult r = search_capacity(plan, [](double rate) { return holds_up_to(1000.5, rate); });
  EXPECT_EQ(r.tried.size(), 5u);
}

TEST(CapacitySearch, OnTheSimulatedLoopTheCapacityHoldsTheBoundAndTheNextRateDoesNot) {
  // Batch cost 4 ms + 2 ms a query, up to 8 a batch: p99 <= 30 ms holds up to some rate below 8 / 20 ms = 400/s.
  const LatencyBound bound = parse_latency_bound("p99:30", "--latency_bound");
  auto level = [&](double rate) { return simulated_step(rate, bound, 2 * kMs); };
  SearchPlan plan;
  plan.start_rate = 20;
  const CapacityResult r = search_capacity(plan, level);
  ASSERT_TRUE(r.capacity);
  ASSERT_TRUE(r.lowest_failed);
  EXPECT_LT(*r.capacity, 400);
  EXPECT_GT(*r.capacity, 40);
  EXPECT_TRUE(level(*r.capacity).valid);
  EXPECT_FALSE(level(*r.lowest_failed).valid);
  EXPECT_NEAR(cost_per_million(3.6, 1000), 1.0, 1e-12);
}

// A start far above the capacity fails for its queue: the search halves down to the floor before it may say that
// no rate holds, whatever its step limit.
TEST(CapacitySearch, AFailingStartHalvesToTheFloorWhateverTheStepLimit) {
  SearchPlan plan;
  plan.start_rate = 1000;
  plan.floor_rate = 1000.0 / 64;
  plan.max_steps = 2;
  const CapacityResult r = search_capacity(plan, [](double rate) { return holds_up_to(20, rate); });
  ASSERT_TRUE(r.capacity) << fmt::format("no capacity after {}", tried_text(r.tried));
  EXPECT_EQ(*r.capacity, 15.625) << tried_text(r.tried);
}

// The evidence an early stop rests on: started at 1000 queries/s, the level runs full batches of 8 (20 ms each,
// above the 15 ms bound), but one query a batch takes 6 ms and holds it. Full batches' times prove nothing:
// the search goes on down and finds the rate that holds.
TEST(CapacitySearch, AStartFarAboveTheCapacityIsNoProofThatNoRateHolds) {
  const LatencyBound bound = parse_latency_bound("p99:15", "--latency_bound");
  auto level = [&](double rate) { return simulated_step(rate, bound, 0); };
  SearchPlan plan;
  plan.start_rate = 1000;
  plan.floor_rate = 1000.0 / 64;
  plan.max_steps = 12;
  const CapacityResult r = search_capacity(plan, level);
  EXPECT_FALSE(r.tried.front().valid) << "the start must fail";
  ASSERT_TRUE(r.capacity) << fmt::format("no rate holds, after {}", tried_text(r.tried));
  EXPECT_TRUE(level(*r.capacity).valid);

  // A level of lone queries each slower than the bound is a proof: the search stops there.
  const LatencyBound tight = parse_latency_bound("p99:5", "--latency_bound");
  SimClock clock;
  ServePlan slow;
  slow.rate_per_s = 20;
  slow.warmup = kSecond / 2;
  slow.min_duration = 2 * kSecond;
  slow.min_queries = 20;
  slow.limits = BatchLimits{1, 0, 0, Batching::padded};  // every batch one query
  LengthSampler lengths(parse_length_spec("16", "--input_lengths"), 1);
  const ServeRun run = run_serve_level(slow, lengths, clock, [&](const BatchToRun&) { clock.advance(6 * kMs); });
  const LevelSummary lone = summarize_level(run, slow, tight);
  ASSERT_EQ(lone.batch_histogram.size(), 1u) << histogram_text(lone.batch_histogram);
  EXPECT_TRUE(lower_rate_cannot_help(lone, tight)) << lone.reason;
}

// No rate runs twice: a rate measured before the search (a --rates level) is taken as it was.
TEST(CapacitySearch, ARateMeasuredBeforeIsNotRunAgain) {
  SearchPlan plan;
  plan.start_rate = 10;
  plan.known = {holds_up_to(37.3, 10), holds_up_to(37.3, 40)};
  std::vector<double> ran;
  const CapacityResult r = search_capacity(plan, [&](double rate) {
    ran.push_back(rate);
    return holds_up_to(37.3, rate);
  });
  ASSERT_TRUE(r.capacity);
  EXPECT_GE(*r.capacity, 37.3 * (1 - plan.tolerance));
  for (double rate : ran) EXPECT_TRUE(rate != 10 && rate != 40) << "ran " << rate << " again: " << tried_text(r.tried);
  ASSERT_GE(r.tried.size(), 3u);
  EXPECT_TRUE(r.tried[0].reused);
  EXPECT_EQ(r.tried[1].rate, 20);
  EXPECT_FALSE(r.tried[1].reused);
  EXPECT_TRUE(r.tried[2].reused) << "40 was known to fail";
  std::set<double> rates;
  for (const SearchStep& s : r.tried) EXPECT_TRUE(rates.insert(s.rate).second) << tried_text(r.tried);
}

// A budget that runs out (stop_before) ends the search with the bracket found so far: partial, never nothing.
TEST(CapacitySearch, ASpentBudgetEndsTheSearchPartialWithTheBracketSoFar) {
  SearchPlan plan;
  plan.start_rate = 10;
  plan.stop_before = [](double rate) { return rate > 30 && rate < 40 ? std::string("the budget is spent") : ""; };
  const CapacityResult r = search_capacity(plan, [](double rate) { return holds_up_to(37.3, rate); });
  EXPECT_TRUE(r.partial());
  EXPECT_EQ(r.stopped, "the budget is spent");
  ASSERT_TRUE(r.capacity && r.lowest_failed) << tried_text(r.tried);
  EXPECT_EQ(*r.capacity, 30);
  EXPECT_EQ(*r.lowest_failed, 40);
  EXPECT_EQ(tried_text(r.tried), "10:pass:10.000,20:pass:20.000,40:fail:40.000,30:pass:30.000") << "35 was never run";

  // Stopped before the first level: nothing found, and it says so.
  plan.stop_before = [](double) { return std::string("the budget is spent"); };
  const CapacityResult none = search_capacity(plan, [](double rate) { return holds_up_to(37.3, rate); });
  EXPECT_TRUE(none.partial());
  EXPECT_TRUE(none.tried.empty());
  EXPECT_FALSE(none.capacity || none.lowest_failed);
}

// A level cut short by a stop the user asked for (LevelStopped) is no step: the search ends there, partial.
TEST(CapacitySearch, ALevelCutShortIsNoStepAndEndsTheSearch) {
  SearchPlan plan;
  plan.start_rate = 100;
  const CapacityResult r = search_capacity(plan, [](double rate) -> SearchStep {
    if (rate < 30) throw LevelStopped("SIGINT asked to stop");
    return holds_up_to(7, rate);
  });
  EXPECT_EQ(r.stopped, "SIGINT asked to stop");
  EXPECT_EQ(tried_text(r.tried), "100:fail:100.000,50:fail:50.000");
  EXPECT_FALSE(r.capacity);
  ASSERT_TRUE(r.lowest_failed);
  EXPECT_EQ(*r.lowest_failed, 50);
}

// A level that ran while other work held the CPU proves nothing about lower rates: the search goes on halving.
TEST(CapacitySearch, AContendedLevelIsNoProofThatNoLowerRateHelps) {
  SearchPlan plan;
  plan.start_rate = 100;
  plan.floor_rate = 100.0 / 64;
  const CapacityResult r = search_capacity(plan, [](double rate) {
    SearchStep s = holds_up_to(10, rate);
    s.lower_cannot_help = !s.valid;  // what a busy machine's slow lone queries look like
    s.contended = !s.valid;
    return s;
  });
  ASSERT_TRUE(r.capacity) << tried_text(r.tried);
  EXPECT_LE(*r.capacity, 10);
  EXPECT_GE(*r.capacity, 10 * (1 - plan.tolerance));
  EXPECT_EQ(r.contended_steps(), std::count_if(r.tried.begin(), r.tried.end(), [](const SearchStep& s) { return !s.valid; }));
  EXPECT_FALSE(r.partial());
}

// A level measured before the search that its walk never reached still bounds the answer: a start far above the
// capacity halves to its floor, and the --rates level that held below it is the capacity.
TEST(CapacitySearch, AMeasuredPassBelowTheFloorIsStillTheCapacity) {
  SearchPlan plan;
  plan.start_rate = 12800;
  plan.floor_rate = 200;
  plan.known = {holds_up_to(30, 20)};
  const CapacityResult r = search_capacity(plan, [](double rate) { return holds_up_to(30, rate); });
  ASSERT_TRUE(r.capacity) << tried_text(r.tried);
  EXPECT_EQ(*r.capacity, 20);
  ASSERT_TRUE(r.lowest_failed);
  EXPECT_EQ(*r.lowest_failed, 200);
  EXPECT_TRUE(r.tried.back().reused) << tried_text(r.tried);

  // Stopped before its first level, a search still gives the bracket the measured levels make.
  plan.known = {holds_up_to(30, 20), holds_up_to(30, 200)};
  plan.start_rate = 20;
  plan.stop_before = [](double) { return std::string("SIGINT asked to stop"); };
  const CapacityResult stopped = search_capacity(plan, [](double rate) { return holds_up_to(30, rate); });
  EXPECT_TRUE(stopped.partial());
  ASSERT_TRUE(stopped.capacity && stopped.lowest_failed) << tried_text(stopped.tried);
  EXPECT_EQ(*stopped.capacity, 20);
  EXPECT_EQ(*stopped.lowest_failed, 200);
}

// The step limit counts the levels the search runs, not the measured ones it takes.
TEST(CapacitySearch, MeasuredLevelsDoNotCountAgainstTheStepLimit) {
  SearchPlan plan;
  plan.start_rate = 10;
  plan.max_steps = 1;
  plan.known = {holds_up_to(37.3, 10)};
  int ran = 0;
  const CapacityResult r = search_capacity(plan, [&](double rate) {
    ++ran;
    return holds_up_to(37.3, rate);
  });
  EXPECT_EQ(ran, 1) << tried_text(r.tried);
  EXPECT_EQ(tried_text(r.tried), "10:pass:10.000,20:pass:20.000");
}

}  // namespace
}  // namespace fmwork
