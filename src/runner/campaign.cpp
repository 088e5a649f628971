// `driver run` (see campaign.hpp): the options decide between a new campaign, a resume, a Slurm array task
// and --list; this file only puts the parts together. Its parts, each in its own file: the options
// (campaign_options), the environment recorded (campaign_environment), one run's process and log
// (campaign_run), the local scheduler (campaign_scheduler), the result tree and its claimed folder
// (campaign_tree), Slurm (campaign_slurm), and whether a run is complete (run_complete).
#include "fmwork/runner/campaign.hpp"

#include <filesystem>
#include <optional>

#include <fmt/format.h>

#include "campaign_environment.hpp"
#include "campaign_options.hpp"
#include "campaign_slurm.hpp"
#include "fmwork/base/error.hpp"
#include "fmwork/base/interrupt_note.hpp"
#include "fmwork/base/subprocess.hpp"
#include "fmwork/base/json_input.hpp"
#include "fmwork/base/regular_file.hpp"
#include "fmwork/runner/experiment_paths.hpp"

namespace fmwork {
namespace {

namespace fs = std::filesystem;

// `driver run --task DIR INDEX`: plan.json's run INDEX into DIR/logs, with the environment of the node it ran
// on beside its log. Returns the run's exit status folded to 0 or 1.
int run_task(const std::string& dir, const std::string& index_text, const std::string& program, std::ostream& err) {
  const Plan plan = plan_from_json(read_json_file(dir + "/plan.json", kMaxPlanJsonBytes), dir + "/plan.json");
  const bool digits = !index_text.empty() && index_text.size() < 10 &&
                      index_text.find_first_not_of("0123456789") == std::string::npos;
  if (!digits || std::stoul(index_text) >= plan.runs.size())
    throw usage_error(fmt::format("--task {} {}: INDEX is a run of {}/plan.json, 0 to {}", dir, excerpt(index_text),
                                  dir, plan.runs.size() - 1));
  const PlannedRun& run = plan.runs[std::stoul(index_text)];
  make_folders(dir + "/logs");
  write_file_atomically(dir + "/logs/" + run.id + ".environment.json",
                   environment_json(program, {}, {"driver", "run", "--task", dir, index_text}).dump(2) + "\n");
  const RunEnd end = execute_run(run, "", dir + "/logs", program);
  err << "campaign: run " << run.id << " ended with exit status " << end.status
      << (end.status == 0 ? "" : ": " + escape_controls(end.last_error)) << std::endl;
  return end.status == 0 ? 0 : 1;
}

}  // namespace

std::string resume_command(const std::string& program, const std::string& dir, const std::string& devices) {
  std::error_code ec;
  const fs::path folder = fs::absolute(dir, ec);
  std::vector<std::string> argv = {"run", "--resume", ec ? dir : folder.lexically_normal().string()};
  if (!devices.empty()) argv.insert(argv.end(), {"--devices", devices});
  return command_text(executable_path(program), argv);
}

int run_campaign_command(const std::vector<std::string>& args, const std::string& program, std::ostream& out,
                         std::ostream& err) {
  const std::optional<RunnerOptions> o = parse_runner_options(args, out);
  if (!o) return 0;
  if (!o->task.empty()) return run_task(o->task[0], o->task[1], program, err);
  const std::vector<std::string> devices = o->devices.empty() ? std::vector<std::string>{} : parse_devices(o->devices);
  const bool resume = !o->resume.empty();
  const std::string plan_file = resume ? o->resume + "/plan.json" : "";
  // --resume x/plan.json said "x/plan.json/plan.json: cannot open (Not a directory)": the folder is asked for.
  std::error_code ec;  // a name the system refuses (too long) is no folder either, not a filesystem_error
  if (resume && !std::filesystem::is_directory(o->resume, ec))
    throw usage_error("--resume " + excerpt(o->resume, 200) + ": " +
                      (std::filesystem::exists(o->resume, ec) ? "not a folder" : "no such folder") +
                      "; give the campaign's folder (the one holding plan.json and logs/)");
  const Plan plan =
      resume ? plan_from_json(read_json_file(plan_file, kMaxPlanJsonBytes), plan_file) : load_experiment(o->experiment);
  if (o->list) {
    for (const auto& r : plan.runs) out << command_text("driver", r.argv) << "  # " << r.id << "\n";
    return 0;
  }
  if (o->slurm && !resume) check_slurm_folders(o->out);  // before the folder exists, not after
  const std::string dir = resume ? o->resume : start_campaign(o->out, o->experiment, plan, program, devices, args);
  const CampaignLock lock(dir);  // before anything is judged complete or started: one runner per campaign
  if (resume) check_no_queued_job(dir, o->slurm, err);
  std::vector<size_t> todo;
  for (size_t i = 0; i < plan.runs.size(); ++i)
    if (!resume || !run_log_complete(dir + "/logs/" + plan.runs[i].id + ".log", plan.runs[i].argv)) todo.push_back(i);
  make_folders(dir + "/logs");
  err << "campaign: " << dir << ": " << todo.size() << " of " << plan.runs.size() << " runs to do"
      << (resume ? " (the others are complete)" : "") << std::endl;
  if (o->slurm) {
    const int status = submit_campaign(*o, plan, dir, todo, program, err);
    out << dir << "\n";
    return status;
  }
  // Ctrl-C (or a kill) ends the runner and its runs as before, now with the command that goes on from there.
  const InterruptNote note("campaign: stopped; the complete runs are kept. Resume with: " +
                           resume_command(program, dir, o->devices));
  const size_t failed =
      run_on_slots(plan, todo, dir + "/logs", program, devices.empty() ? std::vector<std::string>{""} : devices, err);
  out << dir << "\n";
  return failed == 0 ? 0 : 1;
}

}  // namespace fmwork
