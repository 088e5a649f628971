// `driver serve` on a loaded model (serve_run.hpp).
#include "fmwork/sweep/serve_run.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <thread>

#include <ATen/Parallel.h>

#include <fmt/format.h>

#include "fmwork/base/energy_window.hpp"
#include "fmwork/base/error.hpp"
#include "fmwork/base/progress.hpp"
#include "fmwork/base/interrupt_note.hpp"
#include "fmwork/base/text_format.hpp"
#include "fmwork/sweep/sweep.hpp"
#include "fmwork/workload/arrivals.hpp"
#include "fmwork/workload/capacity_search.hpp"
#include "fmwork/workload/serve_lines.hpp"
#include "fmwork/workload/serve_loop.hpp"

namespace fmwork {

namespace {

// The steady clock (sweep's clock_now: monotonic). Waiting sleeps, so the cores are free while no query is
// due, until kSpin before the time, then watches the clock: a thread woken from sleep can start late by a
// scheduler's slice on a busy machine, which every query's latency would carry.
// A stop the user asked for (Ctrl-C) ends the level at once: the sleeps are cut into slices that short, and
// the level throws LevelStopped (capacity_search.hpp) between them and after each batch.
class SteadyClock : public ServeClock {
 public:
  static constexpr ServeNanos kSpin = 1'000'000, kSlice = 50'000'000;
  ServeNanos now() override { return clock_now(); }
  void wait_until(ServeNanos t) override {
    for (ServeNanos left = t - clock_now(); left > kSpin; left = t - clock_now()) {
      stop_if_asked();
      std::this_thread::sleep_for(std::chrono::nanoseconds(std::min(left - kSpin, kSlice)));
    }
    while (clock_now() < t) {
    }
  }
  // The level ends at once once a signal was seen (the InterruptWatch run_serve holds).
  static void stop_if_asked() {
    if (const int signal = InterruptWatch::seen()) throw LevelStopped(stop_reason(signal));
  }
  // "SIGINT asked to stop": why the levels ended.
  static std::string stop_reason(int signal) { return InterruptWatch::signal_name(signal) + " asked to stop"; }
};

// A batch of the lengths given: seeded tokens, padded to the longest with the mask marking the padding (padded
// false when every member is as long: no mask is applied, as in the sweep); its real tokens packed for unpadded.
// A platform of one shape (serve_fed_shapes) gets it: rows of one token fill the batch (the device computes
// its whole batch whatever the queue held; no row is all padding), every row padded to the longest query.
Batch make_batch(const BatchToRun& b, const ServeSetup& setup, const PlatformConstraints& platform,
                 InputGenerator& inputs, const torch::Device& device) {
  std::vector<int64_t> lengths = b.lengths;
  if (platform.single_batch_size && static_cast<int64_t>(lengths.size()) < setup.max_batch)
    lengths.resize(static_cast<size_t>(setup.max_batch), 1);
  Batch batch = inputs.make(lengths, platform.single_input_size ? setup.lengths.max : b.longest, device);
  if (setup.batching == Batching::unpadded) pack_batch(batch);
  return batch;
}

class Scenario {
 public:
  Scenario(const ServeSetup& setup, Model& model, Platform& platform, InputGenerator& inputs, std::ostream& out)
      : setup_(setup), model_(model), platform_(platform), facts_(platform.facts()), inputs_(inputs),
        out_(out), energy_(platform.meters().energy.get()) {}

  bool meters_energy() const { return energy_ != nullptr; }
  // Whether each level's CPU is measured (the CPU platform: the model runs on the cores other work takes).
  bool meters_cpu() const { return facts_.device.is_cpu(); }

  // One level: its SERVE line and the summary.
  LevelSummary level(ServePlan plan, const std::string& phase) {
    const int64_t number = ++levels_;
    plan.seed = setup_.seed + static_cast<uint64_t>(number);  // each level its own arrivals and lengths
    LengthSampler lengths(setup_.lengths, plan.seed ^ 0x5eedULL);
    SteadyClock clock;
    const std::string what = plan.mode == ArrivalMode::open ? fmt::format("{:g} queries/s", plan.rate_per_s)
                                                            : fmt::format("{} users", plan.users);
    progress_live(fmt::format("serve level {} ({}): running ...", number, what));
    ServeRun run;
    const auto serve = [&] {
      run = run_serve_level(plan, lengths, clock, [&](const BatchToRun& b) {
        const Batch batch = make_batch(b, setup_, facts_.constraints, inputs_, facts_.device);
        const Batch& fed = model_.stage(batch);
        const torch::IValue outputs = model_.forward(fed);
        platform_.synchronize();
        SteadyClock::stop_if_asked();
      });
      return static_cast<int64_t>(
          std::count_if(run.queries.begin(), run.queries.end(), [](const ServedQuery& q) { return q.done >= 0; }));
    };
    std::string no_energy;
    std::optional<EnergyWindow> energy;
    // The CPU the process got over the level: two samples around it, outside every query's latency.
    const std::optional<CpuSample> cpu_before = meters_cpu() ? std::optional<CpuSample>(sample_cpu()) : std::nullopt;
    if (energy_)
      energy = level_energy(serve, no_energy);
    else
      serve();
    LevelSummary s = summarize_level(run, plan, setup_.args.bound);
    if (cpu_before) mark_contention(s, cpu_use(*cpu_before, sample_cpu(), at::get_num_threads()));
    if (energy) {
      s.watts = energy->watts(), s.energy_window_s = energy->seconds;
      if (energy->runs > 0) s.joules_per_1000_q = energy->joules_per_run() * 1000;
    } else if (energy_) {  // a line process skips: why this level has no energy figure
      out_ << fmt::format("energy (serve level {}): no figure: {}\n", number, no_energy);
    }
    const ServeLabels labels{number, phase, to_log_token(length_spec_text(setup_.lengths)),
                             std::string(batching_name(setup_.batching))};
    out_ << format_line(make_serve_line(labels, plan, s, setup_.args.bound)) << "\n";
    flush_or_throw(out_, "the log to standard output");
    // A figure nothing measured is "-", never 0 (as in the SERVE line, which leaves it out).
    const auto figure = [](bool measured, const char* spec, double v) {
      return measured ? fmt::format(fmt::runtime(spec), v) : std::string("-");
    };
    const bool latency = s.latency.measured(), window = s.window_s > 0, batches = s.batches > 0;
    // A VALID level's reason is not shown: its contention is (an INVALID one's reason already ends with it).
    const std::string contended = s.valid && !s.contended.empty() ? " (contended: " + s.contended + ")" : "";
    progress_line(fmt::format("serve level {} ({}): p50 {} ms, p99 {} ms, {} queries/s achieved, {}{}", number, what,
                              figure(latency, "{:.2f}", s.latency.p50_ms), figure(latency, "{:.2f}", s.latency.p99_ms),
                              figure(window, "{:.1f}", s.achieved_qps), s.valid ? "VALID" : "INVALID: " + s.reason,
                              contended));
    rows_.push_back({std::to_string(number), phase, plan.mode == ArrivalMode::open ? fmt::format("{:g}", plan.rate_per_s)
                                                                                    : fmt::format("{} users", plan.users),
                     figure(window, "{:.1f}", s.achieved_qps), figure(latency, "{:.2f}", s.latency.p50_ms),
                     figure(latency, "{:.2f}", s.latency.p99_ms), figure(latency, "{:.2f}", s.latency.p999_ms),
                     figure(batches, "{:.2f}", s.mean_batch), figure(window, "{:.0f}%", 100 * s.busy),
                     s.valid ? "VALID" : "INVALID", !s.cpu ? "-" : s.contended.empty() ? "ok" : "contended"});
    return s;
  }

  ServePlan plan() const {
    const ServeArgs& a = setup_.args;
    ServePlan p;
    p.warmup = static_cast<ServeNanos>(a.warmup_s * 1e9);
    p.min_duration = static_cast<ServeNanos>(a.duration_s * 1e9);
    p.min_queries = a.min_queries;
    p.limits = BatchLimits{setup_.max_batch, static_cast<ServeNanos>(a.max_wait_ms * 1e6), a.max_tokens,
                           setup_.batching};
    return p;
  }

  // The energy of one level (`serve` returns its answered queries), from the counter's step before it to the
  // one after, watched idle; a mean power outside the device's range is no figure (`why_not` says so).
  std::optional<EnergyWindow> level_energy(const std::function<int64_t()>& serve, std::string& why_not) {
    EnergyMeter* meter = energy_;
    const EnergySpanHooks hooks{[] { return clock_now(); }, [meter] { return meter->joules(); },
                                [] { std::this_thread::sleep_for(std::chrono::milliseconds(1)); }};
    // A counter that steps every 20-100 ms steps many times in 2 s: one that does not costs each level at most
    // that twice (before and after), not the sweep's 30 s.
    EnergyWindowRules rules;
    rules.max_seconds = 2;
    std::optional<EnergyWindow> w = measure_energy_of_span(rules, hooks, serve, why_not);
    if (w) {
      why_not = implausible_power(w->watts(), w->seconds, facts_.power_range);
      if (!why_not.empty()) w.reset();
    }
    return w;
  }

  void table() {
    if (rows_.empty()) return;
    std::vector<std::vector<std::string>> rows = {
        {"level", "phase", "offered", "achieved/s", "p50_ms", "p99_ms", "p99.9_ms", "mean_batch", "busy", "verdict",
         "timing"}};
    rows.insert(rows.end(), rows_.begin(), rows_.end());
    TableLayout layout;
    layout.right = {true, false, true, true, true, true, true, true, true, false, false};
    out_ << "\n" << aligned_table(rows, layout);
  }

 private:
  const ServeSetup& setup_;
  Model& model_;
  Platform& platform_;
  const PlatformFacts facts_;  // asked once, not inside a query's latency
  InputGenerator& inputs_;
  std::ostream& out_;
  int64_t levels_ = 0;
  std::vector<std::vector<std::string>> rows_;
  EnergyMeter* energy_;  // the platform's; null where the device has no energy counter
};

// The search's first rate: --search_start, else the highest VALID level's rate, else half the lowest INVALID
// level's (a rate known to fail is no start), else 10 queries/s.
double search_start(const ServeArgs& args, const std::map<double, LevelSummary>& measured) {
  if (args.search_start) return *args.search_start;
  double best = 0, lowest_failed = 0;
  for (const auto& [rate, s] : measured) {
    if (s.valid) best = std::max(best, rate);
    else if (lowest_failed == 0) lowest_failed = rate;  // the map is in ascending rate
  }
  return best > 0 ? best : lowest_failed > 0 ? lowest_failed / 2 : 10;
}

}  // namespace

FedShapes serve_fed_shapes(const ServeSetup& setup, const PlatformConstraints& platform) {
  const int64_t m = setup.max_batch;
  FedShapes fed;
  fed.rows = platform.single_batch_size
                 ? FedRange{m, m, fmt::format("--batch_sizes {} (each batch filled to it: the platform runs one)", m)}
                 : FedRange{1, m, fmt::format("driver serve's batcher (--batch_sizes {}: 1 to {} queries a batch)", m, m)};
  const std::string lengths = length_spec_text(setup.lengths);
  fed.tokens = platform.single_input_size
                   ? FedRange{setup.lengths.max, setup.lengths.max,
                              fmt::format("the queries ({}, padded to the longest: the platform runs one input size)",
                                          lengths)}
                   : FedRange{setup.lengths.min, setup.lengths.max,
                              fmt::format("the queries ({}, each batch padded to its longest)", lengths)};
  return fed;
}

void check_serve_shapes(const ServeSetup& setup, const PlatformConstraints& platform, const ModelFacts& facts) {
  check_fed_shapes(facts, serve_fed_shapes(setup, platform), setup.max_batch, setup.lengths.max);
}

namespace {

// What a level tells the capacity search.
SearchStep step_of(double rate, const LevelSummary& s, const LatencyBound& bound) {
  SearchStep step{rate, s.valid, s.bound_value_ms, s.achieved_qps, s.reason};
  // Only a proof stops the halving (serve_loop.hpp): a level that failed at a high load, or while other work held
  // the CPU, is no such proof.
  step.lower_cannot_help = lower_rate_cannot_help(s, bound);
  step.contended = !s.contended.empty();
  return step;
}

// Why the search must not start a level at `rate` now: the level could end past the budget.
std::string over_budget(double rate, double spent_s, const ServeArgs& args) {
  // Its schedule, then the longest it may go on answering after the last arrival (serve_loop.hpp's stop rule:
  // max(duration, 1 s)) when it falls behind: a budget is a ceiling, so the level's worst case is held to it.
  const double needs = expected_level_seconds(rate, args.warmup_s, args.duration_s, args.min_queries) +
                       std::max(args.duration_s, 1.0);
  if (spent_s + needs <= args.search_budget_s) return "";
  return fmt::format("the time budget, --search_budget_s {:g}: {} spent, and the level at {:g} queries/s would take "
                     "about {} more",
                     args.search_budget_s, duration_text(spent_s), rate, duration_text(needs));
}

// The search's plan: its start, floor and ceiling from the options, the levels already `measured` as known steps.
SearchPlan search_plan(const ServeArgs& args, const std::map<double, LevelSummary>& measured) {
  SearchPlan search;
  search.start_rate = search_start(args, measured);
  search.floor_rate = search.start_rate / 64;
  // The floor's level must still end within kMaxLevelSeconds (arrivals.hpp), or the search would be refused
  // halfway instead of stopping there.
  search.floor_rate = std::max(search.floor_rate, static_cast<double>(args.min_queries) /
                                                      (kMaxLevelSeconds - args.warmup_s) * 1.0001);
  // The doubling stops where a level would schedule more queries than one may hold (arrivals.hpp): a rate
  // above it was refused halfway through the search, in the words of --rates.
  search.ceiling_rate = std::max(highest_level_rate(args.warmup_s, args.duration_s, args.min_queries), search.start_rate);
  search.max_steps = static_cast<int>(args.search_steps);
  for (const auto& [rate, s] : measured) search.known.push_back(step_of(rate, s, *args.bound));
  return search;
}

// The capacity search after the levels (`measured`, to which it adds its own), then CAPACITY, the table and the
// answer in words; a Ctrl-C during it ends the process by its signal once they are written.
int search(Scenario& scenario, const ServeArgs& args, std::map<double, LevelSummary>& measured, std::ostream& out) {
  SearchPlan search = search_plan(args, measured);
  const int64_t began = clock_now();
  search.stop_before = [&](double rate) -> std::string {
    if (const int signal = InterruptWatch::seen()) return SteadyClock::stop_reason(signal);
    const std::string why = over_budget(rate, static_cast<double>(clock_now() - began) / 1e9, args);
    if (!why.empty()) progress_line("serve: the capacity search stops: " + why);
    return why;
  };
  const CapacityResult result = search_capacity(search, [&](double rate) {
    ServePlan plan = scenario.plan();
    plan.rate_per_s = rate;
    const LevelSummary s = scenario.level(plan, "search");
    measured[rate] = s;
    return step_of(rate, s, *args.bound);
  });
  AtCapacity at;
  at.cpu_measured = scenario.meters_cpu();
  if (result.capacity) {
    const LevelSummary& s = measured.at(*result.capacity);
    at.achieved_qps = s.achieved_qps, at.joules_per_1000_q = s.joules_per_1000_q;
  }
  out << format_line(make_capacity_line(*args.bound, result, at, args.price_per_hour)) << "\n";
  scenario.table();
  out << "\n" << capacity_reason(*args.bound, result, args.price_per_hour) << "\n";
  flush_or_throw(out, "the log to standard output");
  // A Ctrl-C ended the search: the bracket is written, the process ends by the signal.
  if (const int signal = InterruptWatch::seen()) InterruptWatch::end_by_signal(signal);
  if (!result.capacity)
    throw runtime_error("--latency_bound " + args.bound->text + ": " + capacity_reason(*args.bound, result, std::nullopt));
  return 0;
}

}  // namespace

int run_serve(const ServeSetup& setup, Model& model, Platform& platform, InputGenerator& inputs, std::ostream& out) {
  // From here a Ctrl-C (or SIGTERM) ends the level running and writes what is complete; the banner after it says
  // so to whoever watches the log (a test waits for it before it signals).
  const InterruptWatch watch("serve: stopping: the level running is left out, what is complete is written; a "
                             "second Ctrl-C ends at once");
  out << banner("SERVE");
  flush_or_throw(out, "the log to standard output");
  Scenario scenario(setup, model, platform, inputs, out);
  const ServeArgs& args = setup.args;
  if (scenario.meters_energy())
    out << "energy: each level's, from the device counter's step before it to the one after (SERVE "
           "joules_per_1000_q over every answered query, warm-up's included; watts; energy_window_s)\n";
  std::map<double, LevelSummary> measured;  // every open-loop level run, by its rate (no rate runs twice)
  try {
    for (double rate : args.rates) {
      ServePlan plan = scenario.plan();
      plan.rate_per_s = rate;
      measured[rate] = scenario.level(plan, "levels");
    }
    if (args.users) {
      ServePlan plan = scenario.plan();
      plan.mode = ArrivalMode::closed;
      plan.users = *args.users;
      scenario.level(plan, "levels");
    }
  } catch (const LevelStopped& e) {
    // What ran is in the log; with a bound, the search stops before its first level of its own and gives the
    // bracket the levels found (CAPACITY result=partial); then the process ends by the signal.
    out << "serve stopped: " << e.what() << "; the levels above are complete, the one running was left out\n";
    if (args.bound) return search(scenario, args, measured, out);
    scenario.table();
    flush_or_throw(out, "the log to standard output");
    InterruptWatch::end_by_signal(InterruptWatch::seen());
  }
  if (args.bound) return search(scenario, args, measured, out);
  scenario.table();
  return 0;
}

}  // namespace fmwork
