// A device's energy over a long enough window (see energy_window.hpp).
#include "fmwork/base/energy_window.hpp"

#include <fmt/format.h>

namespace fmwork {
namespace {

// The margin a mean power may pass the limit or fall below the rest draw by before it is no figure: the
// counter's and the power readings' own error.
constexpr double kPowerMargin = 0.05;

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

std::string implausible_power(double mean_watts, double seconds, const PowerRange& range) {
  if (range.limit_watts && mean_watts > *range.limit_watts * (1 + kPowerMargin))
    return fmt::format("mean power {:.0f} W over {:.2f} s is above the device's enforced power limit ({:.0f} W)",
                       mean_watts, seconds, *range.limit_watts);
  if (range.idle_watts && mean_watts < *range.idle_watts * (1 - kPowerMargin))
    return fmt::format("mean power {:.0f} W over {:.2f} s is below the device's draw at rest ({:.0f} W)", mean_watts,
                       seconds, *range.idle_watts);
  return "";
}

}  // namespace fmwork
