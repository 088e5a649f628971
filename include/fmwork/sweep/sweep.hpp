// The benchmark loop: for each batch size (outer) and input size (inner), `reps` timed forward passes,
// printed as upstream's RUN banner, REP and RES lines plus our STAT / MEM / FAIL lines.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "fmwork/model/inputs.hpp"
#include "fmwork/log/log_format.hpp"
#include "fmwork/model/model.hpp"
#include "fmwork/domain/run_options.hpp"
#include "fmwork/platform/platform.hpp"
#include "fmwork/sweep/cpu_reference.hpp"
#include "fmwork/workload/lengths.hpp"

namespace fmwork {

struct SweepPlan {
  std::vector<int64_t> batch_sizes, input_sizes;
  int64_t reps = 0;
  std::string model_name, model_class;  // as printed in RES
  // --save_outputs DIR: after the last rep, the inputs and outputs go to DIR (saved_outputs.hpp).
  std::optional<std::string> save_outputs;
  // --check_outputs DIR: every rep is fed the saved inputs instead of random ones; after the last rep a
  // CHECK line compares the outputs with the saved ones, with these tolerances.
  std::optional<std::string> check_outputs;
  CheckOptions check;
  // A run that is not CPU eager (cpu_reference.hpp's holds_against_cpu): the first combination whose reps
  // complete has its first rows run again by the model eager on the CPU, before its RES; its CHECK line with
  // the others (reference=cpu), or, beyond the tolerances, the CHECK line and a FAIL line instead of RES, and a
  // line in every later combination; nullopt: no such check.
  std::optional<CpuReference> cpu_reference;
  // --profile DIR: after each combination's timed reps (and its output check), one more rep of the same
  // inputs under LibTorch's profiler writes DIR/<input>x<batch>.trace.json and the PROFILE lines of its top
  // operators (kTopOps per side: CPU operators, device kernels). Never inside the timed reps.
  std::optional<std::string> profile;
  // The machine's GEMM rate in GFLOP/s (gemm_probe.hpp), for STAT's of_peak; nullopt: no of_peak.
  std::optional<double> peak_gflops;
  // --warmup N: the reps STAT and the NOTE verdict leave out (below reps); nullopt: upstream's rule. RES
  // always keeps upstream's rule.
  std::optional<int64_t> warmup;
  // --input_lengths: each rep's request lengths drawn from it (sweep/rep_lengths.hpp), seeded with `seed`
  // (--seed), each batch padded to its longest (to the combination's input size where `one_shape`: a
  // platform that compiles one shape) or packed (--batching unpadded); nullopt: every row `input` tokens.
  std::optional<LengthSpec> lengths;
  Batching batching = Batching::padded;
  std::optional<int64_t> sort_window;
  uint64_t seed = 0;
  bool one_shape = false;
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
