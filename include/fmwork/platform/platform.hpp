// Where the model runs: a LibTorch device plus the operations the sweep needs around it (synchronise,
// memory peaks), the rules a platform imposes on a run (as data, platform_rules.hpp) and the compilers it
// brings. `cpu` and `cuda[:N]` are built in, any other name is a plugin: platform_registry.hpp makes them.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "fmwork/base/energy_window.hpp"
#include "fmwork/base/host_memory.hpp"
#include "fmwork/model/model.hpp"
#include "fmwork/domain/run_options.hpp"
#include "fmwork/domain/platform_constraints.hpp"
#include "fmwork/base/python_value.hpp"

namespace fmwork {

// The allocator's peaks since reset_memory_peaks(). allocated_bytes counts everything live, the weights
// included; resident_bytes, where the platform knows it, is what was live at the reset (the weights and
// whatever stays across the reps: saved reference inputs, CUDA graphs' pools), so that the combination's own
// peak is allocated_bytes - resident_bytes.
struct MemoryPeaks {
  int64_t allocated_bytes = 0, reserved_bytes = 0;
  std::optional<int64_t> resident_bytes;
};

// Where the model came from, for compilers that rebuild it from its files (a plugin's backend).
struct ModelSource {
  std::string path;                           // --model_root/--model_name
  std::string model_class;                    // --model_class
  Value options = Value::of_dict({});         // the --model: tree as given
};

// What a compile step hands back (compile_model.hpp): the model the sweep times and the notes for the MODEL
// section.
struct Compiled {
  std::unique_ptr<Model> model;    // compiled, or the model as given when nothing was compiled
  std::vector<std::string> notes;  // what was done, one line each ("compile: torchscript (...)")
};

class Platform {
 public:
  virtual ~Platform() = default;

  // The name as given on the command line ("cpu", "cuda:1", "spyre").
  virtual std::string name() const = 0;
  // The device that parameters and inputs are moved to before the sweep.
  virtual torch::Device device() const = 0;
  // Waits until all work queued on the device is finished. Called inside every rep, after the model call.
  virtual void synchronize() = 0;
  // Free text for the RUNTIME section and the META line (device model, threads, ...).
  virtual std::string description() const = 0;
  // What code compiled for the device is tied to, for the keys of what is measured or compiled once and kept
  // (the GEMM rate, AOTInductor packages): cuda "sm_90 cuda=13.0" (compute capability, CUDA runtime); empty
  // where nothing beyond the CPU's own facts matters (cpu, plugins).
  virtual std::string architecture() const { return ""; }

  // Memory peaks since the last reset; nullopt when the platform cannot tell. cuda: the reset first hands the
  // allocator's unused cached blocks back (emptyCache), so that reserved_bytes is this combination's and not
  // the high-water mark of the GEMM probe and every combination before it.
  virtual void reset_memory_peaks() {}
  virtual std::optional<MemoryPeaks> memory_peaks() { return std::nullopt; }
  // The memory a combination may still take on the device, for the sweep's admission (the cpu: the host's
  // MemAvailable or cgroup room; cuda: free device memory plus what the caching allocator holds unused);
  // nullopt when the platform cannot tell, and then nothing is refused.
  virtual std::optional<MemoryBudget> available_memory() { return std::nullopt; }
  // The device's energy counter in joules (cuda: NVML's total energy since the driver loaded), read now (the
  // caller synchronises first); nullopt where the device reports none (cpu, plugins, GPUs before Volta, no
  // NVML). Only differences mean anything.
  virtual std::optional<double> energy_joules() { return std::nullopt; }
  // The range a mean power over energy_joules() can lie in (cuda: NVML's enforced power limit, and the draw
  // read when the counter was opened, before any work); empty where the device does not say. A figure outside
  // it is no figure (base/energy_window.hpp, implausible_power).
  virtual PowerRange power_range() { return {}; }
  // Hands memory the allocator caches but nothing uses back to the device (cuda: emptyCache), after a
  // one-off user of it (the GEMM probe); nothing elsewhere.
  virtual void release_cached_memory() {}

  // After a combination failed with `failure` (its FAIL text): one line naming the device error when the
  // device can run nothing more in this process (cuda: a sticky error, an illegal address or a device-side
  // assert, which every later CUDA call returns), so that the sweep stops instead of failing every
  // combination left; nullopt when the device is still usable (an out-of-memory, a refused shape).
  virtual std::optional<std::string> unrecoverable_error(const std::string& failure) { return std::nullopt; }

  // The rules a run on this platform must follow (none by default); the driver checks them against the
  // command line with check_constraints() before anything is loaded and reports every refusal at once.
  virtual PlatformConstraints constraints() const { return {}; }

  // Compile backends this platform provides itself (a plugin's "sendnn"); empty for cpu and cuda.
  virtual std::vector<std::string> compile_backends() const { return {}; }
  // Compiles `model` (loaded from `source`) with one of compile_backends(); the result is what the sweep
  // times. Throws an Error when the platform's compiler refuses the model or the options. A platform that
  // lists backends overrides this; the default compiles nothing and says so (it never returns the model
  // unchanged as if it had compiled it).
  virtual std::unique_ptr<Model> compile(std::unique_ptr<Model> model, const CompileOptions& options,
                                         const ModelSource& source);
};

}  // namespace fmwork
