// A campaign's runs as a Slurm job array (`driver run --slurm`): the sbatch script, its submission, and
// which of a campaign's jobs Slurm still holds. One array task per run to do; each task is
// `driver run --task DIR INDEX`, which runs plan.json's run INDEX into DIR/logs as the local runner does,
// so `--resume` and `process` read the tree the same way. docs/campaigns.md. No LibTorch here.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace fmwork {

// An sbatch option given as `--slurm:KEY VALUE`: written `#SBATCH --KEY=VALUE` (`--KEY` alone when VALUE is
// empty).
using SbatchOption = std::pair<std::string, std::string>;

// Checks one `--slurm:KEY VALUE`: KEY an sbatch long option name (lower-case letters, digits, '-'), not one
// the runner sets itself (array, output, error, chdir, parsable, wait, wrap); VALUE one line without
// spaces or quotes (sbatch reads #SBATCH lines word by word). Throws a usage Error naming the option.
SbatchOption sbatch_option(const std::string& key, const std::string& value);

// The runs to do as sbatch's --array list, ascending, runs of consecutive indices as ranges: "0-3,5,7-8".
// `indices` must not be empty.
std::string array_spec(std::vector<size_t> indices);

// What the job script holds.
struct SlurmJob {
  std::string campaign_dir;  // absolute: the tasks find plan.json and logs/ there
  std::string driver;        // absolute path of the driver each task runs
  std::string workdir;       // the tasks' working directory (relative model paths are read from there)
  std::string name;          // the job's name
  std::vector<size_t> indices;          // plan.json's runs to do
  std::vector<SbatchOption> options;    // --slurm:KEY VALUE, in the order given
  size_t max_running = 0;               // at most this many tasks at once (--array=...%N); 0: no limit
};

// The sbatch script: #SBATCH lines (job name, array with its %N limit, output into DIR/slurm/%A_%a.out, then the
// user's options, which win over the defaults), and one command: exec the driver as `run --task DIR
// $SLURM_ARRAY_TASK_ID`. Paths are shell-quoted.
std::string sbatch_script(const SlurmJob& job);

// Throws the usage Error sbatch_script would for a campaign under `campaign_root` (the --out folder, absolute:
// no spaces, quotes or '%', a placeholder on the #SBATCH --output line) run from `workdir` (no spaces or
// quotes): `driver run --slurm` asks before it makes the campaign's folder, not after.
void check_sbatch_paths(const std::string& campaign_root, const std::string& workdir);

// Submits `script` with `sbatch --parsable` and returns the job id. Throws a runtime Error with sbatch's
// message when sbatch is missing or refuses the job.
std::string submit_sbatch(const std::string& script);

// The ids of `jobs` that Slurm still has queued or running (squeue); empty when none. Throws a runtime
// Error when squeue cannot be run.
std::vector<std::string> active_jobs(const std::vector<std::string>& jobs);

}  // namespace fmwork
