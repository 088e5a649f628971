#include "fmwork/workload/capacity_search.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "fmwork/workload/serve_loop.hpp"
#include "support/sim_clock.hpp"

namespace fmwork {
namespace {

SearchStep holds_up_to(double limit, double rate) {
  SearchStep s;
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

}  // namespace
}  // namespace fmwork
