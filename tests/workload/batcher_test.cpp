#include "fmwork/workload/batcher.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "fmwork/workload/arrivals.hpp"
#include "fmwork/workload/serve_loop.hpp"
#include "support/sim_clock.hpp"

namespace fmwork {
namespace {

std::deque<Waiting> queue_of(const std::vector<int64_t>& lengths, ServeNanos first = 0) {
  std::deque<Waiting> q;
  for (size_t i = 0; i < lengths.size(); ++i)
    q.push_back(Waiting{static_cast<int64_t>(i), first + static_cast<ServeNanos>(i), lengths[i]});
  return q;
}

TEST(Batcher, TakesTheLongestPrefixWithinSizeAndTokens) {
  const BatchLimits size_only{4, 0, 0, Batching::padded};
  EXPECT_EQ(batch_pick(queue_of({8, 8, 8, 8, 8, 8}), size_only).size(), 4u);
  EXPECT_EQ(batch_pick(queue_of({8, 8}), size_only).size(), 2u);
  EXPECT_EQ(batch_pick({}, size_only).size(), 0u);
  // Padded: size x longest. 10+10 = 2 x 10 = 20 fits 32; a third of 10 is 30; then one of 16 makes 4 x 16 = 64.
  const BatchLimits padded{8, 0, 32, Batching::padded};
  EXPECT_EQ(batch_pick(queue_of({10, 10, 10, 16}), padded).size(), 3u);
  // Real tokens: 10 + 10 + 10 = 30; + 16 = 46 > 32.
  const BatchLimits real{8, 0, 32, Batching::unpadded};
  EXPECT_EQ(batch_pick(queue_of({10, 10, 10, 16}), real).size(), 3u);
  EXPECT_EQ(batch_pick(queue_of({4, 4, 4, 4, 30}), padded).size(), 4u);  // 5 x 30 = 150
  EXPECT_EQ(batch_pick(queue_of({4, 4, 4, 4, 30}), real).size(), 4u);    // 16 + 30 = 46
  EXPECT_EQ(batch_pick(queue_of({2, 2, 2, 2, 2}), real).size(), 5u);
}

TEST(Batcher, SortedTakesTheOldestWithTheNearestLengths) {
  const BatchLimits sorted{3, 0, 0, Batching::sorted};
  EXPECT_EQ(batch_pick(queue_of({50, 10, 48, 12, 51}), sorted), (std::vector<size_t>{0, 4, 2}));
  // Within a token budget: 3 x 51 = 153 > 120, so the oldest and one more.
  const BatchLimits budget{3, 0, 120, Batching::sorted};
  EXPECT_EQ(batch_pick(queue_of({50, 10, 48, 12, 51}), budget), (std::vector<size_t>{0, 4}));
  // FIFO for padded: the prefix.
  EXPECT_EQ(batch_pick(queue_of({50, 10, 48}), BatchLimits{2, 0, 0, Batching::padded}), (std::vector<size_t>{0, 1}));
}

// Defect: sorted's candidate window, kSortedWindow x the largest batch, overflowed for a --batch_sizes near 2^63
// and the pick threw std::length_error; any largest batch now takes what waits.
TEST(Batcher, AHugeLargestBatchTakesWhatWaits) {
  for (const Batching mode : batching_modes()) {
    const BatchLimits huge{INT64_MAX / 2, 0, 0, mode};
    EXPECT_EQ(batch_pick(queue_of({50, 10, 48}), huge).size(), 3u) << batching_name(mode);
    EXPECT_TRUE(batch_due(queue_of({50, 10, 48}), huge, 0, false));
  }
  // A batch of 2 looks among the oldest 32: 49 at position 15, not 50 at position 35.
  std::vector<int64_t> lengths(40, 10);
  lengths[0] = 50, lengths[15] = 49, lengths[35] = 50;
  EXPECT_EQ(batch_pick(queue_of(lengths), BatchLimits{2, 0, 0, Batching::sorted}), (std::vector<size_t>{0, 15}));
}

TEST(Batcher, DueWhenFullOrAtTheDeadlineOrWhenNothingMoreCanCome) {
  const BatchLimits limits{4, 5 * kMs, 0, Batching::padded};
  const auto two = queue_of({8, 8}, 10 * kMs);
  EXPECT_FALSE(batch_due(two, limits, 12 * kMs, true));
  EXPECT_TRUE(batch_due(two, limits, 15 * kMs, true));  // the oldest waited max_wait
  EXPECT_TRUE(batch_due(two, limits, 12 * kMs, false)); // waiting would only add latency
  EXPECT_EQ(batch_deadline(two, limits), 15 * kMs);
  EXPECT_TRUE(batch_due(queue_of({8, 8, 8, 8}, 10 * kMs), limits, 10 * kMs, true));  // full
  EXPECT_FALSE(batch_due({}, limits, 100 * kMs, false));
}

// The whole loop on a simulated clock, batch cost 1 ms + 0.5 ms a query: every batch within its limits, and
// no batch started later than its oldest query's deadline or the device's freeing, whichever is later.
TEST(Batcher, InTheLoopNeverExceedsItsLimitsNorWaitsPastItsMaximum) {
  for (const auto& [rate, max_batch, max_wait_ms, max_tokens] :
       std::vector<std::tuple<double, int64_t, int64_t, int64_t>>{
           {50, 8, 5, 0}, {400, 8, 5, 0}, {900, 4, 2, 0}, {300, 16, 10, 40}, {2000, 32, 1, 64}}) {
    SimClock clock;
    ServePlan plan;
    plan.rate_per_s = rate;
    plan.warmup = kSecond / 10;
    plan.min_duration = kSecond;
    plan.min_queries = 50;
    plan.limits = BatchLimits{max_batch, max_wait_ms * kMs, max_tokens, Batching::padded};
    LengthSampler lengths(parse_length_spec("8", "--input_lengths"), 1);
    const ServeRun run = run_serve_level(plan, lengths, clock, [&](const BatchToRun& b) {
      clock.advance(kMs + static_cast<ServeNanos>(b.lengths.size()) * kMs / 2);
    });
    ASSERT_FALSE(run.batches.empty());
    ServeNanos device_free = 0;
    size_t first_query = 0;
    for (const BatchRun& b : run.batches) {
      EXPECT_GE(b.size, 1);
      EXPECT_LE(b.size, max_batch);
      if (max_tokens > 0) {
        EXPECT_LE(b.padded_tokens, max_tokens);
      }
      // Queries are served oldest first: this batch's oldest is the first not yet dispatched.
      while (run.queries[first_query].dispatched != b.start) ++first_query;
      const ServeNanos deadline = run.queries[first_query].scheduled + max_wait_ms * kMs;
      EXPECT_LE(b.start, std::max(deadline, device_free)) << "rate " << rate;
      EXPECT_GE(b.start, device_free);
      device_free = b.end;
    }
    EXPECT_EQ(run.unanswered, 0);
  }
}

}  // namespace
}  // namespace fmwork
