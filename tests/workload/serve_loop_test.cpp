#include "fmwork/workload/serve_loop.hpp"

#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "fmwork/base/progress.hpp"

#include "fmwork/base/error.hpp"
#include "support/sim_clock.hpp"

namespace fmwork {
namespace {

// The latency definition: from the scheduled arrival to the batch's answer. One deliberately slow batch
// (300 ms, the others 2 ms) shows in the latency of the queries scheduled while it ran, and the schedule
// itself is what it was drawn to be (the generator never waited on the model: no coordinated omission).
TEST(ServeLoop, ASlowBatchShowsInLaterQueriesLatency) {
  SimClock clock;
  const ServePlan plan = open_plan(40, 1, 0);
  LengthSampler lengths(parse_length_spec("16", "--input_lengths"), 1);
  int batches = 0;
  ServeNanos slow_start = 0, slow_end = 0;
  const ServeRun run = run_serve_level(plan, lengths, clock, [&](const BatchToRun&) {
    if (++batches == 40) {
      slow_start = clock.now();
      clock.advance(300 * kMs);
      slow_end = clock.now();
    } else {
      clock.advance(2 * kMs);
    }
  });
  const std::vector<ServeNanos> drawn =
      poisson_schedule(plan.rate_per_s, plan.seed, plan.warmup, plan.min_duration, plan.min_queries);
  ASSERT_EQ(run.queries.size(), drawn.size());
  int delayed = 0;
  for (size_t i = 0; i < run.queries.size(); ++i) {
    const ServedQuery& q = run.queries[i];
    EXPECT_EQ(q.scheduled, drawn[i]);
    ASSERT_GE(q.done, q.dispatched);
    EXPECT_GE(q.dispatched, q.scheduled);
    if (q.scheduled > slow_start && q.scheduled < slow_end) {
      ++delayed;
      EXPECT_GE(q.done - q.scheduled, slow_end - q.scheduled) << "query " << i;
    }
  }
  EXPECT_GE(delayed, 3);  // about 12 expected at 40/s over 300 ms
  const LevelSummary s = summarize_level(run, plan, std::nullopt);
  EXPECT_GT(s.latency.max_ms, 250.0);  // the one scheduled first after the slow batch began waited most of it
  EXPECT_LT(s.latency.p50_ms, 10.0);   // the others waited for nothing but their own batch
}

TEST(ServeLoop, KeepsUpBelowCapacityAndFallsBehindAboveIt) {
  // Batch cost 5 ms + 1 ms a query, batches up to 8: capacity 8 / 13 ms ~ 615 queries/s.
  auto level = [](double rate) {
    SimClock clock;
    ServePlan plan = open_plan(rate, 8, 2 * kMs);
    LengthSampler lengths(parse_length_spec("32", "--input_lengths"), 1);
    const ServeRun run = run_serve_level(plan, lengths, clock, [&](const BatchToRun& b) {
      clock.advance(5 * kMs + static_cast<ServeNanos>(b.lengths.size()) * kMs);
    });
    return summarize_level(run, plan, parse_latency_bound("p99:50", "--latency_bound"));
  };
  const LevelSummary low = level(100);
  EXPECT_TRUE(low.valid) << low.reason;
  EXPECT_NEAR(low.achieved_qps / low.offered_qps, 1.0, 0.05);
  EXPECT_GT(low.busy, 0.0);
  EXPECT_LT(low.busy, 1.0);
  EXPECT_NEAR(low.tokens_per_s, low.achieved_qps * 32, 1e-6 * low.tokens_per_s);
  const LevelSummary high = level(1500);
  EXPECT_FALSE(high.valid);
  EXPECT_FALSE(high.kept_up);
  EXPECT_NE(high.reason.find("fell behind"), std::string::npos) << high.reason;
  EXPECT_GT(high.busy, 0.95);
  EXPECT_NEAR(high.mean_batch, 8.0, 0.5);  // a saturated device runs full batches
  EXPECT_LT(high.achieved_qps, 8.0 / 0.013 * 1.01);
}

// A closed loop of `users`, warmed up for 100 ms.
ServePlan closed_plan(int64_t users, ServeNanos min_duration, int64_t min_queries, BatchLimits limits) {
  ServePlan plan;
  plan.mode = ArrivalMode::closed;
  plan.users = users;
  plan.warmup = kSecond / 10;
  plan.min_duration = min_duration;
  plan.min_queries = min_queries;
  plan.limits = limits;
  return plan;
}

TEST(ServeLoop, ClosedLoopUsersSendTheirNextQueryWhenAnswered) {
  SimClock clock;
  const ServePlan plan = closed_plan(4, kSecond, 20, BatchLimits{8, 50 * kMs, 0, Batching::padded});
  LengthSampler lengths(parse_length_spec("8", "--input_lengths"), 1);
  const ServeRun run = run_serve_level(plan, lengths, clock, [&](const BatchToRun&) { clock.advance(10 * kMs); });
  // All four users are waiting at once, so no batch waits for max_wait: every batch has the four, every 10 ms.
  for (const BatchRun& b : run.batches) EXPECT_EQ(b.size, 4);
  const LevelSummary s = summarize_level(run, plan, std::nullopt);
  EXPECT_TRUE(s.valid) << s.reason;
  EXPECT_NEAR(s.achieved_qps, 400.0, 400.0 * 0.02);
  EXPECT_NEAR(s.latency.p50_ms, 10.0, 1e-9);
}

// Hostile round seven: more users than the device can answer (100000 at batch 4, 10 ms a batch) kept the level
// running until every user's first query was answered, 250 s of batches here and hours on a real device. The
// closed loop stops as the open loop does: past its last scheduled query by max(min_duration, 1 s), the queries
// still queued unanswered, the level INVALID for falling behind.
TEST(ServeLoop, AClosedLoopTheDeviceCannotAnswerEndsInBoundedTime) {
  SimClock clock;
  const ServePlan plan = closed_plan(100000, kSecond / 2, 5, BatchLimits{4, 0, 0, Batching::padded});
  LengthSampler lengths(parse_length_spec("8", "--input_lengths"), 1);
  const ServeNanos start = clock.now();
  const ServeRun run = run_serve_level(plan, lengths, clock, [&](const BatchToRun&) { clock.advance(10 * kMs); });
  EXPECT_LE(clock.now() - start, 3 * kSecond);
  EXPECT_GT(run.unanswered, 90000);
  const LevelSummary s = summarize_level(run, plan, std::nullopt);
  EXPECT_FALSE(s.valid);
  EXPECT_NE(s.reason.find("fell behind"), std::string::npos) << s.reason;
}

// The plan's values were checked where they were read (cli/serve_options): a plan that breaks an invariant is the
// caller's mistake, a runtime Error that names no option.
TEST(ServeLoop, BadPlansAreRuntimeErrorsNamingNoOption) {
  SimClock clock;
  LengthSampler lengths(parse_length_spec("64", "--input_lengths"), 1);
  auto refuse = [&](ServePlan plan, const std::string& option) {
    try {
      run_serve_level(plan, lengths, clock, [](const BatchToRun&) {});
      FAIL() << option;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::runtime) << option << ": " << e.what();
      EXPECT_EQ(std::string(e.what()).find("--"), std::string::npos) << option << ": " << e.what();
    }
  };
  refuse(open_plan(-1, 1, 0), "--rates");
  refuse(open_plan(0, 1, 0), "--rates");
  ServePlan closed = open_plan(1, 1, 0);
  closed.mode = ArrivalMode::closed;
  closed.users = 0;
  refuse(closed, "--users");
  ServePlan tokens = open_plan(1, 4, 0);
  tokens.limits.max_tokens = 32;  // below the 64-token queries
  refuse(tokens, "--max_tokens");
}

// A slow rate leaves the loop waiting for long stretches: it says so on stderr (a level that says nothing for
// minutes looked hung), once per long wait, and says up front how long the level's schedule runs.
TEST(ServeLoop, LongWaitsAreToldOnStderr) {
  SimClock clock;
  ServePlan plan = open_plan(0.05, 4, 0, kSecond, 10);
  LengthSampler lengths(parse_length_spec("8", "--input_lengths"), 1);
  set_progress_mode(ProgressMode::lines);
  std::fflush(stderr);
  const int saved = dup(STDERR_FILENO);
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  dup2(pipe_fds[1], STDERR_FILENO);
  close(pipe_fds[1]);
  const ServeRun run = run_serve_level(plan, lengths, clock, [&](const BatchToRun&) { clock.advance(kMs); });
  dup2(saved, STDERR_FILENO);
  close(saved);
  set_progress_mode(ProgressMode::off);
  std::string err;
  char buf[4096];
  for (ssize_t n; (n = read(pipe_fds[0], buf, sizeof buf)) > 0;) err.append(buf, static_cast<size_t>(n));
  close(pipe_fds[0]);
  EXPECT_NE(err.find("serve: this level at 0.05 queries/s schedules "), std::string::npos) << err;
  EXPECT_NE(err.find("serve: the next query is due in "), std::string::npos) << err;
  size_t long_gaps = 0;  // waits of 10 s or more, each told once
  ServeNanos before = 0;
  for (const ServedQuery& q : run.queries) {
    long_gaps += q.scheduled - before >= 10 * kSecond;
    before = q.scheduled;
  }
  size_t told = 0;
  for (size_t at = err.find("next query is due"); at != std::string::npos; at = err.find("next query is due", at + 1))
    ++told;
  EXPECT_EQ(told, long_gaps) << fmt::format("{} long gaps, told:\n{}", long_gaps, err);
}

}  // namespace
}  // namespace fmwork
