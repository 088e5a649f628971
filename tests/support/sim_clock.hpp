// A simulated clock for the serving loop's tests: time moves only when the loop waits or a batch "runs" (the
// test's run_batch advances it by the batch's cost), so no test depends on the machine's speed or load.
#pragma once

#include <algorithm>

#include "fmwork/workload/serve_loop.hpp"

namespace fmwork {

class SimClock : public ServeClock {
 public:
  ServeNanos now() override { return now_; }
  void wait_until(ServeNanos t) override { now_ = std::max(now_, t); }
  void advance(ServeNanos dt) { now_ += dt; }

 private:
  ServeNanos now_ = 0;
};

constexpr ServeNanos kMs = 1'000'000;
constexpr ServeNanos kSecond = 1'000'000'000;

// An open-loop level's plan: `rate` queries/s, half a second of warm-up, then at least `duration` and
// `min_queries`, batches of at most `max_batch` padded, waiting at most `max_wait`.
inline ServePlan open_plan(double rate, int64_t max_batch, ServeNanos max_wait, ServeNanos duration = 2 * kSecond,
                           int64_t min_queries = 50) {
  ServePlan plan;
  plan.rate_per_s = rate;
  plan.warmup = kSecond / 2;
  plan.min_duration = duration;
  plan.min_queries = min_queries;
  plan.limits = BatchLimits{max_batch, max_wait, 0, Batching::padded};
  plan.seed = 5;
  return plan;
}

}  // namespace fmwork
