// The benchmark loop: for each batch size (outer) and input size (inner), `reps` timed forward passes,
// printed as upstream's RUN banner, REP and RES lines plus our STAT / MEM / FAIL lines.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "fmwork/cli/fixed_options.hpp"
#include "fmwork/model/inputs.hpp"
#include "fmwork/log/log_format.hpp"
#include "fmwork/model/model.hpp"
#include "fmwork/domain/run_options.hpp"
#include "fmwork/platform/platform.hpp"
#include "fmwork/sweep/cpu_reference.hpp"

namespace fmwork {

// What run_sweep runs: the fixed options as the command line's rows filled them and check_fixed_args checked
// them (each one's contract in fixed_options.hpp; RES prints model_name and model_class), the --check_outputs:KEY
// tolerances, and beside them what setup derives from them, the model and the machine (plan_of, bench_setup.cpp).
struct SweepPlan {
  FixedArgs args;
  CheckOptions check;
  // A run that is not CPU eager (cpu_reference.hpp's holds_against_cpu): the first combination whose reps
  // complete has its first rows run again by the model eager on the CPU, before its RES; its CHECK line with
  // the others (reference=cpu), or, beyond the tolerances, the CHECK line and a FAIL line instead of RES, and a
  // line in every later combination; nullopt: no such check.
  std::optional<CpuReference> cpu_reference;
  // The machine's GEMM rate in GFLOP/s (gemm_probe.hpp), for STAT's of_peak; nullopt: no of_peak.
  std::optional<double> peak_gflops;
  Batching batching = Batching::padded;  // --batching, or its default for the model (default_batching)
  bool one_shape = false;  // a platform that compiles one shape: drawn lengths padded to the input size
};

// The operators a --profile rep reports per side (CPU operators, device kernels), largest self time first.
constexpr size_t kTopOps = 10;

// Timestamps: CLOCK_MONOTONIC anchored once to the wall clock (CLOCK_REALTIME) at the first call, so that
// they read as Unix time like upstream's time.time_ns() yet never jump when the wall clock is adjusted.
Nanos clock_now();

// Runs the sweep, writing each line as it is produced. STAT carries the work fields (gflops, of_peak) where
// the model knows its FLOPs (ModelFacts::forward_flops) or, failing that, the --profile rep counted some. The
// timed region of a rep holds the model call and platform.synchronize() only: inputs are built, moved and
// synchronised before t0, lines are printed after t1. A combination that throws (out of memory, a shape the model refuses) prints a
// FAIL line and the sweep goes on. Lines are flushed at the end of each combination, not per REP line.
// Each failed combination (a FAIL line, or a failed output check) is also handed to `report`, as it happens,
// as one line ("combination input 512 / batch 256 failed: ...; the sweep goes on"): the library prints
// nothing to stderr, the executable decides. Returns the number of failed combinations. After a failure the
// platform calls unrecoverable (Platform::unrecoverable_error: a sticky CUDA error), the FAIL line is
// written and flushed, and a runtime Error naming the device error ends the sweep: nothing more can run.
using FailureReport = std::function<void(const std::string& message)>;
int run_sweep(const SweepPlan& plan, Model& model, Platform& platform, InputGenerator& inputs, std::ostream& out,
              const FailureReport& report = {});

}  // namespace fmwork
