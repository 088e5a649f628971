// `driver serve` on a loaded model: the load levels (--rates, --users) and the capacity search
// (--latency_bound), each level run by workload/serve_loop.hpp on the steady clock with the model on the
// calling thread. A batch is made (seeded tokens, padded to its longest member with the mask marking the
// padding; packed for --batching unpadded), staged, run and synchronised inside the latency: what a server's batch costs from the moment it
// is dispatched. docs/serving.md.
#pragma once

#include <cstdint>
#include <ostream>

#include "fmwork/cli/serve_options.hpp"
#include "fmwork/model/inputs.hpp"
#include "fmwork/model/model.hpp"
#include "fmwork/platform/platform.hpp"
#include "fmwork/workload/lengths.hpp"

namespace fmwork {

struct ServeSetup {
  ServeArgs args;
  int64_t max_batch = 8;  // --batch_sizes' one size
  LengthSpec lengths;     // --input_lengths, or --input_sizes' one size as fixed
  Batching batching = Batching::padded;  // --batching
  uint64_t seed = 0;      // --seed: arrivals and lengths (each level its own stream from it)
};

// Runs the levels, then the search when a bound is given; writes a SERVE line per level, the CAPACITY line,
// and a table for people to `out` (flushed after each level). Returns 0; throws a runtime Error after the
// CAPACITY line when no rate holds the bound, and what the model throws.
int run_serve(const ServeSetup& setup, Model& model, Platform& platform, InputGenerator& inputs, std::ostream& out);

}  // namespace fmwork
