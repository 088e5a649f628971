// Where the model runs: a LibTorch device plus the operations the sweep needs around it (synchronise,
// memory peaks) and the rules a platform imposes on a run. `cpu` and `cuda[:N]` are built in; any other
// name is a plugin (plugin.hpp).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "fmwork/cli.hpp"
#include "fmwork/model.hpp"
#include "fmwork/option_sets.hpp"

namespace fmwork {

struct MemoryPeaks { int64_t allocated_bytes = 0, reserved_bytes = 0; };


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

  // Everything this platform refuses about the command line, each entry a whole sentence naming the
  // option and the reason; empty when the run is acceptable. The driver reports all of them at once.
  virtual std::vector<std::string> check(const CommandLine& command_line) const { return {}; }

  // Compile backends this platform provides itself (a plugin's "sendnn"); empty for cpu and cuda.
  virtual std::vector<std::string> compile_backends() const { return {}; }
  // Compiles `model` with one of compile_backends(); the result is what the sweep times. Throws an Error
  // when the platform's compiler refuses the model or the options.
  virtual std::unique_ptr<Model> compile(std::unique_ptr<Model> model, const CompileOptions& options) {
    return model;
  }
};

// Names of the built-in platforms, for error messages.
std::vector<std::string> builtin_platform_names();

// Makes the platform named by --platform. cpu; cuda / cuda:N (a usage Error when this LibTorch has no
// CUDA or N is out of range); otherwise a plugin is looked up (a usage Error listing what was tried).
std::unique_ptr<Platform> make_platform(const std::string& name, const PlatformOptions& options);

}  // namespace fmwork
