// `driver serve ...`: the serving scenario (serve_run.hpp) on the model the sweep's options name, set up by the
// same functions as the sweep (bench_setup.hpp). The serve options are taken out first; the rest is the sweep's
// command line, without --reps, with --input_sizes and --batch_sizes of one size each (the query length, the
// largest batch).
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace fmwork {

// Runs the scenario the words (after `serve`) ask for, the log to `out`; `revision` is the driver's git revision
// for RUNTIME and META. Returns the exit status (run_serve's); usage Errors for bad words, before anything loads.
int run_serve_command(const std::vector<std::string>& words, const std::string& revision, std::ostream& out);

}  // namespace fmwork
