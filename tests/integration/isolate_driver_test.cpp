// `driver --isolate`, end to end on a model written by make_model: each combination in a child process,
// the log reading as one run (`process` gives the same combinations as without --isolate), a child killed
// for real by a signal becoming the combination's FAIL line while the sweep goes on, a child's own FAIL and
// its usage errors, and a plugin's one-shape-per-process rule satisfied by --isolate.
#include <dirent.h>
#include <signal.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "fmwork/log/log_format.hpp"
#include "support/log_lines.hpp"
#include "support/test_support.hpp"

namespace fmwork {
namespace {

using namespace fmwork::test_support;

#define EXPECT_CONTAINS(text, part) \
  EXPECT_NE(std::string(text).find(part), std::string::npos) << "text: " << (text) << "\nlacks: " << (part)

class IsolateDriverTest : public EncoderSuite {
 protected:
  static std::vector<std::string> args(const std::string& inputs, const std::string& batches,
                                       std::vector<std::string> extra = {}) {
    std::vector<std::string> a = {"--platform", "cpu", "--model_class", "BertModel", "--model_name", model_,
                                  "--input_sizes", inputs, "--batch_sizes", batches, "--reps", "3", "--eval"};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }
};

size_t count_prefix(const std::string& text, const std::string& prefix) {
  const auto lines = lines_of(text);
  return static_cast<size_t>(
      std::count_if(lines.begin(), lines.end(), [&](const std::string& l) { return l.rfind(prefix, 0) == 0; }));
}

// `process --format csv` of a log: its rows reduced to "input,batch,status", in order.
std::vector<std::string> processed(const TempDir& dir, const std::string& name, const std::string& log) {
  write_file(dir.file(name), log);
  const auto r = run_command({process_path(), "--format", "csv", dir.file(name)});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> rows;
  for (const auto& row : lines_of(r.out)) {
    std::vector<std::string> cells;
    std::istringstream in(row);
    for (std::string cell; std::getline(in, cell, ',');) cells.push_back(cell);
    if (cells.size() > 8 && cells[0] != "source") rows.push_back(cells[7] + "," + cells[8] + "," + cells[3]);
  }
  return rows;
}

TEST_F(IsolateDriverTest, TheLogReadsAsTheSameRunAsWithoutIsolate) {
  TempDir scratch;
  const auto plain = driver(args("8,16", "1,2"));
  const auto isolated = driver(args("8,16", "1,2", {"--isolate"}));
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  ASSERT_EQ(isolated.exit_code, 0) << isolated.err;
  EXPECT_EQ(isolated.err, "");
  const std::vector<std::string> expected = {"8,1,ok", "16,1,ok", "8,2,ok", "16,2,ok"};
  EXPECT_EQ(processed(scratch, "plain.log", plain.out), expected);
  EXPECT_EQ(processed(scratch, "isolated.log", isolated.out), expected);
  const std::string rule(80, '-');
  for (const char* section : {"ARGS", "RUNTIME", "MODEL"})
    EXPECT_EQ(count_prefix(isolated.out, section), 1u) << section << " once:\n" << isolated.out;
  EXPECT_EQ(count_prefix(isolated.out, "FMWORK META "), 1u);
  EXPECT_EQ(count_prefix(isolated.out, "FMWORK ARG --isolate"), 1u);
  EXPECT_EQ(count_prefix(isolated.out, "FMWORK SETUP "), 4u);  // each child's own load
  EXPECT_EQ(count_prefix(isolated.out, "FMWORK REP "), count_prefix(plain.out, "FMWORK REP "));
  EXPECT_EQ(count_prefix(isolated.out, "FMWORK STAT "), 4u);
  // In the sweep's order, each RUN block before the next.
  EXPECT_LT(isolated.out.find(rule + "\nMODEL\n"), isolated.out.find("FMWORK META "));
  EXPECT_LT(isolated.out.find("FMWORK META "), isolated.out.find("RUN 8 / 1\n"));
  EXPECT_LT(isolated.out.find("RUN 8 / 1\n"), isolated.out.find("RUN 16 / 1\n"));
  EXPECT_LT(isolated.out.find("RUN 16 / 1\n"), isolated.out.find("RUN 8 / 2\n"));
  EXPECT_LT(isolated.out.find("RUN 8 / 2\n"), isolated.out.find("RUN 16 / 2\n"));
}

// The pid of the driver's child whose FMWORK_ISOLATED_CHILD names `combination` ("batch=1 input=16 "), or 0.
pid_t child_running(pid_t parent, const std::string& combination) {
  DIR* proc = opendir("/proc");
  if (!proc) return 0;
  pid_t found = 0;
  while (dirent* entry = readdir(proc)) {
    const std::string name = entry->d_name;
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat("/proc/" + name + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    const size_t close = text.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream fields(text.substr(close + 2));
    std::string state;
    long ppid = 0;
    fields >> state >> ppid;
    if (ppid != parent) continue;
    std::ifstream environ("/proc/" + name + "/environ");
    std::string env((std::istreambuf_iterator<char>(environ)), std::istreambuf_iterator<char>());
    if (env.find(std::string("FMWORK_ISOLATED_CHILD=") + combination) != std::string::npos) found = std::stoi(name);
  }
  closedir(proc);
  return found;
}

// A driver sweep whose child of input 16 the test sends `signal` as soon as it sees it run.
struct SignalledSweep {
  ChildExit exit;
  std::string out, err;
  bool signalled = false;
};
SignalledSweep sweep_signalling_input_16(std::vector<std::string> argv, int signal) {
  argv.insert(argv.begin(), driver_path());
  std::atomic<pid_t> driver_pid{0};
  std::atomic<bool> done{false}, signalled{false};
  std::thread sender([&] {
    while (!done && !signalled) {
      if (const pid_t child = driver_pid ? child_running(driver_pid, "batch=1 input=16 ") : 0)
        signalled = ::kill(child, signal) == 0;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  });
  SignalledSweep r;
  StreamHandlers h;
  h.started = [&](pid_t pid) { driver_pid = pid; };
  h.out_line = [&](std::string_view line, bool) { r.out += std::string(line) + "\n"; };
  h.err_line = [&](std::string_view line, bool) { r.err += std::string(line) + "\n"; };
  r.exit = run_streaming(argv[0], argv, {"FMWORK_CACHE=" + fmwork::test_support::test_cache_dir()}, h);
  done = true;
  sender.join();
  r.signalled = signalled;
  return r;
}

// The middle combination's process is killed with SIGKILL (what the OOM killer sends) by the test while it
// runs: its FAIL line names the signal and the peak memory, and the next combination still has its RES.
TEST_F(IsolateDriverTest, AChildKilledByASignalIsAFailLineAndTheSweepGoesOn) {
  TempDir scratch;
  const auto [exit, out, err, killed] = sweep_signalling_input_16(args("8,16,32", "1", {"--isolate"}), SIGKILL);
  ASSERT_TRUE(killed) << "the test never saw the child of input 16 to kill it:\n" << out << err;

  EXPECT_EQ(exit.exit_code, 1) << err;
  EXPECT_EQ(processed(scratch, "killed.log", out), (std::vector<std::string>{"8,1,ok", "16,1,fail", "32,1,ok"}));
  const auto lines = lines_of(out);
  const auto fail = std::find_if(lines.begin(), lines.end(), [](const auto& l) { return l.rfind("FMWORK FAIL", 0) == 0; });
  ASSERT_NE(fail, lines.end()) << out;
  EXPECT_EQ(fail->rfind("FMWORK FAIL input=16 batch=1 error=the isolated process was killed by SIGKILL (signal 9; "
                        "peak memory ", 0), 0u) << *fail;
  EXPECT_CONTAINS(*fail, "the kernel's OOM killer is the likely cause");
  EXPECT_CONTAINS(out, "RUN 16 / 1\n");  // the banner, from the child or from the parent
  EXPECT_EQ(count_prefix(out, "FMWORK RES "), 2u);
  EXPECT_CONTAINS(err, "error: combination input 16 / batch 1 failed: the isolated process was killed by SIGKILL");
  EXPECT_CONTAINS(err, "error: 1 of 3 combinations failed");
}

// A child that stops (SIGSTOP here: a hung kernel or a debugger would do the same) is killed after
// --isolate_timeout; its combination is a FAIL line that names the limit, and the sweep goes on. The limit
// (30 s) is far past what a tiny TorchScript combination takes; only the stopped one reaches it.
TEST_F(IsolateDriverTest, AStoppedChildIsKilledAtTheTimeoutAndTheSweepGoesOn) {
  TempDir scratch;
  const auto [exit, out, err, stopped] =
      sweep_signalling_input_16(args("8,16,32", "1", {"--isolate", "--isolate_timeout", "30"}), SIGSTOP);
  ASSERT_TRUE(stopped) << "the test never saw the child of input 16 to stop it:\n" << out << err;
  EXPECT_EQ(exit.exit_code, 1) << err;
  EXPECT_EQ(processed(scratch, "stopped.log", out), (std::vector<std::string>{"8,1,ok", "16,1,fail", "32,1,ok"}));
  EXPECT_CONTAINS(out, "FMWORK FAIL input=16 batch=1 error=the isolated process was still running after "
                       "--isolate_timeout 30 s and was killed");
  EXPECT_CONTAINS(err, "error: 1 of 3 combinations failed");
}

TEST_F(IsolateDriverTest, TimeoutWithoutIsolateOrOfZeroIsRefused) {
  for (const auto& [extra, message] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--isolate_timeout", "10"}, "error: --isolate_timeout bounds --isolate's children: give --isolate too"},
           {{"--isolate", "--isolate_timeout", "0"}, "error: --isolate_timeout 0 would kill every child at once"}}) {
    const CommandResult r = driver(args("8", "1", extra));
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(r.err.rfind(message, 0), 0u) << r.err;
  }
}

// A combination that fails inside its child (input 100 > the model's 64 positions) prints the child's own
// FAIL line and report, once; the others run.
TEST_F(IsolateDriverTest, AChildsOwnFailureIsForwardedOnce) {
  auto r = driver(args("8,100", "1", {"--isolate"}));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(count_prefix(r.out, "FMWORK FAIL input=100 batch=1 "), 1u) << r.out;
  EXPECT_EQ(count_prefix(r.out, "FMWORK RES "), 1u) << r.out;
  const auto err = lines_of(r.err);
  ASSERT_EQ(err.size(), 2u) << r.err;
  EXPECT_EQ(err[0].rfind("error: combination input 100 / batch 1 failed: ", 0), 0u) << r.err;
  EXPECT_EQ(err[1], "error: 1 of 2 combinations failed (see the FMWORK FAIL and CHECK lines)");
}

TEST_F(IsolateDriverTest, UsageErrorsStillExitTwoWithOneLine) {
  auto expect_usage = [](const CommandResult& r, const std::string& fragment) {
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err;
    EXPECT_CONTAINS(r.err, fragment);
    EXPECT_EQ(r.out.find("FMWORK REP"), std::string::npos);
  };
  // Found by the parent, before any child runs.
  std::vector<std::string> bad = args("8,16", "1", {"--isolate"});
  bad[11] = "1";  // --reps 1
  auto r = driver(bad);
  expect_usage(r, "--reps must be at least 2");
  EXPECT_EQ(r.out, "");
  expect_usage(driver(args("8,16", "1", {"--isolate", "--isolate"})), "--isolate is given twice");
  // Found by the first child (the model is loaded there): the parent stops with the child's message.
  std::vector<std::string> missing = args("8,16", "1", {"--isolate"});
  missing[5] = dir_->file("nosuch/model.pt");
  expect_usage(driver(missing), "does not exist");
}

// refdev emulating Spyre declares one input size and one batch size per run: refused for a sweep without
// --isolate, a whole sweep with it.
TEST_F(IsolateDriverTest, OneShapePerProcessPlatformsGetWholeSweeps) {
  TempDir scratch;
  const std::string events = scratch.file("events.txt");
  std::vector<std::string> spyre = {"--platform", "refdev", "--platform:emulate", "spyre", "--platform:event_log",
                                    events, "--model_class", "BertModel", "--model_name", model_, "--input_sizes",
                                    "8,16", "--batch_sizes", "1,2", "--reps", "3", "--torch.call:set_grad_enabled@",
                                    "False", "--compile", "--compile:backend", "sendnn"};
  auto refused = driver(spyre);
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_CONTAINS(refused.err, "requires a single --input_sizes value or --isolate (got 2: 8,16)");
  spyre.push_back("--isolate");
  auto r = driver(spyre);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(processed(scratch, "spyre.log", r.out), (std::vector<std::string>{"8,1,ok", "16,1,ok", "8,2,ok", "16,2,ok"}));
  // Each process opens the log anew (refdev truncates it): the last combination's process compiled its shape.
  EXPECT_EQ(count_prefix(read_file(events), "compile backend=sendnn "), 1u);
}

}  // namespace
}  // namespace fmwork
