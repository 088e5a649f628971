// One load level of a serving run, as MLPerf LoadGen's Server scenario measures it, on the calling thread:
// the queries are scheduled before the run (open loop) or at the answer of a user's previous query (closed
// loop); a query whose scheduled time has passed is in the queue, whether or not the loop looked; the
// batcher (batcher.hpp) forms batches as the device frees; each query's latency runs from its SCHEDULED
// arrival to the moment its batch's outputs are ready (run_batch returns after the device synchronised).
// A slow batch therefore delays every query scheduled behind it (no coordinated omission), and nothing
// waits on the model to release arrivals: for one server and one queue, reading the clock after each batch
// and admitting every arrival scheduled by then is exact, with no second thread competing for the cores.
// The clock is an interface: the driver's is the steady clock, the tests' a simulated one.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fmwork/base/cpu_use.hpp"
#include "fmwork/workload/arrivals.hpp"
#include "fmwork/workload/batcher.hpp"
#include "fmwork/workload/latency_stats.hpp"
#include "fmwork/workload/lengths.hpp"

namespace fmwork {

// Time as the loop sees it: now() in nanoseconds (any origin, non-decreasing), wait_until(t) returns at or
// after t (at once for a time passed).
class ServeClock {
 public:
  virtual ~ServeClock() = default;
  virtual ServeNanos now() = 0;
  virtual void wait_until(ServeNanos t) = 0;
};

enum class ArrivalMode { open, closed };

// One load level: how queries arrive, how long it runs, how batches form.
struct ServePlan {
  ArrivalMode mode = ArrivalMode::open;
  double rate_per_s = 0;     // open: the target rate (> 0)
  int64_t users = 0;         // closed: the users (>= 1)
  ServeNanos warmup = 0;     // queries scheduled before it are run but not counted
  ServeNanos min_duration = 0;
  int64_t min_queries = 0;
  BatchLimits limits;
  uint64_t seed = 0;
};

// The batch handed to the device: its members' lengths (in the order the batcher picked them). run_batch returns when the outputs
// are ready (synchronised); it may throw, which ends the level.
struct BatchToRun {
  std::vector<int64_t> lengths;
  int64_t longest = 0;
};
using RunBatch = std::function<void(const BatchToRun&)>;

// What happened, in nanoseconds from the level's start.
struct ServedQuery {
  ServeNanos scheduled = 0, dispatched = -1, done = -1;  // -1: never dispatched / answered
  int64_t length = 0;
  bool measured = false;  // scheduled at or after the warm-up
};
struct BatchRun {
  ServeNanos start = 0, end = 0;
  int64_t size = 0, real_tokens = 0, padded_tokens = 0;
  int64_t measured = 0;  // how many of its queries were scheduled at or after the warm-up
};
struct ServeRun {
  std::vector<ServedQuery> queries;  // in scheduled order
  std::vector<BatchRun> batches;
  ServeNanos warmup = 0;
  int64_t unanswered = 0;  // queries still queued or not yet arrived when the level stopped (it fell behind)
};

// Runs one level, each query's length drawn from `lengths` as it is scheduled. Both loops stop admitting new
// batches once the clock is past the last scheduled query (the closed loop's, once no user sends again) by
// max(min_duration, 1 s): a level the device cannot keep up with ends in bounded time, its unanswered queries
// counted. Throws a usage Error for a plan out of range (rate, users, limits) and what run_batch throws.
ServeRun run_serve_level(const ServePlan& plan, LengthSampler& lengths, ServeClock& clock, const RunBatch& run_batch);

// What a level reports (the SERVE line): the measured queries are those scheduled from the warm-up on; the
// window runs from the warm-up's end to the last measured answer; the batches counted are those holding a
// measured query (a warm-up batch draining into the window is the device's busy time there, not a measured
// batch). A figure with nothing to measure it (no measured query answered: latency and queue; an empty window:
// window_s, achieved, tokens_per_s, busy; no measured batch: service and mean_batch) is 0 here as a
// placeholder and left out of the SERVE line, the reason saying why.
struct LevelSummary {
  int64_t queries = 0;         // measured and answered
  int64_t warmup_queries = 0;  // run before the window, not counted
  int64_t unanswered = 0;
  double window_s = 0;
  double offered_qps = 0;      // open: measured arrivals / their schedule's span; closed: = achieved
  double achieved_qps = 0;     // answered measured queries / window
  double tokens_per_s = 0;     // their real tokens / window
  double busy = 0;             // the device's busy time in the window / window
  LatencySummary latency;
  double queue_p50_ms = 0;     // the median wait from a measured query's scheduled arrival to its batch's dispatch
  double service_p50_ms = 0;   // the median batch time, dispatch to answer (inputs made, run, synchronised)
  int64_t batches = 0;         // batches holding a measured query (warm-up-only batches are not counted)
  double mean_batch = 0;
  std::vector<std::pair<int64_t, int64_t>> batch_histogram;  // (size, batches of that size), sizes ascending
  bool kept_up = false, enough = false;
  std::optional<double> bound_value_ms;  // the bound's percentile, when a bound was given
  // The bound's percentile of the batches' own times (dispatch to answer), when a bound was given and every
  // batch in the window held one query: the least time a query can take, so above the bound no lower rate can
  // help. nullopt when any batch held more (a full batch's time says nothing of a lone query's) or none ran.
  std::optional<double> service_bound_ms;
  bool bound_held = true;
  bool valid = false;
  std::string reason;          // why INVALID; "kept up, enough queries[, p99 X <= Y ms]" when VALID
  // The device's energy over the whole level, where it has a counter (the driver fills these; summarize_level
  // leaves them empty): per 1000 answered queries (warm-up's included: all ran inside the window), the mean
  // power and the window's length.
  std::optional<double> joules_per_1000_q, watts, energy_window_s;
  // The CPU this process got while the level ran (the driver fills it on the CPU platform, mark_contention),
  // and why it was contended ("" when it was not, or nothing measured it): a level run while other work held
  // the CPU can fail, or pass at a lower load, because of that work.
  std::optional<CpuUse> cpu;
  std::string contended;
};

// Kept up: every query answered, and the achieved rate at least kKeptUpShare of the offered one or the device
// idle for part of the window (busy below kSaturatedBusy). A queue that grew through the level keeps the device
// busy throughout and ends with its backlog drained late, which lowers the achieved rate; a short window whose
// last query was merely slow lowers it too, but leaves the device idle between queries. Enough: at least
// min_queries measured and a window of at least min_duration. Bound held: the bound's percentile at most its
// milliseconds. VALID when all hold.
constexpr double kKeptUpShare = 0.95;
constexpr double kSaturatedBusy = 0.98;
LevelSummary summarize_level(const ServeRun& run, const ServePlan& plan, const std::optional<LatencyBound>& bound);

// Records the CPU the process got over the level (`use`, from two samples around it): cpu, and contended with
// contention_reason()'s words (log/verdicts.hpp, the sweep's thresholds, the wait judged against the time the
// threads wanted a CPU: WaitShareOf::wanted). A contended level's reason then ends with them and what to do.
void mark_contention(LevelSummary& s, const CpuUse& use);

// Whether `s` proves that no rate below its own can hold `bound`: the bound failed, the level was not
// contended, and the bound's percentile of its lone queries' batch times (service_bound_ms) is already above
// it. What the capacity search may stop halving on (SearchStep::lower_cannot_help).
bool lower_rate_cannot_help(const LevelSummary& s, const LatencyBound& bound);

// "1:30,2:12,4:3": a histogram as the SERVE line writes it.
std::string histogram_text(const std::vector<std::pair<int64_t, int64_t>>& histogram);

}  // namespace fmwork
