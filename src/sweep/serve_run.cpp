// `driver serve` on a loaded model (serve_run.hpp).
#include "fmwork/sweep/serve_run.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <thread>

#include <fmt/format.h>

#include "fmwork/base/energy_window.hpp"
#include "fmwork/base/error.hpp"
#include "fmwork/base/progress.hpp"
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
class SteadyClock : public ServeClock {
 public:
  static constexpr ServeNanos kSpin = 1'000'000;
  ServeNanos now() override { return clock_now(); }
  void wait_until(ServeNanos t) override {
    for (ServeNanos left = t - clock_now(); left > kSpin; left = t - clock_now())
      std::this_thread::sleep_for(std::chrono::nanoseconds(left - kSpin));
    while (clock_now() < t) {
    }
  }
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
      });
      return static_cast<int64_t>(
          std::count_if(run.queries.begin(), run.queries.end(), [](const ServedQuery& q) { return q.done >= 0; }));
    };
    std::string no_energy;
    std::optional<EnergyWindow> energy;
    if (energy_)
      energy = level_energy(serve, no_energy);
    else
      serve();
    LevelSummary s = summarize_level(run, plan, setup_.args.bound);
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
    progress_line(fmt::format("serve level {} ({}): p50 {} ms, p99 {} ms, {} queries/s achieved, {}", number, what,
                              figure(latency, "{:.2f}", s.latency.p50_ms), figure(latency, "{:.2f}", s.latency.p99_ms),
                              figure(window, "{:.1f}", s.achieved_qps), s.valid ? "VALID" : "INVALID: " + s.reason));
    rows_.push_back({std::to_string(number), phase, plan.mode == ArrivalMode::open ? fmt::format("{:g}", plan.rate_per_s)
                                                                                    : fmt::format("{} users", plan.users),
                     figure(window, "{:.1f}", s.achieved_qps), figure(latency, "{:.2f}", s.latency.p50_ms),
                     figure(latency, "{:.2f}", s.latency.p99_ms), figure(latency, "{:.2f}", s.latency.p999_ms),
                     figure(batches, "{:.2f}", s.mean_batch), figure(window, "{:.0f}%", 100 * s.busy),
                     s.valid ? "VALID" : "INVALID"});
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
        {"level", "phase", "offered", "achieved/s", "p50_ms", "p99_ms", "p99.9_ms", "mean_batch", "busy", "verdict"}};
    rows.insert(rows.end(), rows_.begin(), rows_.end());
    TableLayout layout;
    layout.right = {true, false, true, true, true, true, true, true, true, false};
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

// The search's first rate: --search_start, else the highest VALID level's rate, else 10 queries/s.
double search_start(const ServeArgs& args, const std::vector<std::pair<double, bool>>& levels) {
  if (args.search_start) return *args.search_start;
  double best = 0;
  for (const auto& [rate, valid] : levels)
    if (valid) best = std::max(best, rate);
  return best > 0 ? best : 10;
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

int run_serve(const ServeSetup& setup, Model& model, Platform& platform, InputGenerator& inputs, std::ostream& out) {
  Scenario scenario(setup, model, platform, inputs, out);
  const ServeArgs& args = setup.args;
  if (scenario.meters_energy())
    out << "energy: each level's, from the device counter's step before it to the one after (SERVE "
           "joules_per_1000_q over every answered query, warm-up's included; watts; energy_window_s)\n";
  std::vector<std::pair<double, bool>> levels;  // (rate, VALID) of the open-loop levels
  for (double rate : args.rates) {
    ServePlan plan = scenario.plan();
    plan.rate_per_s = rate;
    levels.emplace_back(rate, scenario.level(plan, "levels").valid);
  }
  if (args.users) {
    ServePlan plan = scenario.plan();
    plan.mode = ArrivalMode::closed;
    plan.users = *args.users;
    scenario.level(plan, "levels");
  }
  if (!args.bound) {
    scenario.table();
    return 0;
  }
  SearchPlan search;
  search.start_rate = search_start(args, levels);
  search.floor_rate = search.start_rate / 64;
  // The floor's level must still end within kMaxLevelSeconds (arrivals.hpp), or the search would be refused
  // halfway instead of stopping there.
  search.floor_rate = std::max(search.floor_rate, static_cast<double>(args.min_queries) /
                                                      (kMaxLevelSeconds - args.warmup_s) * 1.0001);
  // The doubling stops where a level would schedule more queries than one may hold (arrivals.hpp): a rate
  // above it was refused halfway through the search, in the words of --rates.
  search.ceiling_rate = std::max(highest_level_rate(args.warmup_s, args.duration_s, args.min_queries), search.start_rate);
  search.max_steps = static_cast<int>(args.search_steps);
  std::map<double, std::optional<double>> energy_at;  // each searched rate's joules per 1000 queries
  const CapacityResult result = search_capacity(search, [&](double rate) {
    ServePlan plan = scenario.plan();
    plan.rate_per_s = rate;
    const LevelSummary s = scenario.level(plan, "search");
    energy_at[rate] = s.joules_per_1000_q;
    SearchStep step{rate, s.valid, s.bound_value_ms, s.achieved_qps, s.reason};
    // Only a proof stops the halving (serve_loop.hpp): a level that failed at a high load is no such proof.
    step.lower_cannot_help = lower_rate_cannot_help(s, *args.bound);
    return step;
  });
  AtCapacity at;
  for (const SearchStep& s : result.tried)
    if (result.capacity && s.rate == *result.capacity) at = {s.achieved_qps, energy_at[s.rate]};
  out << format_line(make_capacity_line(*args.bound, result, at, args.price_per_hour)) << "\n";
  scenario.table();
  out << "\n" << capacity_reason(*args.bound, result, args.price_per_hour) << "\n";
  flush_or_throw(out, "the log to standard output");
  if (!result.capacity)
    throw runtime_error("--latency_bound " + args.bound->text + ": " + capacity_reason(*args.bound, result, std::nullopt));
  return 0;
}

}  // namespace fmwork
