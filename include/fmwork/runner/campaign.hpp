// `driver run`: executes an experiment's plan (experiment.hpp), each run in its own process of the driver,
// over the local devices given, into a result tree:
//
//   ROOT/<user>/<host>/<time>/experiment.json   the experiment file, byte for byte
//                             plan.json         the expanded runs: id, run, matrix values, argv
//                             environment.json  user, host, time, driver, kernel, CPUs, FMWORK_/OMP_/MKL_/CUDA_ variables
//                             logs/<id>.log     the run's stdout (its FMWORK lines), renamed into place when it ends
//                             logs/<id>.err     its stderr
//                             runner.lock       the runner at work on it (CampaignLock: one at a time)
//
// A run is complete when its log has a RES or FAIL line for every batch x input combination of its command
// line; `--resume DIR` runs again only the runs that are not. A killed runner loses the runs in flight: their
// logs are still `<id>.log.partial`. With `--slurm` the runs to do are submitted as a job array (slurm.hpp)
// whose tasks are `driver run --task DIR INDEX`: one run, written into the tree as above, plus
// logs/<id>.environment.json (the node's). docs/campaigns.md. No LibTorch here.
#pragma once

#include <ostream>
#include <string>
#include <vector>

// The parts of a campaign that other code and the tests use, declared with their parts (campaign.cpp
// lists them): included here so that this header still declares all it did.
#include "fmwork/runner/campaign_run.hpp"        // with_platform
#include "fmwork/runner/campaign_scheduler.hpp"  // parse_devices, progress_line
#include "fmwork/runner/campaign_tree.hpp"       // make_campaign_dir
#include "fmwork/runner/experiment.hpp"
#include "fmwork/runner/run_complete.hpp"        // run_log_complete

namespace fmwork {

// `driver run ...` (args: the words after "run"). `program`: the driver to start for each run
// (/proc/self/exe). Writes --list and --help to `out`, the progress lines to `err`. Returns the exit status:
// 0 when every run ended with status 0, 1 otherwise. Throws a usage Error on a bad command line or
// experiment (before anything is written), a runtime Error when the tree cannot be written.
int run_campaign_command(const std::vector<std::string>& args, const std::string& program, std::ostream& out,
                         std::ostream& err);

// The command that resumes the campaign `dir` from any folder: the driver `program` runs (its real path), `run
// --resume` with `dir` made absolute, and `--devices LIST` when one was given (empty: none), shell-quoted.
// What `driver run` says when SIGINT or SIGTERM stops it (base/interrupt_note.hpp).
std::string resume_command(const std::string& program, const std::string& dir, const std::string& devices);

}  // namespace fmwork
