// A device's energy over a long enough window (see energy_window.hpp).
#include "fmwork/base/energy_window.hpp"

#include <utility>

#include <fmt/format.h>

namespace fmwork {
namespace {

// The margin a mean power may pass the limit by before it is no figure: the counter's and the power readings'
// own error.
constexpr double kPowerMargin = 0.05;
// The floor is half the draw read at open. That reading is NVML's average over the last second or so, and a
// device that has just worked (another process, the step before) still draws above its rest then: an H200
// at 78 W at rest read 151 W after a test run, and a batch-1 run's true 131 W was refused as below it.
constexpr double kRestFloor = 0.5;

double seconds_between(int64_t a, int64_t b) { return static_cast<double>(b - a) / 1e9; }

}  // namespace

std::optional<EnergyWindow> measure_energy_window(const EnergyWindowRules& rules, const EnergyMeterHooks& hooks,
                                                  std::string& why_not) {
  const int64_t begun = hooks.now_ns();
  std::optional<double> last = hooks.joules();
  if (!last) {
    why_not = "the device's energy counter cannot be read";
    return std::nullopt;
  }
  // Runs once, reads the counter: true when it stepped. A counter that goes back was reset under the run.
  const auto step = [&](bool& stepped) {
    hooks.run_once();
    const std::optional<double> now = hooks.joules();
    if (!now) {
      why_not = "the device's energy counter could not be read during the window";
      return false;
    }
    if (*now < *last) {
      why_not = "the device's energy counter went backwards (reset during the run)";
      return false;
    }
    stepped = *now != *last;
    last = now;
    return true;
  };
  bool stepped = false;
  while (!stepped) {  // the window's start: the first step seen
    if (!step(stepped)) return std::nullopt;
    if (!stepped && seconds_between(begun, hooks.now_ns()) > rules.max_seconds) {
      why_not = fmt::format("the device's energy counter did not change in {:g} s of runs", rules.max_seconds);
      return std::nullopt;
    }
  }
  const int64_t start = hooks.now_ns();
  const double start_joules = *last;
  EnergyWindow w;
  while (true) {
    if (!step(stepped)) return std::nullopt;
    ++w.runs;
    const int64_t t = hooks.now_ns();
    if (stepped) {
      ++w.updates;
      if (seconds_between(start, t) >= rules.min_seconds && w.updates >= rules.min_updates) {
        w.joules = *last - start_joules;
        w.seconds = seconds_between(start, t);
        return w;
      }
    }
    if (seconds_between(start, t) > rules.max_seconds) {
      why_not = fmt::format("the device's energy counter stepped {} times in {:g} s of runs, fewer than the {} "
                            "a figure needs",
                            w.updates, rules.max_seconds, rules.min_updates);
      return std::nullopt;
    }
  }
}

namespace {

// Watches the counter, idle, until it reads other than `from`: the reading and when it was seen, or nullopt
// (why_not set) when a read fails, the counter goes back, or rules.max_seconds pass.
std::optional<std::pair<double, int64_t>> next_step(double from, const EnergyWindowRules& rules,
                                                    const EnergySpanHooks& hooks, std::string& why_not) {
  const int64_t begun = hooks.now_ns();
  while (true) {
    const std::optional<double> now = hooks.joules();
    const int64_t t = hooks.now_ns();
    if (!now) {
      why_not = "the device's energy counter could not be read";
      return std::nullopt;
    }
    if (*now < from) {
      why_not = "the device's energy counter went backwards (reset during the run)";
      return std::nullopt;
    }
    if (*now != from) return std::make_pair(*now, t);
    if (seconds_between(begun, t) > rules.max_seconds) {
      why_not = fmt::format("the device's energy counter did not change in {:g} s", rules.max_seconds);
      return std::nullopt;
    }
    hooks.idle();
  }
}

}  // namespace

std::optional<EnergyWindow> measure_energy_of_span(const EnergyWindowRules& rules, const EnergySpanHooks& hooks,
                                                   const std::function<int64_t()>& work, std::string& why_not) {
  std::optional<std::pair<double, int64_t>> start;
  if (const std::optional<double> first = hooks.joules())
    start = next_step(*first, rules, hooks, why_not);
  else
    why_not = "the device's energy counter cannot be read";
  const int64_t runs = work();
  if (!start) return std::nullopt;
  const std::optional<double> last = hooks.joules();
  if (!last) {
    why_not = "the device's energy counter could not be read after the work";
    return std::nullopt;
  }
  if (*last < start->first) {
    why_not = "the device's energy counter went backwards (reset during the run)";
    return std::nullopt;
  }
  // The step after the work ends the window (a reading already past the start's is not a step yet: the counter
  // may step again a moment later, and the energy between would be missed).
  const std::optional<std::pair<double, int64_t>> end = next_step(*last, rules, hooks, why_not);
  if (!end) return std::nullopt;
  EnergyWindow w;
  w.joules = end->first - start->first;
  w.seconds = seconds_between(start->second, end->second);
  w.runs = runs;
  w.updates = 0;  // not counted: the work runs unwatched
  if (w.seconds < rules.min_seconds) {
    why_not = fmt::format("the window was {:.2f} s, shorter than the {:g} s a figure needs", w.seconds,
                          rules.min_seconds);
    return std::nullopt;
  }
  return w;
}

std::string implausible_power(double mean_watts, double seconds, const PowerRange& range) {
  if (range.limit_watts && mean_watts > *range.limit_watts * (1 + kPowerMargin))
    return fmt::format("mean power {:.0f} W over {:.2f} s is above the device's enforced power limit ({:.0f} W)",
                       mean_watts, seconds, *range.limit_watts);
  if (range.idle_watts && mean_watts < *range.idle_watts * kRestFloor)
    return fmt::format("mean power {:.0f} W over {:.2f} s is below half the device's draw at rest ({:.0f} W)",
                       mean_watts, seconds, *range.idle_watts);
  return "";
}

}  // namespace fmwork
