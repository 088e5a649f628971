// A sweep run beside a deliberate CPU hog is marked contended: in the driver's NOTE and STAT lines, and again by
// `process` from the log. The verdict is asserted, never a time. No test asserts that a run without the hog is
// ok: the suite runs beside other tests and other work, which may take the CPU too.
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <optional>
#include <sstream>
#include <string>
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

TEST_F(ContentionDriverTest, ASweepBesideACpuHogIsContended) {
  const CpuSample probe = sample_cpu();
  if (!probe.run_wait_ns && !probe.pressure_some_us)
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

}  // namespace
}  // namespace fmwork
