// Whether a campaign's run is complete: its log has a RES or FAIL line for every batch x input size of its
// command line. What `--resume` and `--slurm --wait` decide on; apart because it reads logs back, where the
// rest of the runner writes them. No LibTorch here.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "fmwork/runner/experiment.hpp"

namespace fmwork {

// Whether the log at `path` has a RES or FAIL line for every batch x input size of `argv` (a serve run's, argv
// starting with "serve": a SERVE line per level it asks for, and its CAPACITY line with --latency_bound). A missing log
// (not run yet, or killed: its text is still <id>.log.partial) and an invalid one (a malformed FMWORK line,
// a line cut short) are not complete. Throws an Error naming `path` when the question cannot be answered:
// a log that exists but cannot be read (read_file's message), an `argv` the driver's command line refuses.
bool run_log_complete(const std::string& path, const std::vector<std::string>& argv);

// How many of plan.runs[i], i in `indices`, have a complete log in `dir`/logs (run_log_complete's errors).
size_t count_complete(const std::string& dir, const Plan& plan, const std::vector<size_t>& indices);

}  // namespace fmwork
