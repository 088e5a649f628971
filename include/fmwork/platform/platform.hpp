// Where the model runs: what the platform is as one value (PlatformFacts: the LibTorch device, its
// description, the rules it imposes on a run, platform_rules.hpp, and the compilers it brings), the meters the
// device has, and the few operations the sweep needs around it (synchronise, release, compile). `cpu` and
// `cuda[:N]` are built in, any other name is a plugin: platform_registry.hpp makes them.
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

// The allocator's peaks since MemoryPeakMeter::reset(). allocated_bytes counts everything live, the weights
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
  std::vector<std::string> notes;  // what was done, one line each ("compile: torchscript (...)"); free text
  // The package made before the sweep (AOTInductor, one for every shape): its FMWORK COMPILE line, written
  // after the notes. A record, kept apart from the free text, which is written through log_text.
  std::optional<CompileFacts> compile_line;
  // What runs the model now ("torchscript", "inductor", "openvino", "cudagraphs", "inductor+cudagraphs", a
  // platform's backend); empty when nothing was compiled (the model's own ModelFacts::runtime stands).
  std::string runtime;
};

// The device's meters, each an object the platform makes when it is opened, or absent (null in
// PlatformMeters) where the device has none: a caller asks a meter only when it is there, and an absent one
// is said once, by its absence, instead of by a call that answers "cannot tell".

// The allocator's peaks. cuda: the reset first hands the allocator's unused cached blocks back (emptyCache),
// so that reserved_bytes is this combination's and not the high-water mark of the GEMM probe and every
// combination before it; resident_bytes is then what was allocated at the reset.
class MemoryPeakMeter {
 public:
  virtual ~MemoryPeakMeter() = default;
  // Starts a new measurement.
  virtual void reset() = 0;
  // The peaks since the last reset(); nullopt when this read failed (a plugin that cannot tell this time).
  virtual std::optional<MemoryPeaks> read() = 0;
};

// The memory a combination may still take on the device, for the sweep's admission (the cpu: the host's
// MemAvailable or cgroup room; cuda: free device memory plus what the caching allocator holds unused).
class AvailableMemoryMeter {
 public:
  virtual ~AvailableMemoryMeter() = default;
  // Now; nullopt when this read failed (and then nothing is refused).
  virtual std::optional<MemoryBudget> read() = 0;
};

// The device's energy counter (cuda: NVML's total energy since the driver loaded). Only differences mean
// anything; the caller synchronises first.
class EnergyMeter {
 public:
  virtual ~EnergyMeter() = default;
  // Joules now; nullopt when this read failed.
  virtual std::optional<double> joules() = 0;
};

struct PlatformMeters {
  std::unique_ptr<MemoryPeakMeter> memory_peaks;          // cuda, plugins with memory_peaks
  std::unique_ptr<AvailableMemoryMeter> available_memory; // cpu, cuda
  std::unique_ptr<EnergyMeter> energy;                    // cuda with NVML on Volta or later
};

// What a platform is, as data: the platform fills it when it is opened, and callers read it instead of
// asking the device one fact at a time.
struct PlatformFacts {
  std::string name;                  // as given on the command line ("cpu", "cuda:1", "spyre")
  torch::Device device{torch::kCPU}; // where parameters and inputs are moved before the sweep
  // Free text for the RUNTIME section and the META line (device model, threads, ...).
  std::string description;
  // What code compiled for the device is tied to, for the keys of what is measured or compiled once and kept
  // (the GEMM rate, AOTInductor packages): cuda "sm_90 cuda=13.0" (compute capability, CUDA runtime); empty
  // where nothing beyond the CPU's own facts matters (cpu, plugins).
  std::string architecture;
  // The rules a run on this platform must follow; the driver checks them against the command line with
  // check_constraints() before anything is loaded and reports every refusal at once.
  PlatformConstraints constraints;
  // Compile backends this platform provides itself (a plugin's "sendnn"); empty for cpu and cuda.
  std::vector<std::string> compile_backends;
  // Which meters Platform::meters() holds (made from them: the two never disagree).
  bool has_memory_peaks = false, has_available_memory = false, has_energy = false;
  // The range a mean power over the energy meter can lie in (cuda: NVML's enforced power limit, and the draw
  // read when the counter was opened, before any work); empty where the device does not say. A figure outside
  // it is no figure (base/energy_window.hpp, implausible_power).
  PowerRange power_range;
};

// A platform: its facts, its meters, and what acts on the device. Every operation is the platform's own to
// say (none has a default), so that a new platform states what it does for each.
class Platform {
 public:
  virtual ~Platform() = default;

  // What the platform is (above): own_facts() with the has_* flags set from meters(). Asked when needed, not
  // kept: the cpu's description counts the threads, which the torch settings (--torch.call:set_num_threads)
  // set after the platform is opened.
  PlatformFacts facts() const;

  // The device's meters, made when the platform was opened; a null one is absent and never asked.
  PlatformMeters& meters() { return meters_; }

  // Waits until all work queued on the device is finished. Called inside every rep, after the model call.
  virtual void synchronize() = 0;

  // Hands memory the allocator caches but nothing uses back to the device (cuda: emptyCache), after a
  // one-off user of it (the GEMM probe); a platform without such a cache does nothing.
  virtual void release_cached_memory() = 0;

  // After a combination failed with `failure` (its FAIL text): one line naming the device error when the
  // device can run nothing more in this process (cuda: a sticky error, an illegal address or a device-side
  // assert, which every later CUDA call returns), so that the sweep stops instead of failing every
  // combination left; nullopt when the device is still usable (an out-of-memory, a refused shape).
  virtual std::optional<std::string> unrecoverable_error(const std::string& failure) = 0;

  // Compiles `model` (loaded from `source`) with one of facts().compile_backends; the result is what the
  // sweep times. Throws an Error when the platform's compiler refuses the model or the options. A platform
  // that lists no backends throws no_platform_compiler()'s usage Error (it never returns the model unchanged
  // as if it had compiled it).
  virtual std::unique_ptr<Model> compile(std::unique_ptr<Model> model, const CompileOptions& options,
                                         const ModelSource& source) = 0;

 protected:
  explicit Platform(PlatformMeters meters) : meters_(std::move(meters)) {}
  // The facts but the has_* flags, which facts() sets: the cuda and plugin platforms fill theirs when opened.
  virtual PlatformFacts own_facts() const = 0;

 private:
  PlatformMeters meters_;
};

// The usage Error of a platform that has no compiler of its own (cpu, cuda): the build's own backends are
// compile_model's to list (compile/ lies above platform/), so it names the way to them.
[[noreturn]] void no_platform_compiler(const std::string& platform, const CompileOptions& options);

}  // namespace fmwork
