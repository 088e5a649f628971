// The energy a combination's shape takes on the device, measured after its timed reps and outside them: the
// shape run again over a window of at least a second and ten steps of the device's counter
// (base/energy_window.hpp), and the mean power held to the device's range (PlatformFacts::power_range). A figure
// outside it, or a window the counter could not give, is no figure but a line that says why.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "fmwork/base/energy_window.hpp"
#include "fmwork/platform/platform.hpp"

namespace fmwork {

struct DeviceEnergy {
  std::optional<EnergyWindow> window;  // the figure, when there is one
  std::string why_not;                 // else why not (the counter, or the power outside the device's range)
};

// nullopt where the platform has no energy meter (cpu, plugins, GPUs before Volta) or it cannot be read: nothing
// is run. Else runs
// `run_once` (one forward of the combination's shape and a synchronisation) as the window needs. Throws what
// run_once throws.
std::optional<DeviceEnergy> measure_device_energy(Platform& platform, const std::function<void()>& run_once);

}  // namespace fmwork
