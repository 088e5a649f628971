// A device's energy over a window long enough to mean something, and whether the power it gives is possible.
// An energy counter (NVML's on a GPU) moves in steps every 20-100 ms: a difference over a combination's timed
// reps (tens of milliseconds) read 0, or one step taken for the whole, and once gave a mean power above the
// card's limit. The window here runs the combination's shape again, outside the timed reps, from one step of
// the counter to another, for at least a second and at least ten steps: the figure's error is then at most
// one run's duration over the window's. Torch-free: the device, the clock and the run come as callables, so a
// fake meter tests it.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace fmwork {

struct EnergyWindowRules {
  double min_seconds = 1.0;  // the window is at least this long...
  int min_updates = 10;      // ...and holds at least this many steps of the counter
  double max_seconds = 30;   // bound: a counter that does not move (or too slowly) gives no figure after this
};

// What the window needs: a monotonic clock (ns), the counter (joules, only differences mean anything; nullopt
// when it cannot be read), and one more run of the combination's shape, synchronised with the device.
struct EnergyMeterHooks {
  std::function<int64_t()> now_ns;
  std::function<std::optional<double>()> joules;
  std::function<void()> run_once;
};

struct EnergyWindow {
  double joules = 0;   // between two steps of the counter
  double seconds = 0;  // between the runs after which those steps were seen
  int64_t runs = 0;    // runs inside the window
  int updates = 0;     // steps of the counter inside the window
  double watts() const { return seconds > 0 ? joules / seconds : 0; }
  double joules_per_run() const { return runs > 0 ? joules / static_cast<double>(runs) : 0; }
};

// The window, or nullopt with `why_not` set (one clause: the counter unreadable, not moving, moving backwards,
// or too few steps within rules.max_seconds). Runs `run_once` until the counter steps (the window's start),
// then until rules.min_seconds and rules.min_updates are both reached and the counter steps once more (its
// end). Throws what run_once throws.
std::optional<EnergyWindow> measure_energy_window(const EnergyWindowRules& rules, const EnergyMeterHooks& hooks,
                                                  std::string& why_not);

// What a span of work that runs once (a serving level: its queries cannot be run again) needs: the clock and
// the counter as above, and a short idle wait (about a millisecond) while the counter is watched for a step.
struct EnergySpanHooks {
  std::function<int64_t()> now_ns;
  std::function<std::optional<double>()> joules;
  std::function<void()> idle;
};

// The energy of `work` from one step of the counter to another: watches the counter, idle, until it steps
// (the window's start), runs `work` once (it returns the runs it made: a level's answered queries), then
// watches, idle, for the next step (the window's end: at most one step period of idle power is in the
// window). `work` always runs, also when the counter cannot be read or does not step within rules.max_seconds
// before it; the window is nullopt then, or when the counter went back, did not step within rules.max_seconds
// after `work`, or the window is shorter than rules.min_seconds, with `why_not` set (one clause). Throws what
// `work` throws.
std::optional<EnergyWindow> measure_energy_of_span(const EnergyWindowRules& rules, const EnergySpanHooks& hooks,
                                                   const std::function<int64_t()>& work, std::string& why_not);

// What a device's power can be: its enforced limit (NVML's nvmlDeviceGetEnforcedPowerLimit) and its draw at rest
// (read before this process's work, so possibly still above rest after another's); each absent where the device
// does not say.
struct PowerRange {
  std::optional<double> limit_watts;
  std::optional<double> idle_watts;
};

// "" when `mean_watts` lies within `range` (up to 5% over the limit for the readings' own error, down to half
// the draw at rest, a reading that may still carry earlier work); else why it is not a figure, naming both
// numbers: "mean power 773 W over 1.02 s is above the device's enforced power limit (700 W)", "... below half
// the device's draw at rest (60 W)".
std::string implausible_power(double mean_watts, double seconds, const PowerRange& range);

}  // namespace fmwork
