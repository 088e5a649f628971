// The platforms by name: cpu and cuda[:N] built in, any other name a plugin (see platform_registry.hpp).
#include "fmwork/platform/platform_registry.hpp"

#include <ATen/Parallel.h>
#include <torch/cuda.h>

#include <fstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "fmwork/base/error.hpp"
#include "fmwork/cli/platform_rules.hpp"
#include "fmwork/base/host_memory.hpp"
#include "fmwork/platform/plugin/plugin_loader.hpp"
#include "fmwork/platform/plugin/plugin_platform.hpp"

#ifdef FMWORK_WITH_CUDA
#include "platform/cuda/cuda_device.hpp"
#include "platform/cuda/nvml_energy.hpp"
#endif

namespace fmwork {
namespace {

std::string cpu_model_name() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  }
  return "unknown CPU";
}

class CpuPlatform : public Platform {
 public:
  std::string name() const override { return "cpu"; }
  torch::Device device() const override { return torch::kCPU; }
  // CPU kernels run synchronously on the calling thread: nothing is left in flight.
  void synchronize() override {}
  std::optional<MemoryBudget> available_memory() override { return host_available_memory(); }
  std::string description() const override {
    return fmt::format("{}, {} intra-op threads, {} inter-op threads", cpu_model_name(), at::get_num_threads(),
                       at::get_num_interop_threads());
  }
};

class CudaPlatform : public Platform {
 public:
  CudaPlatform(std::string name, int index) : name_(std::move(name)), index_(index) {}
  std::string name() const override { return name_; }
  torch::Device device() const override { return torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(index_)); }
  void synchronize() override { torch::cuda::synchronize(index_); }
#ifdef FMWORK_WITH_CUDA
  std::string description() const override { return cuda_device_description(index_); }
  std::string architecture() const override { return cuda_architecture(index_); }
  void reset_memory_peaks() override { resident_ = cuda_reset_memory_peaks(index_); }
  std::optional<MemoryPeaks> memory_peaks() override {
    std::optional<MemoryPeaks> peaks = cuda_memory_peaks(index_);
    if (peaks && resident_) peaks->resident_bytes = *resident_;
    return peaks;
  }
  void release_cached_memory() override { cuda_release_cached_memory(); }
  std::optional<double> energy_joules() override {
    if (!energy_tried_) {  // opened once: a machine without NVML says so by the fields' absence
      energy_tried_ = true;
      std::string why;
      energy_ = NvmlEnergy::open(index_, why);
      // Opened by make_cuda, before any work: the draw read now is the device's at rest.
      if (energy_) power_range_ = PowerRange{energy_->enforced_limit_watts(), energy_->power_watts()};
    }
    return energy_ ? energy_->joules() : std::nullopt;
  }
  PowerRange power_range() override { return power_range_; }
  std::optional<std::string> unrecoverable_error(const std::string& failure) override {
    return cuda_sticky_error(index_, failure);
  }
  std::optional<MemoryBudget> available_memory() override { return cuda_available_memory(index_); }
#else
  std::string description() const override { return fmt::format("CUDA device {}", index_); }
#endif

 private:
  std::string name_;
  int index_;
#ifdef FMWORK_WITH_CUDA
  std::optional<int64_t> resident_;  // allocated at the last reset_memory_peaks()
  bool energy_tried_ = false;
  std::unique_ptr<NvmlEnergy> energy_;
  PowerRange power_range_;
#endif
};

std::unique_ptr<Platform> make_cuda(const std::string& name) {
  int index = 0;
  if (name != "cuda") {
    const std::string digits = name.substr(5);
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 3)
      throw usage_error(fmt::format("--platform {}: write cuda or cuda:N with N a device index", name));
    index = std::stoi(digits);
  }
  if (!torch::cuda::is_available())
    throw usage_error(fmt::format(
        "--platform {}: this LibTorch has no CUDA (or no GPU is visible); build against a CUDA-enabled LibTorch "
        "(FMWORK_PYTHON=<a python with a CUDA torch> scripts/build.sh) or use --platform cpu",
        name));
  const auto count = static_cast<int>(torch::cuda::device_count());
  if (index >= count)
    throw usage_error(fmt::format("--platform {}: there are {} CUDA devices (indices 0 to {})", name, count, count - 1));
#ifdef FMWORK_WITH_CUDA
  cuda_make_current(index);  // once, here: the device and its context for the whole run (cuda_device.hpp)
#endif
  auto platform = std::make_unique<CudaPlatform>(name, index);
#ifdef FMWORK_WITH_CUDA
  // The energy counter opened now, before the GEMM probe or any model ran: the draw it reads is the rest draw.
  platform->energy_joules();
#endif
  return platform;
}

std::unique_ptr<Platform> make_plugin(const std::string& name, const PlatformOptions& options) {
  const std::string prefix = "--platform " + name + ": ";
  if (!is_platform_name(name))  // the command line's own check: one rule for --platform and --devices
    throw usage_error(prefix + "not a platform name; expected " + kPlatformNames);
  std::vector<std::string> tried;
  const std::optional<PluginLibrary> library = load_plugin_library(name, tried);
  if (!library)
    throw usage_error(prefix + plugin_not_found_text(name, tried));
  return make_plugin_platform(name, *library, options);
}

}  // namespace

std::unique_ptr<Platform> make_platform(const std::string& name, const PlatformOptions& options) {
  if (name == "cpu") {
    if (!options.entries.empty())
      throw usage_error("--platform:" + options.entries.front().first + ": the cpu platform takes no --platform: options");
    return std::make_unique<CpuPlatform>();
  }
  if (name == "cuda" || name.rfind("cuda:", 0) == 0) {
    if (!options.entries.empty())
      throw usage_error("--platform:" + options.entries.front().first + ": the cuda platform takes no --platform: options");
    return make_cuda(name);
  }
  return make_plugin(name, options);
}

}  // namespace fmwork
