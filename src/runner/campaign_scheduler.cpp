// The local scheduler of `driver run` (see campaign_scheduler.hpp).
#include "fmwork/runner/campaign_scheduler.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>
#include <utility>

#include <fmt/format.h>

#include "fmwork/base/error.hpp"
#include "fmwork/base/text_format.hpp"
#include "fmwork/cli/platform_rules.hpp"
#include "fmwork/runner/campaign_run.hpp"
#include "fmwork/runner/run_complete.hpp"

namespace fmwork {
namespace {

// The runs still to do, shared by one worker thread per device slot.
class Scheduler {
 public:
  Scheduler(const Plan& plan, std::vector<size_t> todo, std::string logs, std::string program, std::ostream& err)
      : plan_(plan), todo_(std::move(todo)), logs_(std::move(logs)), program_(std::move(program)), err_(err),
        start_(std::chrono::steady_clock::now()) {}

  // Runs everything over the slots; returns the number of runs that did not end with status 0.
  size_t run(const std::vector<std::string>& slots) {
    report("");
    // A thread a slot, no more than there are runs; a thread that cannot start stops the others after their
    // current runs (a vector of joinable threads left by an exception would end the process).
    std::vector<std::thread> workers;
    try {
      for (size_t i = 0; i < std::min(slots.size(), todo_.size()); ++i)
        workers.emplace_back([this, device = slots[i]] { work(device); });
    } catch (const std::system_error& e) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!error_) error_ = runtime_error(fmt::format("driver run: cannot start a thread for device slot {} ({}); give "
                                                      "fewer --devices", workers.size() + 1, e.what()));
    }
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
        // Exit status 0 with a log that lacks results (a command line that only printed its help, a plan edited
        // by hand) was counted done, and the next resume ran it again: what resume judges, judged now.
        const bool complete = end.status != 0 || logged_whole(run);
        std::lock_guard<std::mutex> lock(mutex_);
        --running_;
        ++done_;
        if (end.status != 0 || !complete) ++failed_;
        // "a run "a" failed" named a run twice where its id is its name: the id only where it adds to it.
        const std::string who = run.id == run.run ? describe_run(run) : run.id + ": " + describe_run(run);
        report(end.status != 0 ? fmt::format("{} failed (exit status {}): {}", who, end.status, end.last_error)
               : complete ? ""
                          : who + " exited 0, but its log holds no result for some of what it asks for (a resume "
                                  "runs it again)");
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

  // Whether the run's log is complete (run_log_complete); one that cannot be judged counts as not.
  bool logged_whole(const PlannedRun& run) const {
    try {
      return run_log_complete(logs_ + "/" + run.id + ".log", run.argv);
    } catch (const Error&) {
      return false;
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

}  // namespace

size_t run_on_slots(const Plan& plan, const std::vector<size_t>& todo, const std::string& logs,
                    const std::string& program, const std::vector<std::string>& slots, std::ostream& err) {
  return Scheduler(plan, todo, logs, program, err).run(slots);
}

std::vector<std::string> parse_devices(const std::string& text) {
  std::vector<std::string> devices;
  for (std::string_view piece : split(text, ',')) {
    if (devices.size() == kMaxDevices)
      throw usage_error(fmt::format("--devices: more than {} names; a runner runs at most {} runs at once",
                                    kMaxDevices, kMaxDevices));
    const std::string name(piece);
    // Checked here, before a campaign folder exists: the driver would refuse the name in every run.
    if (!is_platform_name(name))
      throw usage_error("--devices " + excerpt(text) + ": '" + excerpt(name) + "' is not a platform name; give " +
                        kPlatformNames + ", comma-separated");
    // A plugin missing here is missing in every run (--devices runs locally, from this binary's folder).
    std::vector<std::string> tried;
    if (!is_builtin_platform_name(name) && find_plugin_file(name, tried).empty())
      throw usage_error("--devices " + excerpt(text) + ": '" + excerpt(name) + "' is " +
                        plugin_not_found_text(name, tried));
    devices.push_back(name);
  }
  return devices;
}

std::string progress_line(size_t done, size_t failed, size_t left, size_t running, double elapsed_s) {
  const size_t finished = done + failed;
  std::string line = fmt::format("campaign: {} done, {} failed, {} left ({} running), elapsed {}", done, failed, left,
                                 running, clock_text(elapsed_s));
  if (finished > 0 && left > 0) line += ", about " + clock_text(elapsed_s / finished * left) + " to go";
  return line;
}

std::string clock_text(double seconds) {
  const long s = std::lround(std::max(seconds, 0.0));
  return s >= 3600 ? fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60) : fmt::format("{}:{:02}", s / 60, s % 60);
}

}  // namespace fmwork
