// The benchmark loop: for each batch size (outer) and input size (inner), `reps` timed forward passes,
// printed as upstream's RUN banner, REP and RES lines plus our STAT / MEM / FAIL lines.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "fmwork/inputs.hpp"
#include "fmwork/log_format.hpp"
#include "fmwork/model.hpp"
#include "fmwork/platform.hpp"

namespace fmwork {

struct SweepPlan {
  std::vector<int64_t> batch_sizes, input_sizes;
  int64_t reps = 0;
  std::string model_name, model_class;  // as printed in RES
};

// Timestamps: CLOCK_MONOTONIC anchored once to the wall clock (CLOCK_REALTIME) at the first call, so that
// they read as Unix time like upstream's time.time_ns() yet never jump when the wall clock is adjusted.
Nanos clock_now();

// Runs the sweep, writing each line as it is produced. The timed region of a rep holds the
// model call and platform.synchronize() only: inputs are built, moved and synchronised before t0, lines
// are printed after t1. A combination that throws (out of memory, a shape the model refuses) prints a
// FAIL line and the sweep goes on. Lines are flushed at the end of each combination, not per REP line.
// Returns the number of failed combinations.
int run_sweep(const SweepPlan& plan, Model& model, Platform& platform, InputGenerator& inputs, std::ostream& out);

}  // namespace fmwork
