// `driver run`: executes an experiment's plan (experiment.hpp), each run in its own process of the driver,
// over the local devices given, into a result tree:
//
//   ROOT/<user>/<host>/<time>/experiment.json   the experiment file, byte for byte
//                             plan.json         the expanded runs: id, run, matrix values, argv
//                             environment.json  user, host, time, driver, kernel, CPUs, FMWORK_/OMP_/MKL_/CUDA_ variables
//                             logs/<id>.log     the run's stdout (its FMWORK lines), renamed into place when it ends
//                             logs/<id>.err     its stderr
//
// A run is complete when its log has a RES or FAIL line for every batch x input combination of its command
// line; `--resume DIR` runs again only the runs that are not. A killed runner loses the runs in flight: their
// logs are still `<id>.log.partial`. With `--slurm` the runs to do are submitted as a job array (slurm.hpp)
// whose tasks are `driver run --task DIR INDEX`: one run, written into the tree as above, plus
// logs/<id>.environment.json (the node's). docs/campaigns.md. No LibTorch here.
#pragma once

#include <chrono>
#include <ostream>
#include <string>
#include <vector>

#include "fmwork/runner/experiment.hpp"

namespace fmwork {

// `driver run ...` (args: the words after "run"). `program`: the driver to start for each run
// (/proc/self/exe). Writes --list and --help to `out`, the progress lines to `err`. Returns the exit status:
// 0 when every run ended with status 0, 1 otherwise. Throws a usage Error on a bad command line or
// experiment (before anything is written), a runtime Error when the tree cannot be written.
int run_campaign_command(const std::vector<std::string>& args, const std::string& program, std::ostream& out,
                         std::ostream& err);

// Whether the log at `path` has a RES or FAIL line for every batch x input size of `argv` (a missing,
// unreadable or malformed log is not complete).
bool run_log_complete(const std::string& path, const std::vector<std::string>& argv);

// `argv` with its --platform set to `device` (added when absent).
std::vector<std::string> with_platform(std::vector<std::string> argv, const std::string& device);

// The --devices list: comma-separated platform names; a name given N times runs N runs on it at once
// ("cpu,cpu"). Throws a usage Error on an empty name.
std::vector<std::string> parse_devices(const std::string& text);

// Makes ROOT/<user>/<host>/<time> (a "-2", "-3" ... suffix when a runner took that second) and returns it.
std::string make_campaign_dir(const std::string& root, const std::string& user, const std::string& host,
                              std::chrono::system_clock::time_point now);

// The progress line: "campaign: 3 done, 1 failed, 4 left (2 running), elapsed 0:42, about 1:10 to go".
std::string progress_line(size_t done, size_t failed, size_t left, size_t running, double elapsed_s);

}  // namespace fmwork
