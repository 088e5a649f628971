// The runner: the result tree, one driver process per run over the device slots, progress, resume.
#include "fmwork/runner/campaign.hpp"

#include <pwd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <utility>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "fmwork/cli/cli.hpp"
#include "fmwork/base/error.hpp"
#include "fmwork/base/json_input.hpp"
#include "fmwork/log/log_records.hpp"
#include "fmwork/base/regular_file.hpp"
#include "fmwork/runner/slurm.hpp"
#include "fmwork/base/subprocess.hpp"

namespace fmwork {

namespace {

namespace fs = std::filesystem;

struct RunnerOptions {
  std::string experiment;
  std::string out;
  std::string resume;
  std::string devices;
  bool list = false;
  std::vector<std::string> task;  // --task DIR INDEX: one run of a campaign (a Slurm array task)
  bool slurm = false, wait = false, no_submit = false;
  size_t max_tasks = 0;              // --max-tasks N
  std::vector<SbatchOption> sbatch;  // --slurm:KEY VALUE
};

// Takes the `--slurm:KEY VALUE` (or `--slurm:KEY=VALUE`) words out of `args` (CLI11 has no open-ended keys).
std::vector<SbatchOption> take_sbatch_options(std::vector<std::string>& args) {
  std::vector<SbatchOption> options;
  std::vector<std::string> rest;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].rfind("--slurm:", 0) != 0) {
      rest.push_back(args[i]);
      continue;
    }
    std::string key = args[i].substr(8), value;
    if (const size_t eq = key.find('='); eq != std::string::npos) {
      value = key.substr(eq + 1);
      key.resize(eq);
    } else if (i + 1 < args.size()) {
      value = args[++i];
    } else {
      throw usage_error(args[i] + ": a value is missing (--slurm:KEY VALUE; an empty VALUE \"\" for a flag)");
    }
    options.push_back(sbatch_option(key, value));
  }
  args = rest;
  return options;
}

// The combinations of options the runner refuses, each with what to do instead.
void check_runner_options(const RunnerOptions& o) {
  if (!o.task.empty()) {
    if (!o.experiment.empty() || !o.resume.empty() || !o.out.empty() || o.slurm || o.list || !o.devices.empty())
      throw usage_error("driver run --task DIR INDEX runs one run of a campaign (a Slurm array task) and takes "
                        "no other option");
    return;
  }
  if (o.resume.empty() == o.experiment.empty())
    throw usage_error("driver run: give an EXPERIMENT file or --resume DIR (one of them)");
  if (!o.experiment.empty() && !o.list && o.out.empty())
    throw usage_error("driver run " + o.experiment + ": --out ROOT is missing (or --list to print the runs)");
  if (!o.slurm && (o.wait || o.no_submit || o.max_tasks || !o.sbatch.empty()))
    throw usage_error(std::string("driver run: ") +
                      (o.wait ? "--wait" : o.no_submit ? "--no-submit" : o.max_tasks ? "--max-tasks" : "--slurm:KEY") +
                      " is an option of --slurm: add --slurm, or leave it out");
  if (o.slurm && !o.devices.empty())
    throw usage_error("driver run --slurm: Slurm chooses each task's node and devices; leave out --devices and "
                      "ask for devices with --slurm:gres gpu:1");
  if (o.wait && o.no_submit) throw usage_error("driver run --slurm: --wait and --no-submit exclude each other");
}

std::optional<RunnerOptions> parse_runner_options(std::vector<std::string> args, std::ostream& out) {
  CLI::App app{"Runs an experiment file: each expanded run is a driver process; results go to\n"
               "ROOT/<user>/<host>/<time>/ (docs/campaigns.md).",
               "driver run"};
  RunnerOptions o;
  app.add_option("experiment", o.experiment, "the experiment file (JSON)")->type_name("EXPERIMENT");
  app.add_option("--out", o.out, "root of the result tree")->type_name("ROOT");
  app.add_option("--resume", o.resume, "a campaign folder: run again the runs whose log is missing or incomplete")
      ->type_name("DIR");
  app.add_option("--devices", o.devices,
                 "comma-separated platforms, one run at a time on each, the run's --platform set to it;\n"
                 "a name given N times runs N at once (cpu,cpu). Default: each run's own --platform, one at a time")
      ->type_name("LIST");
  app.add_flag("--list", o.list, "print the expanded command lines and run nothing");
  app.add_flag("--slurm", o.slurm,
               "submit the runs to do as a Slurm job array (one task a run) and return; the tree must be on a\n"
               "file system the nodes share. sbatch options as --slurm:KEY VALUE (partition, time, gres, account)");
  app.add_flag("--wait", o.wait, "with --slurm: wait until the job has ended, with progress, and exit 1 when a run is incomplete");
  app.add_option("--max-tasks", o.max_tasks, "with --slurm: at most N runs at once (sbatch --array=...%N)")
      ->type_name("N")
      ->check(CLI::Range(size_t{1}, size_t{1000000}));
  app.add_flag("--no-submit", o.no_submit, "with --slurm: write the sbatch script into DIR/slurm/ and submit nothing");
  app.add_option("--task", o.task, "run plan.json's run INDEX of the campaign DIR (what each Slurm array task runs)")
      ->expected(2)
      ->type_name("DIR INDEX");
  o.sbatch = take_sbatch_options(args);
  std::vector<const char*> words = {"driver run"};
  for (const auto& a : args) words.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(words.size()), words.data());
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return std::nullopt;
  } catch (const CLI::ParseError& e) {
    throw usage_error(std::string(e.what()) + " (see driver run --help)");
  }
  check_runner_options(o);
  return o;
}

std::string read_whole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw runtime_error(path + ": cannot open");
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::string user_name() {
  if (const char* u = std::getenv("USER"); u && *u) return u;
  if (const passwd* pw = getpwuid(getuid())) return pw->pw_name;
  return std::to_string(getuid());
}

std::string host_name() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0 || !buf[0]) return "localhost";
  return buf;
}

// A name made safe for one path component.
std::string component(std::string s) {
  for (char& c : s)
    if (c == '/' || c == '\0' || std::isspace(static_cast<unsigned char>(c))) c = '_';
  return s == "." || s == ".." || s.empty() ? "_" : s;
}

nlohmann::ordered_json environment_json(const std::string& program, const std::vector<std::string>& devices,
                                        const std::vector<std::string>& command) {
  nlohmann::ordered_json env;
  utsname u{};
  uname(&u);
  const std::time_t now = std::time(nullptr);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  std::error_code ec;
  env["user"] = user_name();
  env["host"] = host_name();
  env["time"] = stamp;
  env["driver"] = fs::read_symlink(program, ec).string();
  env["driver_version"] = FMWORK_VERSION;
  env["command"] = command;
  env["cwd"] = fs::current_path(ec).string();
  env["kernel"] = std::string(u.sysname) + " " + u.release + " " + u.machine;
  env["cpus"] = std::thread::hardware_concurrency();
  env["devices"] = devices;
  nlohmann::ordered_json vars = nlohmann::ordered_json::object();
  for (char** e = environ; *e; ++e) {
    const std::string kv = *e;
    for (const char* prefix : {"FMWORK_", "OMP_", "MKL_", "KMP_", "CUDA_", "SLURM_", "LD_LIBRARY_PATH"}) {
      if (kv.rfind(prefix, 0) == 0 && kv.find('=') != std::string::npos) {
        vars[kv.substr(0, kv.find('='))] = kv.substr(kv.find('=') + 1);
        break;
      }
    }
  }
  env["variables"] = vars;
  return env;
}

std::string clock_text(double seconds) {
  const long s = std::lround(std::max(seconds, 0.0));
  return s >= 3600 ? fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60) : fmt::format("{}:{:02}", s / 60, s % 60);
}

// How one run ended.
struct RunEnd {
  int status = 0;         // the driver's exit status, 128 + signal when killed
  std::string last_error; // its last stderr line
};

// Runs one planned run: stdout into logs/<id>.log.partial, renamed to <id>.log when the process has ended;
// stderr into logs/<id>.err.
RunEnd execute_run(const PlannedRun& run, const std::string& device, const std::string& logs,
                   const std::string& program) {
  const std::string log = logs + "/" + run.id + ".log";
  std::ofstream out(log + ".partial", std::ios::binary | std::ios::trunc);
  std::ofstream err(logs + "/" + run.id + ".err", std::ios::binary | std::ios::trunc);
  if (!out || !err) throw runtime_error(log + ": cannot write the run's log");
  RunEnd end;
  StreamHandlers handlers;
  handlers.out_line = [&](std::string_view line, bool terminated) {
    out << line;
    if (terminated) out << '\n';
  };
  handlers.err_line = [&](std::string_view line, bool) {
    err << line << '\n';
    if (!line.empty()) end.last_error = std::string(line);
  };
  handlers.after_read = [&] {
    out.flush();
    err.flush();
  };
  std::error_code ec;
  std::vector<std::string> argv = {fs::read_symlink(program, ec).string()};
  if (argv[0].empty()) argv[0] = program;
  const std::vector<std::string> options = device.empty() ? run.argv : with_platform(run.argv, device);
  argv.insert(argv.end(), options.begin(), options.end());
  const ChildExit exit = run_streaming(program, argv, {}, handlers);
  out.close();
  err.close();
  if (!out) throw runtime_error(log + ": cannot write the run's log");
  if (std::rename((log + ".partial").c_str(), log.c_str()) != 0)
    throw runtime_error(log + ": cannot rename into place (" + std::strerror(errno) + ")");
  end.status = exit.signal ? 128 + exit.signal : exit.exit_code;
  return end;
}

// The runs still to do, shared by one worker thread per device slot.
class Scheduler {
 public:
  Scheduler(const Plan& plan, std::vector<size_t> todo, std::string logs, std::string program, std::ostream& err)
      : plan_(plan), todo_(std::move(todo)), logs_(std::move(logs)), program_(std::move(program)), err_(err),
        start_(std::chrono::steady_clock::now()) {}

  // Runs everything over the slots; returns the number of runs that did not end with status 0.
  size_t run(const std::vector<std::string>& slots) {
    report("");
    std::vector<std::thread> workers;
    for (const auto& device : slots) workers.emplace_back([this, device] { work(device); });
    for (auto& w : workers) w.join();
    if (error_) throw *error_;
    return failed_;
  }

 private:
  void work(const std::string& device) {
    while (true) {
      size_t index;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (next_ == todo_.size() || error_) return;
        index = todo_[next_++];
        ++running_;
      }
      const PlannedRun& run = plan_.runs[index];
      try {
        const RunEnd end = execute_run(run, device, logs_, program_);
        std::lock_guard<std::mutex> lock(mutex_);
        --running_;
        ++done_;
        if (end.status != 0) ++failed_;
        report(end.status == 0 ? "" : fmt::format("{} {} failed (exit status {}): {}", run.id, describe_run(run),
                                                  end.status, end.last_error));
      } catch (const std::exception& e) {  // not past the thread: that would be std::terminate
        const Error error = dynamic_cast<const Error*>(&e)
                                ? *dynamic_cast<const Error*>(&e)
                                : runtime_error(fmt::format("run {}: {}", run.id, e.what()));
        std::lock_guard<std::mutex> lock(mutex_);
        --running_;
        if (!error_) error_ = error;
        return;
      }
    }
  }

  void report(const std::string& note) {
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    if (!note.empty()) err_ << "campaign: " << escape_controls(note) << "\n";
    err_ << progress_line(done_ - failed_, failed_, todo_.size() - done_, running_, elapsed) << std::endl;
  }

  const Plan& plan_;
  std::vector<size_t> todo_;
  std::string logs_, program_;
  std::ostream& err_;
  std::chrono::steady_clock::time_point start_;
  std::mutex mutex_;
  size_t next_ = 0, done_ = 0, failed_ = 0, running_ = 0;
  std::optional<Error> error_;
};

// A new campaign's tree: the folder, experiment.json, plan.json, environment.json, logs/.
std::string start_campaign(const RunnerOptions& o, const Plan& plan, const std::string& program,
                           const std::vector<std::string>& devices, const std::vector<std::string>& args) {
  const std::string dir = make_campaign_dir(o.out, user_name(), host_name(), std::chrono::system_clock::now());
  write_file_atomically(dir + "/experiment.json", read_whole(o.experiment));
  write_file_atomically(dir + "/plan.json", plan_to_json(plan).dump(2) + "\n");
  std::vector<std::string> command = {"driver", "run"};
  command.insert(command.end(), args.begin(), args.end());
  write_file_atomically(dir + "/environment.json", environment_json(program, devices, command).dump(2) + "\n");
  fs::create_directories(dir + "/logs");
  return dir;
}

// `driver run --task DIR INDEX`: plan.json's run INDEX into DIR/logs, with the environment of the node it ran
// on beside its log. Returns the run's exit status folded to 0 or 1.
int run_task(const std::string& dir, const std::string& index_text, const std::string& program, std::ostream& err) {
  const Plan plan = plan_from_json(read_json_file(dir + "/plan.json"), dir + "/plan.json");
  const bool digits = !index_text.empty() && index_text.size() < 10 &&
                      index_text.find_first_not_of("0123456789") == std::string::npos;
  if (!digits || std::stoul(index_text) >= plan.runs.size())
    throw usage_error(fmt::format("--task {} {}: INDEX is a run of {}/plan.json, 0 to {}", dir, excerpt(index_text),
                                  dir, plan.runs.size() - 1));
  const PlannedRun& run = plan.runs[std::stoul(index_text)];
  fs::create_directories(dir + "/logs");
  write_file_atomically(dir + "/logs/" + run.id + ".environment.json",
                   environment_json(program, {}, {"driver", "run", "--task", dir, index_text}).dump(2) + "\n");
  const RunEnd end = execute_run(run, "", dir + "/logs", program);
  err << "campaign: run " << run.id << " ended with exit status " << end.status
      << (end.status == 0 ? "" : ": " + escape_controls(end.last_error)) << std::endl;
  return end.status == 0 ? 0 : 1;
}

// The Slurm jobs submitted for a campaign: the first word of each line of DIR/slurm/jobs.
std::vector<std::string> submitted_jobs(const std::string& dir) {
  std::vector<std::string> ids;
  std::ifstream in(dir + "/slurm/jobs");
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) ids.push_back(line.substr(0, line.find(' ')));
  return ids;
}

size_t count_complete(const std::string& dir, const Plan& plan, const std::vector<size_t>& indices) {
  return static_cast<size_t>(std::count_if(indices.begin(), indices.end(), [&](size_t i) {
    return run_log_complete(dir + "/logs/" + plan.runs[i].id + ".log", plan.runs[i].argv);
  }));
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

// --slurm: the runs to do as one job array; the script is kept as DIR/slurm/submit-<n>.sbatch and the job
// id appended to DIR/slurm/jobs (what a later --resume checks against the queue).
// A resume beside a job of the campaign that Slurm still holds would run its runs twice: refused. Where
// Slurm cannot be asked (a tree copied off the cluster, resumed locally), the local resume goes on.
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

int submit_campaign(const RunnerOptions& o, const Plan& plan, const std::string& dir, const std::vector<size_t>& todo,
                    const std::string& program, std::ostream& err) {
  if (todo.empty()) {
    err << "campaign: " << dir << ": every run is complete; nothing submitted" << std::endl;
    return 0;
  }
  std::error_code ec;
  SlurmJob job;
  job.campaign_dir = fs::absolute(dir).lexically_normal().string();
  job.driver = fs::read_symlink(program, ec).string();
  if (job.driver.empty()) job.driver = fs::absolute(program).string();
  job.workdir = fs::current_path().string();
  job.name = "fmwork-" + fs::path(job.campaign_dir).filename().string();
  job.indices = todo;
  job.options = o.sbatch;
  job.max_running = o.max_tasks;
  fs::create_directories(dir + "/slurm");
  const std::string script = fmt::format("{}/slurm/submit-{}.sbatch", dir, submitted_jobs(dir).size() + 1);
  write_file_atomically(script, sbatch_script(job));
  if (o.no_submit) {
    err << "campaign: wrote " << script << " (" << todo.size() << " runs); submit it with: sbatch " << script << std::endl;
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

}  // namespace

bool run_log_complete(const std::string& path, const std::vector<std::string>& argv) {
  try {
    std::vector<const char*> words = {"driver"};
    for (const auto& w : argv) words.push_back(w.c_str());
    const CommandLine cl = parse_command_line(static_cast<int>(words.size()), words.data());
    if (!fs::is_regular_file(path)) return false;
    const ParsedLog log = parse_log_text(read_whole(path), path);
    std::set<std::pair<int64_t, int64_t>> seen;
    for (const auto& r : log.runs) seen.emplace(r.res.batch, r.res.input);
    for (const auto& f : log.failures) {
      const std::string* batch = f.fields.find("batch");
      const std::string* input = f.fields.find("input");
      if (batch && input) seen.emplace(std::stoll(*batch), std::stoll(*input));
    }
    for (int64_t b : cl.args.batch_sizes)
      for (int64_t i : cl.args.input_sizes)
        if (!seen.count({b, i})) return false;
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

std::vector<std::string> with_platform(std::vector<std::string> argv, const std::string& device) {
  for (size_t i = 0; i + 1 < argv.size(); ++i) {
    if (argv[i] == "--platform") {
      argv[i + 1] = device;
      return argv;
    }
  }
  argv.insert(argv.begin(), {"--platform", device});
  return argv;
}

std::vector<std::string> parse_devices(const std::string& text) {
  std::vector<std::string> devices;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    const std::string name = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (name.empty() || name.find_first_of(" \t") != std::string::npos)
      throw usage_error("--devices " + text + ": a device is a platform name (cpu, cuda:0, ...), comma-separated");
    devices.push_back(name);
    if (comma == std::string::npos) return devices;
    start = comma + 1;
  }
}

std::string make_campaign_dir(const std::string& root, const std::string& user, const std::string& host,
                              std::chrono::system_clock::time_point now) {
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", std::localtime(&t));
  const std::string parent = root + "/" + component(user) + "/" + component(host);
  std::error_code ec;
  fs::create_directories(parent, ec);
  if (ec) throw runtime_error("--out " + root + ": cannot make " + parent + " (" + ec.message() + ")");
  for (int n = 1; n < 1000; ++n) {
    const std::string dir = parent + "/" + stamp + (n == 1 ? "" : "-" + std::to_string(n));
    if (::mkdir(dir.c_str(), 0777) == 0) return dir;  // the mkdir is the claim: two runners never share a folder
    if (errno != EEXIST) throw runtime_error("--out " + root + ": cannot make " + dir + " (" + std::strerror(errno) + ")");
  }
  throw runtime_error("--out " + root + ": too many campaigns started in " + parent + " this second");
}

std::string progress_line(size_t done, size_t failed, size_t left, size_t running, double elapsed_s) {
  const size_t finished = done + failed;
  std::string line = fmt::format("campaign: {} done, {} failed, {} left ({} running), elapsed {}", done, failed, left,
                                 running, clock_text(elapsed_s));
  if (finished > 0 && left > 0) line += ", about " + clock_text(elapsed_s / finished * left) + " to go";
  return line;
}

int run_campaign_command(const std::vector<std::string>& args, const std::string& program, std::ostream& out,
                         std::ostream& err) {
  const std::optional<RunnerOptions> o = parse_runner_options(args, out);
  if (!o) return 0;
  if (!o->task.empty()) return run_task(o->task[0], o->task[1], program, err);
  const std::vector<std::string> devices = o->devices.empty() ? std::vector<std::string>{} : parse_devices(o->devices);
  const bool resume = !o->resume.empty();
  const Plan plan = resume ? plan_from_json(read_json_file(o->resume + "/plan.json"), o->resume + "/plan.json")
                           : load_experiment(o->experiment);
  if (o->list) {
    for (const auto& r : plan.runs) out << command_text("driver", r.argv) << "  # " << r.id << "\n";
    return 0;
  }
  const std::string dir = resume ? o->resume : start_campaign(*o, plan, program, devices, args);
  if (resume) check_no_queued_job(dir, o->slurm, err);
  std::vector<size_t> todo;
  for (size_t i = 0; i < plan.runs.size(); ++i)
    if (!resume || !run_log_complete(dir + "/logs/" + plan.runs[i].id + ".log", plan.runs[i].argv)) todo.push_back(i);
  fs::create_directories(dir + "/logs");
  err << "campaign: " << dir << ": " << todo.size() << " of " << plan.runs.size() << " runs to do"
      << (resume ? " (the others are complete)" : "") << std::endl;
  if (o->slurm) {
    const int status = submit_campaign(*o, plan, dir, todo, program, err);
    out << dir << "\n";
    return status;
  }
  Scheduler scheduler(plan, todo, dir + "/logs", program, err);
  const size_t failed = scheduler.run(devices.empty() ? std::vector<std::string>{""} : devices);
  out << dir << "\n";
  return failed == 0 ? 0 : 1;
}

}  // namespace fmwork
