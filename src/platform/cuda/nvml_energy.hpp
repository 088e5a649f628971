// The GPU's energy counter through NVML, loaded at run time (dlopen of the driver's libnvidia-ml.so.1): no
// link dependency, so the binaries load where NVML is absent (and energy is then simply not reported).
// Compiled only when LibTorch brings CUDA (FMWORK_WITH_CUDA).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "fmwork/platform/platform.hpp"

namespace fmwork {

// The cuda platform's EnergyMeter.
class NvmlEnergy : public EnergyMeter {
 public:
  // The counter of CUDA device `cuda_index` (found by its PCI bus id: NVML's indices ignore
  // CUDA_VISIBLE_DEVICES), or nullptr with `why` set when NVML is absent, fails, or the GPU has no counter
  // (older than Volta).
  static std::unique_ptr<NvmlEnergy> open(int cuda_index, std::string& why);

  // Joules since the driver was loaded (nvmlDeviceGetTotalEnergyConsumption, millijoules); nullopt when the
  // read fails. The counter updates every 20-100 ms: a difference over a shorter window reads 0 or one step.
  std::optional<double> joules() override;

  // The power limit the driver enforces now (nvmlDeviceGetEnforcedPowerLimit, milliwatts), in watts; nullopt
  // when NVML does not say.
  std::optional<double> enforced_limit_watts() const;
  // The power drawn now (nvmlDeviceGetPowerUsage, milliwatts), in watts: read at open, before any work, it is
  // the device's draw at rest, or above it while earlier work's draw is still in NVML's average. nullopt when
  // NVML does not say.
  std::optional<double> power_watts() const;

  struct Api;  // the functions taken from the library (nvml_energy.cpp)

 private:
  NvmlEnergy(std::shared_ptr<const Api> api, void* device) : api_(std::move(api)), device_(device) {}
  std::shared_ptr<const Api> api_;
  void* device_;  // nvmlDevice_t
};

}  // namespace fmwork
