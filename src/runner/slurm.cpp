// The Slurm job array of a campaign: script, submission, active jobs.
#include "fmwork/runner/slurm.hpp"

#include <algorithm>
#include <set>

#include "fmwork/base/text_format.hpp"
#include "fmwork/base/error.hpp"
#include "fmwork/runner/experiment.hpp"
#include "fmwork/base/subprocess.hpp"

namespace fmwork {

namespace {

// Options whose value the runner owns: the array is the runs to do, the output goes to the tree, the
// working directory is the submitter's, and --parsable / --wait are how it submits.
const std::set<std::string> kRunnerOwned = {"array", "output", "error", "chdir", "parsable", "wait", "wrap"};

bool sbatch_word(const std::string& s) {
  return std::none_of(s.begin(), s.end(), [](char c) {
    return c == ' ' || c == '"' || c == '\'' || c == '\\' || static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
  });
}

// A path on an #SBATCH line: sbatch splits those lines into words, so no spaces or quotes.
std::string sbatch_path(const std::string& what, const std::string& path) {
  if (!sbatch_word(path))
    throw usage_error(what + " " + path + ": an #SBATCH line cannot hold a path with spaces or quotes; " +
                      "use a folder whose path has none");
  return path;
}

// The campaign folder, which the #SBATCH --output line holds: there '%' starts a Slurm placeholder (%j, %A),
// so a folder named "a%b" would send the tasks' output elsewhere.
std::string sbatch_output_folder(const std::string& path) {
  if (path.find('%') != std::string::npos)
    throw usage_error("--out " + path + ": '%' on the #SBATCH --output line is a Slurm placeholder (%j, %A); use "
                      "a folder whose path has none");
  return sbatch_path("--out", path);
}

// The last line of a command's stderr (or stdout), for a one-line error.
std::string command_error(const SubprocessResult& r) {
  return one_line(last_line(r.err.find_first_not_of(" \n") != std::string::npos ? r.err : r.out));
}

// Runs a Slurm client command; one that cannot be started says where Slurm's commands are found.
SubprocessResult run_slurm_command(const std::vector<std::string>& argv) {
  try {
    return run_subprocess(argv);
  } catch (const Error& e) {
    throw runtime_error(std::string(e.what()) + "; --slurm needs Slurm's commands (sbatch, squeue) in PATH: " +
                        "run the campaign from a node of the cluster (a login node)");
  }
}

}  // namespace

SbatchOption sbatch_option(const std::string& key, const std::string& value) {
  const std::string option = "--slurm:" + key;
  const bool name_ok = !key.empty() && key[0] >= 'a' && key[0] <= 'z' &&
                       std::all_of(key.begin(), key.end(), [](char c) {
                         return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
                       });
  if (!name_ok)
    throw usage_error(option + ": the key is an sbatch long option without its dashes (partition, time, gres, "
                      "account, cpus-per-task, ...)");
  if (kRunnerOwned.count(key))
    throw usage_error(option + ": the runner sets --" + key + " itself (the array is the runs to do, output goes "
                      "to the campaign folder); leave it out");
  if (!sbatch_word(value))
    throw usage_error(option + " " + excerpt(value) + ": a value without spaces or quotes (an #SBATCH line is read "
                      "word by word)");
  return {key, value};
}

std::string array_spec(std::vector<size_t> indices) {
  std::sort(indices.begin(), indices.end());
  indices.erase(std::unique(indices.begin(), indices.end()), indices.end());
  std::string spec;
  for (size_t i = 0; i < indices.size();) {
    size_t j = i;
    while (j + 1 < indices.size() && indices[j + 1] == indices[j] + 1) ++j;
    if (!spec.empty()) spec += ",";
    spec += std::to_string(indices[i]);
    if (j > i) spec += "-" + std::to_string(indices[j]);
    i = j + 1;
  }
  return spec;
}

std::string sbatch_script(const SlurmJob& job) {
  std::string s = "#!/bin/bash\n";
  s += "# fmwork campaign " + job.campaign_dir + ": one array task per run of plan.json to do, written by\n";
  s += "# `driver run --slurm`. Each task runs the driver on its run into logs/ (docs/campaigns.md).\n";
  s += "#SBATCH --job-name=" + sbatch_path("job name", job.name) + "\n";
  s += "#SBATCH --array=" + array_spec(job.indices) +
       (job.max_running ? "%" + std::to_string(job.max_running) : std::string()) + "\n";
  s += "#SBATCH --chdir=" + sbatch_path("working directory", job.workdir) + "\n";
  s += "#SBATCH --output=" + sbatch_output_folder(job.campaign_dir) + "/slurm/%A_%a.out\n";
  for (const auto& [key, value] : job.options) s += "#SBATCH --" + key + (value.empty() ? "" : "=" + value) + "\n";
  s += command_text("exec", {job.driver, "run", "--task", job.campaign_dir}) + " \"$SLURM_ARRAY_TASK_ID\"\n";
  return s;
}

void check_sbatch_paths(const std::string& campaign_root, const std::string& workdir) {
  sbatch_output_folder(campaign_root);  // the user's own option first
  sbatch_path("working directory", workdir);
}

std::string submit_sbatch(const std::string& script) {
  const SubprocessResult r = run_slurm_command({"sbatch", "--parsable", script});
  // --parsable prints "<id>" or "<id>;<cluster>".
  const std::string first = r.out.substr(0, r.out.find_first_of(";\n"));
  const bool id_ok = !first.empty() && std::all_of(first.begin(), first.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!id_ok)
    throw runtime_error("sbatch " + script + ": the job was not submitted (exit status " +
                        std::to_string(r.exit_code) + "): " + command_error(r));
  return first;
}

std::vector<std::string> active_jobs(const std::vector<std::string>& jobs) {
  if (jobs.empty()) return {};
  // Every job of the user's, as array job ids: asking for ids Slurm has forgotten is an error in squeue.
  const SubprocessResult r = run_slurm_command({"squeue", "--noheader", "--format=%F", "--me"});
  if (r.exit_code != 0)
    throw runtime_error("squeue: cannot list the queued jobs (exit status " + std::to_string(r.exit_code) +
                        "): " + command_error(r));
  std::set<std::string> queued;
  size_t start = 0;
  while (start < r.out.size()) {
    size_t nl = r.out.find('\n', start);
    if (nl == std::string::npos) nl = r.out.size();
    queued.insert(r.out.substr(start, nl - start));
    start = nl + 1;
  }
  std::vector<std::string> active;
  for (const auto& id : jobs)
    if (queued.count(id)) active.push_back(id);
  return active;
}

}  // namespace fmwork
