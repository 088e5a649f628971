// A sweep run beside a deliberate CPU hog is marked contended: in the driver's NOTE and STAT lines, and again by
// `process` from the log; so is a serving level (SERVE timing=contended) and the capacity found on it. A Ctrl-C
// in a capacity search leaves the bracket found so far. The verdict is asserted, never a time. No test asserts that a run without the hog is
// ok: the suite runs beside other tests and other work, which may take the CPU too.
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include <gtest/gtest.h>

#include "fmwork/base/cpu_use.hpp"
#include "fmwork/log/log_format.hpp"
#include "support/test_support.hpp"

namespace fmwork {
namespace {

using namespace fmwork::test_support;

// Pins the calling thread (and so the processes it starts) to the first `count` CPUs it may use, and starts as
// many busy-looping processes there; all undone when it goes. Each CPU then has a hog beside each of the
// driver's threads, whatever the machine's size.
class PinnedHogs {
 public:
  explicit PinnedHogs(int count) {
    sched_getaffinity(0, sizeof old_, &old_);
    cpu_set_t pinned;
    CPU_ZERO(&pinned);
    for (int cpu = 0; cpu < CPU_SETSIZE && cpus_ < count; ++cpu) {
      if (!CPU_ISSET(cpu, &old_)) continue;
      CPU_SET(cpu, &pinned);
      ++cpus_;
    }
    sched_setaffinity(0, sizeof pinned, &pinned);
    for (int i = 0; i < cpus_; ++i) {
      const pid_t pid = fork();
      if (pid == 0) {
        for (volatile unsigned long spin = 0;; spin = spin + 1) {
        }
      }
      if (pid > 0) hogs_.push_back(pid);
    }
  }
  ~PinnedHogs() {
    for (pid_t pid : hogs_) kill(pid, SIGKILL);
    for (pid_t pid : hogs_) waitpid(pid, nullptr, 0);
    sched_setaffinity(0, sizeof old_, &old_);
  }
  PinnedHogs(const PinnedHogs&) = delete;
  PinnedHogs& operator=(const PinnedHogs&) = delete;
  int cpus() const { return cpus_; }
  size_t hogs() const { return hogs_.size(); }

 private:
  cpu_set_t old_{};
  int cpus_ = 0;
  std::vector<pid_t> hogs_;
};

class ContentionDriverTest : public EncoderSuite {};

// Whether this kernel gives what contention is measured by (per-thread run-queue waits or CPU pressure).
bool measures_contention() {
  const CpuSample probe = sample_cpu();
  return probe.run_wait_ns || probe.pressure_some_us;
}

TEST_F(ContentionDriverTest, ASweepBesideACpuHogIsContended) {
  if (!measures_contention())
    GTEST_SKIP() << "this kernel gives neither schedstat nor CPU pressure: nothing to measure contention by";
  std::string out;
  {
    const PinnedHogs hogs(2);
    ASSERT_EQ(hogs.hogs(), static_cast<size_t>(hogs.cpus()));
    // Enough reps that the interval spans many of the scheduler's time slices (a few ms each).
    const auto r = driver({"--platform", "cpu", "--model_class", "BertModel", "--model_name", model_, "--input_sizes",
                           "64", "--batch_sizes", "1,8", "--reps", "300", "--eval", "--quiet",
                           "--torch.call:set_num_threads@", std::to_string(hogs.cpus())});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    out = r.out;
  }
  std::vector<NoteLine> notes;
  std::vector<StatLine> stats;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    const std::optional<LogLine> parsed = parse_line(line);
    if (!parsed) continue;
    if (const auto* note = std::get_if<NoteLine>(&*parsed)) notes.push_back(*note);
    if (const auto* stat = std::get_if<StatLine>(&*parsed)) stats.push_back(*stat);
  }
  ASSERT_EQ(notes.size(), 2u) << out;
  ASSERT_EQ(stats.size(), 2u) << out;
  for (size_t i = 0; i < notes.size(); ++i) {
    EXPECT_EQ(*notes[i].fields.find("verdict"), "contended") << out;
    EXPECT_NE(notes[i].fields.find("reason")->find("next: rerun on a quiet machine"), std::string::npos) << out;
    EXPECT_NE(stats[i].fields.find("cpu_share"), nullptr) << out;
  }
  // `process` computes the verdict again from the log's STAT lines: the same word in its summary and CSV.
  TempDir dir;
  const std::string log = dir.file("hog.log");
  write_file(log, out);
  const CommandResult summary = run_command({process_path(), "--format", "summary", log});
  ASSERT_EQ(summary.exit_code, 0) << summary.err;
  EXPECT_NE(summary.out.find("  contended: input 64 batch 1: "), std::string::npos) << summary.out;
  const CommandResult csv = run_command({process_path(), "--format", "csv", log});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_NE(csv.out.find(",contended,"), std::string::npos) << csv.out;
}

// The SERVE and CAPACITY lines of a log.
struct ServeLines {
  std::vector<ServeLine> serve;
  std::vector<CapacityLine> capacity;
};
ServeLines serve_lines_of(const std::string& out) {
  ServeLines lines;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    const std::optional<LogLine> parsed = parse_line(line);
    if (!parsed) continue;
    if (const auto* s = std::get_if<ServeLine>(&*parsed)) lines.serve.push_back(*s);
    if (const auto* c = std::get_if<CapacityLine>(&*parsed)) lines.capacity.push_back(*c);
  }
  return lines;
}

// A serving level that keeps the model busy (far more queries than it answers) beside a hog on each of its CPUs:
// its SERVE line says timing=contended with the CPU shares and the words of the sweep's verdict, the search that
// reuses it counts it, and `process` names it. The level fails (it falls behind): what is asserted is the evidence.
TEST_F(ContentionDriverTest, AServingLevelBesideACpuHogIsContendedAndSoIsTheSearchOnIt) {
  if (!measures_contention())
    GTEST_SKIP() << "this kernel gives neither schedstat nor CPU pressure: nothing to measure contention by";
  std::string out;
  {
    const PinnedHogs hogs(2);
    ASSERT_EQ(hogs.hogs(), static_cast<size_t>(hogs.cpus()));
    const auto r = driver({"serve", "--platform", "cpu", "--model_class", "BertModel", "--model_name", model_,
                           "--input_sizes", "64", "--batch_sizes", "4", "--rates", "20000", "--warmup_s", "0",
                           "--duration_s", "0.5", "--min_queries", "100", "--latency_bound", "p99:60000",
                           "--search_start", "20000", "--search_budget_s", "1", "--eval", "--quiet", "--torch.call:set_num_threads@",
                           std::to_string(hogs.cpus())});
    out = r.out + r.err;
    ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << out;  // 1: no rate held before the budget ran out
  }
  const ServeLines lines = serve_lines_of(out);
  ASSERT_GE(lines.serve.size(), 1u) << out;
  const Fields& level = lines.serve[0].fields;
  ASSERT_NE(level.find("timing"), nullptr) << out;
  EXPECT_EQ(*level.find("timing"), "contended") << out;
  EXPECT_NE(level.find("cpu_share"), nullptr) << out;
  EXPECT_NE(level.find("reason")->find("; contended: "), std::string::npos) << out;
  EXPECT_NE(level.find("reason")->find("rerun on a quiet machine"), std::string::npos) << out;
  ASSERT_EQ(lines.capacity.size(), 1u) << out;
  const Fields& capacity = lines.capacity[0].fields;
  ASSERT_NE(capacity.find("contended_levels"), nullptr) << out;
  EXPECT_GE(*capacity.get_int("contended_levels"), 1) << "the search took the contended level at 20000/s: " << out;
  EXPECT_NE(capacity.find("reason")->find("levels contended, at 20000"), std::string::npos) << out;
  // `process` names the level in its summary.
  TempDir dir;
  const std::string log = dir.file("serve.log");
  write_file(log, out);
  const CommandResult summary = run_command({process_path(), "--format", "summary", log});
  ASSERT_EQ(summary.exit_code, 0) << summary.err;
  EXPECT_NE(summary.out.find("contended"), std::string::npos) << summary.out;
}

// Ctrl-C in the middle of a run with a latency bound: the running level is left out, the CAPACITY line says the
// search stopped and why (result=partial, with the bracket so far: here none), and the process still ends by
// SIGINT (the shell's 130). (A stop inside the search's own levels: CapacitySearch.ALevelCutShort...)
TEST_F(ContentionDriverTest, ACtrlCInACapacitySearchEndsItPartialAndByTheSignal) {
  TempDir dir;
  const std::string out = dir.file("serve.out"), err = dir.file("serve.err");
  // The first level lasts a minute: the signal finds it running, whatever the machine's speed.
  const pid_t pid = start_in_background({driver_path(), "serve", "--platform", "cpu", "--model_class", "BertModel",
                                         "--model_name", model_, "--input_sizes", "16", "--batch_sizes", "4", "--rates",
                                         "3", "--warmup_s", "0", "--duration_s", "60", "--min_queries", "5",
                                         "--latency_bound", "p99:60000", "--eval"},
                                        out, err);
  ASSERT_GT(pid, 0);
  // The SERVE banner is written once a signal stops the levels cleanly; a generous deadline only for a broken build.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(5);
  bool searching = false;
  while (!searching && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    searching = read_file(out).find("\nSERVE\n") != std::string::npos;
  }
  ASSERT_TRUE(searching) << read_file(out) << read_file(err);
  ASSERT_EQ(kill(pid, SIGINT), 0);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  const std::string log = read_file(out);
  ASSERT_TRUE(WIFSIGNALED(status)) << "exit " << WEXITSTATUS(status) << ": " << log << read_file(err);
  EXPECT_EQ(WTERMSIG(status), SIGINT);
  const ServeLines lines = serve_lines_of(log);
  EXPECT_EQ(lines.serve.size(), 0u) << "the level cut short is not written: " << log;
  ASSERT_EQ(lines.capacity.size(), 1u) << log << read_file(err);
  const Fields& capacity = lines.capacity[0].fields;
  EXPECT_EQ(*capacity.find("result"), "partial") << log;
  EXPECT_NE(capacity.find("reason")->find("(SIGINT asked to stop); no level finished"), std::string::npos) << log;
  EXPECT_NE(log.find("serve stopped: SIGINT asked to stop; the levels above are complete"), std::string::npos) << log;
}

}  // namespace
}  // namespace fmwork
