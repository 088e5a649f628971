// Tests of run_streaming with /bin/sh as the child: lines handed over as they come (before the child ends),
// a last line without '\n', a real signal and the peak memory from wait4, and a program that cannot run.
#include "fmwork/base/subprocess.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "fmwork/base/error.hpp"

namespace fmwork {
namespace {

struct Seen {
  std::vector<std::string> out, err;
  std::vector<bool> out_terminated;
  pid_t pid = 0;
};

ChildExit sh(const std::string& script, Seen& seen, const std::vector<std::string>& env = {}) {
  StreamHandlers h;
  h.started = [&](pid_t pid) { seen.pid = pid; };
  h.out_line = [&](std::string_view line, bool terminated) {
    seen.out.emplace_back(line);
    seen.out_terminated.push_back(terminated);
  };
  h.err_line = [&](std::string_view line, bool) { seen.err.emplace_back(line); };
  return run_streaming("/bin/sh", {"sh", "-c", script}, env, h);
}

TEST(RunStreaming, LinesOfBothStreamsAndTheExitStatus) {
  Seen seen;
  const ChildExit e = sh("echo one; echo warn >&2; printf 'two\\nthree'; exit 3", seen);
  EXPECT_EQ(e.exit_code, 3);
  EXPECT_EQ(e.signal, 0);
  EXPECT_GT(e.peak_rss_bytes, 0);
  EXPECT_EQ(seen.out, (std::vector<std::string>{"one", "two", "three"}));
  EXPECT_EQ(seen.out_terminated, (std::vector<bool>{true, true, false}));
  EXPECT_EQ(seen.err, (std::vector<std::string>{"warn"}));
  EXPECT_GT(seen.pid, 0);
}

TEST(RunStreaming, ExtraEnvironmentReachesTheChild) {
  Seen seen;
  EXPECT_EQ(sh("echo \"$FMWORK_TEST_VALUE\"", seen, {"FMWORK_TEST_VALUE=a b"}).exit_code, 0);
  EXPECT_EQ(seen.out, (std::vector<std::string>{"a b"}));
}

// The first line is handed over while the child still runs (it sleeps before its second), not at its end.
TEST(RunStreaming, LinesArriveWhileTheChildRuns) {
  using Clock = std::chrono::steady_clock;
  std::vector<Clock::time_point> at;
  StreamHandlers h;
  h.out_line = [&](std::string_view, bool) { at.push_back(Clock::now()); };
  const ChildExit e = run_streaming("/bin/sh", {"sh", "-c", "echo first; sleep 0.5; echo second"}, {}, h);
  const Clock::time_point end = Clock::now();
  EXPECT_EQ(e.exit_code, 0);
  ASSERT_EQ(at.size(), 2u);
  EXPECT_GE(end - at[0], std::chrono::milliseconds(400));
}

TEST(RunStreaming, AChildKilledByASignalSaysWhich) {
  Seen seen;
  const ChildExit e = sh("echo before; kill -SEGV $$; echo after", seen);
  EXPECT_EQ(e.signal, SIGSEGV);
  EXPECT_EQ(e.exit_code, -1);
  EXPECT_EQ(seen.out, (std::vector<std::string>{"before"}));
}

TEST(RunStreaming, PeakMemoryIsTheChilds) {
  Seen small, large;
  sh("exit 0", small);
  // A shell variable of 64 MiB: the child's resident set grows past it.
  const ChildExit e = sh("x=$(head -c 67108864 /dev/zero | tr '\\0' a); echo ${#x}", large);
  EXPECT_EQ(large.out, (std::vector<std::string>{"67108864"}));
  EXPECT_GT(e.peak_rss_bytes, 64LL << 20);
}

TEST(RunStreaming, AProgramThatCannotRunIsARuntimeError) {
  try {
    run_streaming("/nonexistent/program", {"program"}, {}, {});
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::runtime);
    EXPECT_EQ(std::string(e.what()), "cannot run /nonexistent/program: No such file or directory");
  }
}

// The driver's own file, not the kernel's link (which names whichever process reads it); a path that is no
// link made absolute.
TEST(ExecutablePath, FollowsTheLinkOrMakesThePathAbsolute) {
  const std::string self = executable_path(kSelfExecutable);
  EXPECT_EQ(self.front(), '/');
  EXPECT_NE(self, kSelfExecutable);
  EXPECT_NE(self.find("core_tests"), std::string::npos) << self;
  EXPECT_EQ(executable_path("relative/driver"), (std::filesystem::current_path() / "relative/driver").string());
}

}  // namespace
}  // namespace fmwork

namespace fmwork {
namespace {

// Whether process group `group` still has a member, asked until it has none (at most ~60 s: a guard against
// a hang, not a bound on speed).
bool group_outlives(pid_t group) {
  for (int i = 0; i < 6000; ++i) {
    if (::kill(-group, 0) != 0 && errno == ESRCH) return false;
    ::usleep(10000);
  }
  return true;
}

// A driver killed while the exporter ran (TERM, INT, or KILL, which nothing can catch) left the exporter
// and its compilers running. run_subprocess's child now leads a group of its own that ends with the
// driver. The child here is a shell that ends its group on SIGTERM, as tools/aoti_export.py does, with a
// grandchild that would otherwise run on.
TEST(Subprocess, RunSubprocessChildsGroupEndsWithItsParent) {
  for (int signal : {SIGTERM, SIGINT, SIGKILL}) {
    SCOPED_TRACE(signal);
    const std::string marker = (std::filesystem::temp_directory_path() /
                                ("fmwork-group-" + std::to_string(::getpid()) + "-" + std::to_string(signal)))
                                   .string();
    std::filesystem::remove(marker);
    const pid_t parent = ::fork();
    if (parent == 0) {
      run_subprocess({"sh", "-c", "trap 'kill -KILL 0' TERM; sleep 1000 & echo $$ >" + marker + ".tmp; mv " + marker +
                                      ".tmp " + marker + "; wait"});
      ::_exit(0);
    }
    ASSERT_GT(parent, 0);
    pid_t group = 0;
    for (int i = 0; i < 6000 && group == 0; ++i) {
      std::ifstream in(marker);
      if (!(in >> group)) ::usleep(10000);
    }
    ASSERT_GT(group, 0) << "the child never started";
    EXPECT_EQ(::getpgid(group), group) << "the child leads a group of its own";
    ASSERT_EQ(::kill(parent, signal), 0);
    int status = 0;
    ASSERT_EQ(::waitpid(parent, &status, 0), parent);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == signal) << status;  // it died of it, as before
    EXPECT_FALSE(group_outlives(group));
    std::filesystem::remove(marker);
  }
}

}  // namespace
}  // namespace fmwork
