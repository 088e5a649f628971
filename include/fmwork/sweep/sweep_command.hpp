// `driver --platform P --model_class C ...`: the sweep over batch x input sizes, with its --isolate parent (each
// combination in a child process of the driver itself) and child (one combination), set up by the same functions
// as `driver serve` (bench_setup.hpp). The app only dispatches here (src/apps/driver.cpp).
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace fmwork {

// Runs the sweep `words` (the whole command line, the program first) ask for: the ARGS section, then RUNTIME,
// MODEL, META and each combination's lines to `out`, errors of failed combinations and warnings to `err`.
// `revision` is the driver's git revision (RUNTIME and META); `program` the driver's own executable, which an
// --isolate parent starts once per combination. Returns the exit status: 0, or 1 when a combination failed
// (the summary line on `err`). Throws usage Errors for bad words, before anything loads, and what setting up
// the model throws.
int run_sweep_command(const std::vector<std::string>& words, const std::string& revision, const std::string& program,
                      std::ostream& out, std::ostream& err);

}  // namespace fmwork
