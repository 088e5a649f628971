// `driver serve` on a loaded model: the load levels (--rates, --users) and the capacity search
// (--latency_bound), each level run by workload/serve_loop.hpp on the steady clock with the model on the
// calling thread. A batch is made (seeded tokens, padded to its longest member with the mask marking the
// padding; packed for --batching unpadded), staged, run and synchronised inside the latency: what a server's batch costs from the moment it
// is dispatched. A platform of one batch size gets every batch filled to it, one of one input size every
// batch padded to the longest query: the one shape it runs. docs/serving.md.
#pragma once

#include <cstdint>
#include <ostream>

#include "fmwork/cli/serve_options.hpp"
#include "fmwork/model/inputs.hpp"
#include "fmwork/model/model.hpp"
#include "fmwork/platform/platform.hpp"
#include "fmwork/sweep/fed_shapes.hpp"
#include "fmwork/workload/lengths.hpp"

namespace fmwork {

struct ServeSetup {
  ServeArgs args;
  int64_t max_batch = 8;  // --batch_sizes' one size
  LengthSpec lengths;     // --input_lengths, or --input_sizes' one size as fixed
  Batching batching = Batching::padded;  // --batching, else load_bench's default (default_batching)
  uint64_t seed = 0;      // --seed: arrivals and lengths (each level its own stream from it)
};

// What serve feeds the model: the batcher's 1 to max_batch queries a batch (max_batch on a platform of one
// batch size, each batch filled to it), each padded to its longest query (to the longest the lengths allow on
// a platform of one input size).
FedShapes serve_fed_shapes(const ServeSetup& setup, const PlatformConstraints& platform);
// check_fed_shapes of serve_fed_shapes, a package built for the one shape Model::prepare is given: the
// largest batch x the longest query. Before prepare: a package that could not serve is never built.
void check_serve_shapes(const ServeSetup& setup, const PlatformConstraints& platform, const ModelFacts& facts);

// Writes the SERVE banner, runs the levels, then the search when a bound is given (no rate run twice, no level
// started past --search_budget_s); writes a SERVE line per level (on the CPU with the CPU it got: timing=ok or
// contended), the CAPACITY line (result=partial with the bracket so far when the budget or a stop ended the
// search), and a table for people to `out` (flushed after each level). A SIGINT or SIGTERM while it runs ends
// the running level, writes what is complete and then ends the process by that signal. Returns 0; throws a
// runtime Error after the CAPACITY line when no rate held the bound, and what the model throws.
int run_serve(const ServeSetup& setup, Model& model, Platform& platform, InputGenerator& inputs, std::ostream& out);

}  // namespace fmwork
