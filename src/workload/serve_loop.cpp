// One load level on the calling thread, and its summary (serve_loop.hpp).
#include "fmwork/workload/serve_loop.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <optional>
#include <queue>

#include <fmt/format.h>

#include "fmwork/base/error.hpp"
#include "fmwork/base/progress.hpp"
#include "fmwork/log/verdicts.hpp"

namespace fmwork {

namespace {

// The plan's invariants. The command line's values were checked where they were read (cli/serve_options); a
// plan that breaks one is the caller's mistake, a runtime Error that names no option. (The open loop's rate is
// poisson_schedule's to hold.)
void check_plan(const ServePlan& plan, const LengthSampler& lengths) {
  auto expect = [](bool holds, const char* what) {
    if (!holds) throw runtime_error(std::string("serve loop: the plan breaks an invariant: ") + what);
  };
  expect(plan.mode != ArrivalMode::closed || (plan.users >= 1 && plan.users <= 100000), "1 <= users <= 100000");
  expect(plan.limits.max_batch >= 1, "max_batch >= 1");
  expect(plan.limits.max_wait >= 0, "max_wait >= 0");
  expect(plan.limits.max_tokens <= 0 || plan.limits.max_tokens >= lengths.max(),
         "a token budget holds the longest query");
  expect(plan.warmup >= 0 && plan.min_duration >= 0 && plan.min_queries >= 0,
         "warmup, min_duration and min_queries >= 0");
}

// The loop's state: the queries scheduled so far, the queue, the batches run.
class Level {
 public:
  Level(const ServePlan& plan, LengthSampler& lengths, ServeClock& clock, const RunBatch& run_batch)
      : plan_(plan), lengths_(lengths), clock_(clock), run_batch_(run_batch), origin_(clock.now()) {
    run_.warmup = plan.warmup;
  }

  ServeRun open() {
    const std::vector<ServeNanos> times =
        poisson_schedule(plan_.rate_per_s, plan_.seed, plan_.warmup, plan_.min_duration, plan_.min_queries);
    // What the person watching is in for: said with --quiet too, which hides progress, not a wait of minutes.
    if (!times.empty() && times.back() >= kLongLevel)
      notice_line(fmt::format("serve: this level at {:g} queries/s schedules {} queries over {}", plan_.rate_per_s,
                                times.size(), duration_text(static_cast<double>(times.back()) / 1e9)));
    for (ServeNanos t : times) schedule(t);
    const ServeNanos stop = (times.empty() ? 0 : times.back()) + grace();
    size_t next = 0;  // the first scheduled query not yet in the queue
    for (;;) {
      const ServeNanos now = elapsed();
      while (next < times.size() && times[next] <= now) enqueue(next++);
      if (queue_.empty()) {
        if (next == times.size()) break;
        wait(times[next]);
        continue;
      }
      if (now > stop) break;
      const bool more = next < times.size();
      if (batch_due(queue_, plan_.limits, now, more)) {
        dispatch(now);
      } else {
        wait(more ? std::min(batch_deadline(queue_, plan_.limits), times[next]) : batch_deadline(queue_, plan_.limits));
      }
    }
    run_.unanswered = static_cast<int64_t>(queue_.size() + (times.size() - next));
    return std::move(run_);
  }

  ServeRun closed() {
    // Each user's next query, by scheduled time: all users start at 0; a user's next one is scheduled at its
    // previous one's answer, until both minimums of the measured part hold.
    using Pending = std::pair<ServeNanos, int64_t>;  // (time, user)
    std::priority_queue<Pending, std::vector<Pending>, std::greater<Pending>> pending;
    for (int64_t u = 0; u < plan_.users; ++u) pending.emplace(0, u);
    std::map<int64_t, int64_t> user_of;  // query id -> user
    // Once no user sends again, the open loop's rule: no batch starts past the last query's schedule + grace().
    // Without it, more users than the device could answer (--users 100000 at batch 4) kept the level running
    // until every first query was answered, for hours (hostile round seven); those left are unanswered.
    bool sending = true;
    std::optional<ServeNanos> stop;
    for (;;) {
      const ServeNanos now = elapsed();
      while (!pending.empty() && pending.top().first <= now) {
        const auto [t, user] = pending.top();
        pending.pop();
        user_of[schedule(t)] = user;
        enqueue(run_.queries.size() - 1);
      }
      if (queue_.empty()) {
        if (pending.empty()) break;
        wait(pending.top().first);
        continue;
      }
      if (!sending && pending.empty() && !stop) stop = run_.queries.back().scheduled + grace();
      if (stop && now > *stop) break;
      if (batch_due(queue_, plan_.limits, now, !pending.empty())) {
        const std::vector<int64_t> ids = dispatch(now);
        const ServeNanos done = elapsed();
        for (int64_t id : ids) {
          const int64_t user = user_of.at(id);
          user_of.erase(id);
          if (finished(done)) sending = false;
          else pending.emplace(done, user);
        }
      } else {
        wait(pending.empty() ? batch_deadline(queue_, plan_.limits)
                             : std::min(batch_deadline(queue_, plan_.limits), pending.top().first));
      }
    }
    run_.unanswered = static_cast<int64_t>(queue_.size());
    return std::move(run_);
  }

 private:
  ServeNanos elapsed() { return clock_.now() - origin_; }
  // How long past its last scheduled query a level may still start batches.
  ServeNanos grace() const { return std::max<ServeNanos>(plan_.min_duration, 1'000'000'000); }
  // A wait past kLongWait says so on stderr: a slow rate leaves the device idle for long stretches, which
  // looked like a hung run. At most one line per such wait, so at most one per kLongWait.
  void wait(ServeNanos t) {
    const ServeNanos left = t - elapsed();
    if (left >= kLongWait)
      progress_line(fmt::format("serve: the next query is due in {} ({} of {} answered so far); waiting",
                                duration_text(static_cast<double>(left) / 1e9), answered_, run_.queries.size()));
    clock_.wait_until(origin_ + t);
  }
  static constexpr ServeNanos kLongWait = 10'000'000'000, kLongLevel = 60'000'000'000;

  int64_t schedule(ServeNanos t) {
    if (static_cast<int64_t>(run_.queries.size()) >= kMaxServeQueries)
      throw runtime_error(fmt::format("the level scheduled more than {} queries; give a shorter --duration_s",
                                      kMaxServeQueries));
    ServedQuery q;
    q.scheduled = t;
    q.length = lengths_.next();
    q.measured = t >= plan_.warmup;
    if (q.measured) ++measured_;
    run_.queries.push_back(q);
    return static_cast<int64_t>(run_.queries.size()) - 1;
  }

  // Closed loop: no next query once the measured part holds both minimums.
  bool finished(ServeNanos t) const {
    return measured_ >= plan_.min_queries && t >= plan_.warmup + plan_.min_duration;
  }

  void enqueue(size_t id) {
    const ServedQuery& q = run_.queries[id];
    queue_.push_back(Waiting{static_cast<int64_t>(id), q.scheduled, q.length});
  }

  std::vector<int64_t> dispatch(ServeNanos now) {
    std::vector<size_t> picked = batch_pick(queue_, plan_.limits);
    BatchToRun batch;
    std::vector<int64_t> ids;
    BatchRun record;
    record.start = now;
    for (size_t i : picked) {
      const Waiting& w = queue_[i];
      ids.push_back(w.id);
      batch.lengths.push_back(w.length);
      batch.longest = std::max(batch.longest, w.length);
      record.real_tokens += w.length;
      if (run_.queries[static_cast<size_t>(w.id)].measured) ++record.measured;
      run_.queries[static_cast<size_t>(w.id)].dispatched = now;
    }
    // Out of the queue, from the back so that the positions stay valid (a prefix, but for sorted).
    std::sort(picked.begin(), picked.end());
    for (auto it = picked.rbegin(); it != picked.rend(); ++it) queue_.erase(queue_.begin() + static_cast<std::ptrdiff_t>(*it));
    record.size = static_cast<int64_t>(picked.size());
    record.padded_tokens = record.size * batch.longest;
    run_batch_(batch);
    record.end = elapsed();
    for (int64_t id : ids) run_.queries[static_cast<size_t>(id)].done = record.end;
    answered_ += record.size;
    run_.batches.push_back(record);
    return ids;
  }

  const ServePlan& plan_;
  LengthSampler& lengths_;
  ServeClock& clock_;
  const RunBatch& run_batch_;
  const ServeNanos origin_;
  std::deque<Waiting> queue_;
  ServeRun run_;
  int64_t measured_ = 0;
  int64_t answered_ = 0;  // for the long waits' progress lines
};

}  // namespace

ServeRun run_serve_level(const ServePlan& plan, LengthSampler& lengths, ServeClock& clock, const RunBatch& run_batch) {
  check_plan(plan, lengths);
  Level level(plan, lengths, clock, run_batch);
  return plan.mode == ArrivalMode::open ? level.open() : level.closed();
}

bool lower_rate_cannot_help(const LevelSummary& s, const LatencyBound& bound) {
  return !s.bound_held && s.contended.empty() && s.service_bound_ms && *s.service_bound_ms > bound.ms;
}

void mark_contention(LevelSummary& s, const CpuUse& use) {
  s.cpu = use;
  s.contended = contention_reason(use, WaitShareOf::wanted);  // a level below saturation idles between batches
  if (!s.contended.empty() && use.oversubscribed())
    s.reason += fmt::format("; contended: {} -- the run asked for {} threads on {} CPUs, so its own threads waited for "
                            "each other: ask for at most {} (--torch.call:set_num_threads@ {})",
                            s.contended, use.threads, use.cpus, use.cpus, use.cpus);
  else if (!s.contended.empty())
    s.reason += "; contended: " + s.contended +
                " -- other work held the CPU while the level ran, so its latency is partly that work's: rerun on a "
                "quiet machine";
}

std::string histogram_text(const std::vector<std::pair<int64_t, int64_t>>& histogram) {
  std::string out;
  for (const auto& [size, count] : histogram) out += fmt::format("{}{}:{}", out.empty() ? "" : ",", size, count);
  return out.empty() ? "-" : out;
}

namespace {

// The verdict of a summarised level: kept up, enough, the bound held (summarize_level's rules).
void judge(LevelSummary& s, const ServePlan& plan, const std::vector<double>& latencies,
           const std::optional<LatencyBound>& bound) {
  std::vector<std::string> failed;
  s.kept_up = s.unanswered == 0 && (s.achieved_qps >= kKeptUpShare * s.offered_qps || s.busy < kSaturatedBusy);
  if (s.unanswered > 0)
    failed.push_back(fmt::format("fell behind: {} queries unanswered when the level stopped", s.unanswered));
  else if (!s.kept_up)
    failed.push_back(fmt::format("fell behind: achieved {:.1f} of {:.1f} queries/s offered", s.achieved_qps,
                                 s.offered_qps));
  s.enough = s.queries >= plan.min_queries && s.window_s * 1e9 + 0.5 >= static_cast<double>(plan.min_duration);
  if (!s.enough)
    failed.push_back(fmt::format("too few: {} queries in {:.2f} s (at least {} in {:.2f} s)", s.queries, s.window_s,
                                 plan.min_queries, static_cast<double>(plan.min_duration) / 1e9));
  // The line leaves the latency fields out then (make_serve_line): the reason says why there are none.
  if (!s.latency.measured())
    failed.push_back("no latency: no query scheduled after the warm-up was answered before the level stopped");
  std::string held;
  if (bound) {
    s.bound_value_ms = bound_percentile(latencies, *bound);
    s.bound_held = s.bound_value_ms && *s.bound_value_ms <= bound->ms;
    const std::string name = fmt::format("p{:g}", bound->percentile);
    if (!s.bound_value_ms)
      failed.push_back(fmt::format("{} not measured, so not held to {:g} ms", name, bound->ms));
    else if (!s.bound_held)
      failed.push_back(fmt::format("{} {:.3f} ms > {:g} ms", name, *s.bound_value_ms, bound->ms));
    else
      held = fmt::format(", {} {:.3f} <= {:g} ms", name, *s.bound_value_ms, bound->ms);
  }
  s.valid = failed.empty();
  if (s.valid) {
    s.reason = "kept up, enough queries" + held;
  } else {
    for (const std::string& f : failed) s.reason += (s.reason.empty() ? "" : "; ") + f;
  }
}

}  // namespace

LevelSummary summarize_level(const ServeRun& run, const ServePlan& plan, const std::optional<LatencyBound>& bound) {
  LevelSummary s;
  s.unanswered = run.unanswered;
  std::vector<double> latencies, waits, services;
  ServeNanos last_done = run.warmup, first_scheduled = -1, last_scheduled = run.warmup;
  int64_t measured_scheduled = 0, real_tokens = 0;
  for (const ServedQuery& q : run.queries) {
    if (!q.measured) {
      ++s.warmup_queries;
      continue;
    }
    ++measured_scheduled;
    if (first_scheduled < 0) first_scheduled = q.scheduled;
    last_scheduled = std::max(last_scheduled, q.scheduled);
    if (q.done < 0) continue;
    latencies.push_back(static_cast<double>(q.done - q.scheduled) / 1e6);
    waits.push_back(static_cast<double>(q.dispatched - q.scheduled) / 1e6);
    last_done = std::max(last_done, q.done);
    real_tokens += q.length;
  }
  s.queries = static_cast<int64_t>(latencies.size());
  s.latency = summarize_latencies(latencies);
  const ServeNanos window = last_done - run.warmup;
  s.window_s = static_cast<double>(window) / 1e9;
  if (window > 0) {
    s.achieved_qps = static_cast<double>(s.queries) / s.window_s;
    s.tokens_per_s = static_cast<double>(real_tokens) / s.window_s;
  }
  const ServeNanos schedule_span = last_scheduled - run.warmup;
  s.offered_qps = plan.mode == ArrivalMode::closed ? s.achieved_qps
                  : schedule_span > 0 ? static_cast<double>(measured_scheduled) / (static_cast<double>(schedule_span) / 1e9)
                                      : plan.rate_per_s;
  ServeNanos busy = 0;
  std::map<int64_t, int64_t> sizes;
  for (const BatchRun& b : run.batches) {
    const ServeNanos from = std::max(b.start, run.warmup), to = std::min(b.end, last_done);
    if (to > from) busy += to - from;
    if (b.measured > 0) {  // a batch that served a measured query; a warm-up one only kept the device busy
      services.push_back(static_cast<double>(b.end - b.start) / 1e6);
      ++s.batches;
      ++sizes[b.size];
      s.mean_batch += static_cast<double>(b.size);
    }
  }
  if (s.batches > 0) s.mean_batch /= static_cast<double>(s.batches);
  s.queue_p50_ms = summarize_latencies(waits).p50_ms;
  s.service_p50_ms = summarize_latencies(services).p50_ms;
  s.batch_histogram.assign(sizes.begin(), sizes.end());
  if (window > 0) s.busy = static_cast<double>(busy) / static_cast<double>(window);

  // Only lone queries' batch times bound what a query costs at any lower rate: a rate started far above the
  // capacity runs full batches, slower than the bound, while one query a batch holds it.
  const bool lone = s.batch_histogram.size() == 1 && s.batch_histogram[0].first == 1;
  if (bound && lone) s.service_bound_ms = bound_percentile(services, *bound);
  judge(s, plan, latencies, bound);
  return s;
}

}  // namespace fmwork
