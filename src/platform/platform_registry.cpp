// The platforms by name: cpu and cuda[:N] built in, any other name a plugin (see platform_registry.hpp).
#include "fmwork/platform/platform_registry.hpp"

#include <ATen/Parallel.h>
#include <torch/cuda.h>

#include <fstream>

#include <fmt/format.h>

#include "fmwork/base/error.hpp"
#include "fmwork/cli/platform_rules.hpp"
#include "fmwork/cli/cuda_name.hpp"
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

class HostMemory : public AvailableMemoryMeter {
 public:
  std::optional<MemoryBudget> read() override { return host_available_memory(); }
};

PlatformMeters cpu_meters() {
  PlatformMeters meters;
  meters.available_memory = std::make_unique<HostMemory>();
  return meters;
}

class CpuPlatform : public Platform {
 public:
  CpuPlatform() : Platform(cpu_meters()), model_name_(cpu_model_name()) {}
  // CPU kernels run synchronously on the calling thread: nothing is left in flight.
  void synchronize() override {}
  // No cache of its own: what LibTorch's CPU allocator frees goes back to malloc.
  void release_cached_memory() override {}
  // A CPU kernel's failure leaves nothing behind that would fail the next combination.
  std::optional<std::string> unrecoverable_error(const std::string&) override { return std::nullopt; }
  std::unique_ptr<Model> compile(std::unique_ptr<Model>, const CompileOptions& options, const ModelSource&) override {
    no_platform_compiler("cpu", options);
  }

 protected:
  PlatformFacts own_facts() const override {
    PlatformFacts facts;
    facts.name = "cpu";
    facts.device = torch::kCPU;
    // The threads read now: the torch settings set them after the platform is opened.
    facts.description = fmt::format("{}, {} intra-op threads, {} inter-op threads", model_name_,
                                    at::get_num_threads(), at::get_num_interop_threads());
    return facts;
  }

 private:
  std::string model_name_;  // /proc/cpuinfo's, read once
};

#ifdef FMWORK_WITH_CUDA
class CudaMemoryPeaks : public MemoryPeakMeter {
 public:
  explicit CudaMemoryPeaks(int index) : index_(index) {}
  void reset() override { resident_ = cuda_reset_memory_peaks(index_); }
  std::optional<MemoryPeaks> read() override {
    std::optional<MemoryPeaks> peaks = cuda_memory_peaks(index_);
    if (peaks && resident_) peaks->resident_bytes = *resident_;
    return peaks;
  }

 private:
  int index_;
  std::optional<int64_t> resident_;  // allocated at the last reset()
};

class CudaMemoryRoom : public AvailableMemoryMeter {
 public:
  explicit CudaMemoryRoom(int index) : index_(index) {}
  std::optional<MemoryBudget> read() override { return cuda_available_memory(index_); }

 private:
  int index_;
};

// The device's meters, opened by make_cuda before any work: the draw the energy counter reads at open is the
// device's at rest (the low end of `power_range`). A machine without NVML has no energy meter.
PlatformMeters cuda_meters(int index, PowerRange& power_range) {
  PlatformMeters meters;
  meters.memory_peaks = std::make_unique<CudaMemoryPeaks>(index);
  meters.available_memory = std::make_unique<CudaMemoryRoom>(index);
  std::string why;
  std::unique_ptr<NvmlEnergy> energy = NvmlEnergy::open(index, why);
  if (energy) power_range = PowerRange{energy->enforced_limit_watts(), energy->power_watts()};
  meters.energy = std::move(energy);
  return meters;
}
#else
PlatformMeters cuda_meters(int, PowerRange&) { return {}; }  // a CPU build knows nothing of the device
#endif

class CudaPlatform : public Platform {
 public:
  // `meters` and `power_range`: cuda_meters()'s.
  CudaPlatform(std::string name, int index, PlatformMeters meters, PowerRange power_range)
      : Platform(std::move(meters)), index_(index) {
    facts_.name = std::move(name);
    facts_.power_range = power_range;
    facts_.device = torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(index));
#ifdef FMWORK_WITH_CUDA
    facts_.description = cuda_device_description(index);
    facts_.architecture = cuda_architecture(index);
#else
    facts_.description = fmt::format("CUDA device {}", index);
#endif
  }
  void synchronize() override { torch::cuda::synchronize(index_); }
#ifdef FMWORK_WITH_CUDA
  void release_cached_memory() override { cuda_release_cached_memory(); }
  std::optional<std::string> unrecoverable_error(const std::string& failure) override {
    return cuda_sticky_error(index_, failure);
  }
#else
  void release_cached_memory() override {}
  std::optional<std::string> unrecoverable_error(const std::string&) override { return std::nullopt; }
#endif
  std::unique_ptr<Model> compile(std::unique_ptr<Model>, const CompileOptions& options, const ModelSource&) override {
    no_platform_compiler(facts_.name, options);
  }

 protected:
  PlatformFacts own_facts() const override { return facts_; }

 private:
  PlatformFacts facts_;
  int index_;
};

std::unique_ptr<Platform> make_cuda(const std::string& name) {
  const std::optional<CudaName> cuda = read_cuda_name(name);
  if (!cuda) throw usage_error(fmt::format("--platform {}: write cuda or cuda:N with N a device index", name));
  const int index = cuda->index.value_or(0);
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
  // The meters opened now, before the GEMM probe or any model ran: the draw the energy counter reads is the rest
  // draw.
  PowerRange power_range;
  PlatformMeters meters = cuda_meters(index, power_range);
  return std::make_unique<CudaPlatform>(name, index, std::move(meters), power_range);
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
      throw usage_error("--platform:" + excerpt(options.entries.front().first) + ": the cpu platform takes no --platform: options");
    return std::make_unique<CpuPlatform>();
  }
  if (name == "cuda" || name.rfind("cuda:", 0) == 0) {
    if (!options.entries.empty())
      throw usage_error("--platform:" + excerpt(options.entries.front().first) + ": the cuda platform takes no --platform: options");
    return make_cuda(name);
  }
  return make_plugin(name, options);
}

}  // namespace fmwork
