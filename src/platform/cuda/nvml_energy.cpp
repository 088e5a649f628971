// NVML's energy counter, dlopen'ed (see nvml_energy.hpp). The few NVML types and prototypes are declared here
// from nvml.h (nvidia-nvml-dev 13.0.87): this toolkit has no nvml.h, and the driver's library is all we need.
#include "platform/cuda/nvml_energy.hpp"

#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <fmt/format.h>

namespace fmwork {

namespace {

using nvmlReturn_t = int;  // an enum in nvml.h; NVML_SUCCESS is 0
using nvmlDevice_t = void*;  // struct nvmlDevice_st*
constexpr nvmlReturn_t kNvmlSuccess = 0;

}  // namespace

struct NvmlEnergy::Api {
  void* library = nullptr;
  std::string load_error;  // dlerror()'s text when the library did not load
  nvmlReturn_t (*init)() = nullptr;  // nvmlInit_v2: nvml.h #defines nvmlInit to it
  nvmlReturn_t (*by_pci_bus_id)(const char*, nvmlDevice_t*) = nullptr;  // nvmlDeviceGetHandleByPciBusId_v2
  nvmlReturn_t (*total_energy)(nvmlDevice_t, unsigned long long*) = nullptr;  // millijoules
  nvmlReturn_t (*enforced_limit)(nvmlDevice_t, unsigned int*) = nullptr;       // milliwatts; optional
  nvmlReturn_t (*power_usage)(nvmlDevice_t, unsigned int*) = nullptr;          // milliwatts; optional
  const char* (*error_string)(nvmlReturn_t) = nullptr;

  std::string error(nvmlReturn_t r) const {
    return error_string ? fmt::format("{} ({})", error_string(r), r) : fmt::format("NVML error {}", r);
  }
};

std::unique_ptr<NvmlEnergy> NvmlEnergy::open(int cuda_index, std::string& why) {
  // Loaded once per process and never closed: NVML keeps state, and unloading under it is not supported.
  static const std::shared_ptr<Api> api = [] {
    auto a = std::make_shared<Api>();
    a->library = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!a->library) {
      const char* error = dlerror();
      a->load_error = error ? error : "not found";
      return a;
    }
    a->init = reinterpret_cast<nvmlReturn_t (*)()>(dlsym(a->library, "nvmlInit_v2"));
    a->by_pci_bus_id =
        reinterpret_cast<nvmlReturn_t (*)(const char*, nvmlDevice_t*)>(dlsym(a->library, "nvmlDeviceGetHandleByPciBusId_v2"));
    a->total_energy = reinterpret_cast<nvmlReturn_t (*)(nvmlDevice_t, unsigned long long*)>(
        dlsym(a->library, "nvmlDeviceGetTotalEnergyConsumption"));
    a->enforced_limit = reinterpret_cast<nvmlReturn_t (*)(nvmlDevice_t, unsigned int*)>(
        dlsym(a->library, "nvmlDeviceGetEnforcedPowerLimit"));
    a->power_usage =
        reinterpret_cast<nvmlReturn_t (*)(nvmlDevice_t, unsigned int*)>(dlsym(a->library, "nvmlDeviceGetPowerUsage"));
    a->error_string = reinterpret_cast<const char* (*)(nvmlReturn_t)>(dlsym(a->library, "nvmlErrorString"));
    return a;
  }();
  static const nvmlReturn_t initialised = api->init ? api->init() : -1;
  if (!api->library) {
    why = "NVML's libnvidia-ml.so.1 is not loadable (" + api->load_error + ")";
    return nullptr;
  }
  if (!api->init || !api->by_pci_bus_id || !api->total_energy) {
    why = "libnvidia-ml.so.1 lacks nvmlInit_v2, nvmlDeviceGetHandleByPciBusId_v2 or "
          "nvmlDeviceGetTotalEnergyConsumption";
    return nullptr;
  }
  if (initialised != kNvmlSuccess) {
    why = "nvmlInit_v2 failed: " + api->error(initialised);
    return nullptr;
  }
  char bus_id[32] = {};
  if (cudaDeviceGetPCIBusId(bus_id, sizeof(bus_id), cuda_index) != cudaSuccess) {
    why = fmt::format("cudaDeviceGetPCIBusId failed for cuda:{}", cuda_index);
    return nullptr;
  }
  nvmlDevice_t device = nullptr;
  if (const nvmlReturn_t r = api->by_pci_bus_id(bus_id, &device); r != kNvmlSuccess) {
    why = fmt::format("NVML has no device at PCI bus id {}: {}", bus_id, api->error(r));
    return nullptr;
  }
  unsigned long long millijoules = 0;
  if (const nvmlReturn_t r = api->total_energy(device, &millijoules); r != kNvmlSuccess) {
    why = "nvmlDeviceGetTotalEnergyConsumption: " + api->error(r) + " (Volta or newer GPUs only)";
    return nullptr;
  }
  return std::unique_ptr<NvmlEnergy>(new NvmlEnergy(api, device));
}

std::optional<double> NvmlEnergy::joules() {
  unsigned long long millijoules = 0;
  if (api_->total_energy(device_, &millijoules) != kNvmlSuccess) return std::nullopt;
  return static_cast<double>(millijoules) / 1000.0;
}

namespace {

// A milliwatt reading of `read` in watts, or nullopt when the function is absent or fails.
std::optional<double> watts_of(nvmlReturn_t (*read)(nvmlDevice_t, unsigned int*), void* device) {
  unsigned int milliwatts = 0;
  if (!read || read(device, &milliwatts) != kNvmlSuccess) return std::nullopt;
  return static_cast<double>(milliwatts) / 1000.0;
}

}  // namespace

std::optional<double> NvmlEnergy::enforced_limit_watts() const { return watts_of(api_->enforced_limit, device_); }

std::optional<double> NvmlEnergy::power_watts() const { return watts_of(api_->power_usage, device_); }

}  // namespace fmwork
