// `driver run --slurm`: the runs to do submitted as one job array, --wait's progress until the job has
// left the queue, and the guard that keeps a resume from running runs that a queued job still holds. Apart
// from the local scheduler: here Slurm runs the runs and the runner only submits and watches. Private to
// src/runner/.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "campaign_options.hpp"
#include "fmwork/runner/experiment.hpp"

namespace fmwork {

// A resume beside a job of the campaign that Slurm still holds would run its runs twice: refused with a
// runtime Error naming the job. Where Slurm cannot be asked (a tree copied off the cluster, resumed
// locally; `on_slurm` false), a line on `err` says so and the local resume goes on.
void check_no_queued_job(const std::string& dir, bool on_slurm, std::ostream& err);

// Throws a usage Error when the campaign folder under `out` (--out) or the current folder cannot go on an
// #SBATCH line (slurm.hpp's check_sbatch_paths: spaces, quotes; '%' in --out): called before the campaign's
// folder is made.
void check_slurm_folders(const std::string& out);

// The runs `todo` of `plan` as one job array: the script is kept as DIR/slurm/submit-<n>.sbatch and the job
// id appended to DIR/slurm/jobs (what a later resume checks against the queue); --no-submit writes the
// script only. Returns 0, or with --wait 0 when every submitted run completed and 1 otherwise. Throws a
// runtime Error when sbatch refuses or the job cannot be recorded.
int submit_campaign(const RunnerOptions& o, const Plan& plan, const std::string& dir, const std::vector<size_t>& todo,
                    const std::string& program, std::ostream& err);

}  // namespace fmwork
