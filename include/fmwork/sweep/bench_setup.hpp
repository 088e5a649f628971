// What a benchmark needs before its first combination or load level, made by the same functions for the sweep
// (`driver`), the serving scenario (`driver serve`) and an --isolate child: the command line's options parsed
// and checked, the platform, the torch settings and autograd (the RUNTIME section), the model loaded and
// compiled (MODEL, and SETUP on the log), the machine's GEMM rate, META, the input generator, and the sweep's
// plan. The commands (sweep_command.hpp, serve_command.hpp) print what this makes; the app only dispatches.
#pragma once

#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "fmwork/cli/cli.hpp"
#include "fmwork/domain/run_options.hpp"
#include "fmwork/log/log_format.hpp"
#include "fmwork/model/inputs.hpp"
#include "fmwork/model/model.hpp"
#include "fmwork/platform/platform.hpp"
#include "fmwork/runtime/runtime_info.hpp"
#include "fmwork/sweep/gemm_probe.hpp"
#include "fmwork/sweep/sweep.hpp"

namespace fmwork {

// The driver's command line, parsed: the fixed options and every sub-option set, typed.
struct DriverOptions {
  CommandLine command_line;
  CompileOptions compile;
  ModelOptions model;
  TorchCalls calls;
  TorchSets sets;
  PlatformOptions platform;
  CheckOptions check;
};

// Everything the user typed, parsed and validated before anything is loaded: the sub-option sets, the torch
// settings, and the output folders (--save_outputs and --profile made, --check_outputs existing). Usage Errors
// name the option. `command`: whose command line it is (options.hpp), the sweep's or driver serve's.
DriverOptions parse_driver_options(int argc, const char* const* argv, Command command = Command::sweep);

// The platform --platform names, checked against the command line (its constraints, the compile request, the
// lengths --input_lengths can draw against config.json's positions) and the thread environment, before anything
// is loaded. Usage Errors.
std::unique_ptr<Platform> open_platform(const DriverOptions& o);

struct BenchSetup {
  std::unique_ptr<Platform> platform;
  std::string revision;  // the driver's git revision (the app's generated header), for RUNTIME and META
  RuntimeInfo runtime;
  bool grad = false;
  std::unique_ptr<Model> model;
  std::string model_runtime;     // what runs the model: META runtime= (ModelFacts::runtime, or the compile backend)
  std::optional<GemmRate> rate;  // when asked for and a combination's FLOPs can be known
  std::string dtype_warning;     // on the CPU, a dtype without native instructions ("" otherwise): for stderr
  MetaLine meta;                 // the run's META, for the command to print where its log has it
  std::optional<InputGenerator> inputs;  // the model's token ids, seeded by --seed
  Batching batching = Batching::padded;  // --batching, else default_batching's
};

// --batching's default. On mixed lengths (--input_lengths), unpadded where the model runs packed tokens and the
// platform takes more than one shape: measured 4-5x padded on the CPU (bench/README.md, "Mixed lengths"), and on
// CUDA the variable-length kernels take each layer's attention in one call. Padded otherwise (fixed lengths have
// nothing to unpad).
Batching default_batching(bool mixed_lengths, const ModelFacts& model, const PlatformFacts& platform);

// A run that is not CPU eager is held against the model as the loaders load it on the CPU, not compiled
// (cpu_reference.hpp): how to load it; nullopt for a run that is CPU eager, or that opted out.
std::optional<CpuReference> cpu_reference_of(const DriverOptions& o, const Platform& platform);

// What the sweep and serve both need first: RUNTIME (the torch settings applied, then autograd as asked) and MODEL
// (loaded, compiled) to `section`, SETUP to `log` (always: an --isolate child's later sections are discarded, its
// SETUP is not); the batching mode chosen (a `section` line says which and why when --batching was not given on
// mixed lengths). Each command then checks its own shapes (the sweep also measures the GEMM rate into `rate`) and
// calls finish_bench. Throws what loading and compiling throw.
BenchSetup load_bench(const DriverOptions& o, std::unique_ptr<Platform> platform, const std::string& revision,
                      std::ostream& section, std::ostream& log);

// The rest of the setup, after the command's own checks: the cached device memory handed back (the GEMM probe's
// operands, up to three 16384^2 matrices on a GPU, would stay in every reserved peak), the dtype warning, META
// (with `bench.rate` where the command measured one) and the input generator. A usage Error for a vocabulary with
// no id left to draw.
void finish_bench(const DriverOptions& o, BenchSetup& bench);

// A usage Error when `batching` is unpadded and the model (not a native encoder) or the platform (one shape a
// run) cannot run it; the same words for the sweep and serve.
void check_batching(Batching batching, const BenchSetup& bench);

// The sweep's setup (load_bench, then finish_bench) and the plan the command line asks for, made once: the shapes
// it feeds held to what the model takes (a package built for some shapes) before the GEMM probe (said in
// `section`, where a combination's FLOPs can be known) and META, whose rate the plan's STAT lines use. The
// caller refuses --batching unpadded where it cannot run (check_batching), after META, as serve does.
std::pair<BenchSetup, SweepPlan> sweep_setup(const DriverOptions& o, std::unique_ptr<Platform> platform,
                                             const std::string& revision, std::ostream& section, std::ostream& log);

}  // namespace fmwork
