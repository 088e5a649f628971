// `driver run --slurm`: submit, wait, and the resume guard (see campaign_slurm.hpp).
#include "campaign_slurm.hpp"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "fmwork/base/error.hpp"
#include "fmwork/base/regular_file.hpp"
#include "fmwork/base/subprocess.hpp"
#include "fmwork/runner/campaign_scheduler.hpp"
#include "fmwork/runner/run_complete.hpp"
#include "fmwork/runner/slurm.hpp"

namespace fmwork {
namespace {

namespace fs = std::filesystem;

// slurm/jobs holds a line per job submitted (~30 bytes): 1 MiB is 30,000 submissions of one campaign.
constexpr size_t kMaxJobsFileBytes = size_t{1} << 20;

// The Slurm jobs submitted for a campaign: the first word of each line of DIR/slurm/jobs.
// Checked as a log is (a regular file, bounded): a FIFO there would block, /dev/zero never end.
std::vector<std::string> submitted_jobs(const std::string& dir) {
  std::vector<std::string> ids;
  const std::string path = dir + "/slurm/jobs";
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(path, ec))) return ids;
  refuse_special_file(path);
  std::istringstream in(read_file(path, kMaxJobsFileBytes));
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) ids.push_back(line.substr(0, line.find(' ')));
  return ids;
}

// --wait: polls Slurm until the job has left the queue, with a progress line whenever a run completes.
// Returns 0 when every submitted run is complete, else 1.
int wait_for_job(const std::string& job, const std::string& dir, const Plan& plan, const std::vector<size_t>& todo,
                 std::ostream& err) {
  const auto start = std::chrono::steady_clock::now();
  size_t reported = static_cast<size_t>(-1);
  while (true) {
    const bool queued = !active_jobs({job}).empty();
    const size_t complete = count_complete(dir, plan, todo);
    if (complete != reported || !queued) {
      const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::string line = fmt::format("campaign: Slurm job {}: {} of {} runs complete{}, elapsed {}", job, complete,
                                     todo.size(), queued ? "" : ", the job has ended", clock_text(elapsed));
      if (queued && complete > 0 && complete < todo.size())  // queue time included: a rough figure
        line += ", about " + clock_text(elapsed / complete * (todo.size() - complete)) + " to go";
      err << line << std::endl;
      reported = complete;
    }
    if (!queued) return complete == todo.size() ? 0 : 1;
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

}  // namespace

void check_no_queued_job(const std::string& dir, bool on_slurm, std::ostream& err) {
  const std::vector<std::string> jobs = submitted_jobs(dir);
  std::vector<std::string> active;
  try {
    active = active_jobs(jobs);
  } catch (const Error& e) {
    if (on_slurm) throw;
    err << "campaign: cannot ask Slurm whether job " << jobs.back() << " of this campaign is still queued ("
        << e.what() << "); resuming locally" << std::endl;
  }
  if (!active.empty())
    throw runtime_error(fmt::format("{}: Slurm job {} of this campaign is still queued or running (squeue -j {}); "
                                    "wait for it or scancel it, then resume", dir, active[0], active[0]));
}

void check_slurm_folders(const std::string& out) {
  std::error_code ec;
  const fs::path root = fs::absolute(out, ec);
  const fs::path workdir = fs::current_path(ec);
  if (ec) throw runtime_error("the current folder cannot be read (" + ec.message() + "); run from a folder that exists");
  check_sbatch_paths(root.lexically_normal().string(), workdir.string());
}

int submit_campaign(const RunnerOptions& o, const Plan& plan, const std::string& dir, const std::vector<size_t>& todo,
                    const std::string& program, std::ostream& err) {
  if (todo.empty()) {
    err << "campaign: " << dir << ": every run is complete; nothing submitted" << std::endl;
    return 0;
  }
  SlurmJob job;
  std::error_code ec;
  job.campaign_dir = fs::absolute(dir, ec).lexically_normal().string();
  job.driver = executable_path(program);
  job.workdir = fs::current_path(ec).string();
  if (ec) throw runtime_error("the current folder cannot be read (" + ec.message() + "); run from a folder that exists");
  job.name = "fmwork-" + fs::path(job.campaign_dir).filename().string();
  job.indices = todo;
  job.options = o.sbatch;
  job.max_running = o.max_tasks;
  make_folders(dir + "/slurm");
  const std::string script = fmt::format("{}/slurm/submit-{}.sbatch", dir, submitted_jobs(dir).size() + 1);
  write_file_atomically(script, sbatch_script(job));
  if (o.no_submit) {
    err << "campaign: wrote " << script << " (" << todo.size() << " runs); submit it with: "
        << command_text("sbatch", {script}) << std::endl;  // quoted: the line is for pasting into a shell
    return 0;
  }
  const std::string id = submit_sbatch(script);
  std::ofstream jobs(dir + "/slurm/jobs", std::ios::app);
  jobs << id << " " << array_spec(todo) << "\n" << std::flush;
  if (!jobs)  // the job runs; without its line a resume could not see it queued
    throw runtime_error(fmt::format("{}/slurm/jobs: cannot record submitted Slurm job {} ({}); scancel {} or wait for it "
                                    "before a resume", dir, id, std::strerror(errno), id));
  err << fmt::format("campaign: {}: submitted Slurm job {}, array {} ({} runs); squeue -j {} shows it, driver run "
                     "--resume {} --slurm submits what does not complete",
                     dir, id, array_spec(todo), todo.size(), id, dir)
      << std::endl;
  return o.wait ? wait_for_job(id, dir, plan, todo, err) : 0;
}
}  // namespace fmwork
