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

#include "fmwork/base/host_memory.hpp"
#include "fmwork/model/model.hpp"
#include "fmwork/cli/option_sets.hpp"
#include "fmwork/cli/platform_rules.hpp"
#include "fmwork/base/python_value.hpp"

namespace fmwork {

struct MemoryPeaks { int64_t allocated_bytes = 0, reserved_bytes = 0; };

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

  // Memory peaks since the last reset; nullopt when the platform cannot tell.
  virtual void reset_memory_peaks() {}
  virtual std::optional<MemoryPeaks> memory_peaks() { return std::nullopt; }
  // The memory a combination may still take on the device, for the sweep's admission (the cpu: the host's
  // MemAvailable or cgroup room; cuda: free device memory plus what the caching allocator holds unused);
  // nullopt when the platform cannot tell, and then nothing is refused.
  virtual std::optional<MemoryBudget> available_memory() { return std::nullopt; }

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
