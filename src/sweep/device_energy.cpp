// The energy a combination's shape takes on the device (see device_energy.hpp).
#include "fmwork/sweep/device_energy.hpp"

#include <chrono>

namespace fmwork {

std::optional<DeviceEnergy> measure_device_energy(Platform& platform, const std::function<void()>& run_once) {
  platform.synchronize();  // nothing of the timed reps is left in flight when the window opens
  EnergyMeter* meter = platform.meters().energy.get();
  if (!meter || !meter->joules()) return std::nullopt;
  DeviceEnergy energy;
  // Any monotonic clock gives the window's length; the steady clock is the standard library's.
  const auto now_ns = [] {
    return static_cast<int64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
            .count());
  };
  const EnergyMeterHooks hooks{now_ns,
                               [meter] { return meter->joules(); }, run_once};
  energy.window = measure_energy_window(EnergyWindowRules{}, hooks, energy.why_not);
  if (energy.window) {
    energy.why_not = implausible_power(energy.window->watts(), energy.window->seconds, platform.facts().power_range);
    if (!energy.why_not.empty()) energy.window.reset();
  }
  return energy;
}

}  // namespace fmwork
