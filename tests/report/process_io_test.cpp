// Tests of process_io: what process reads (endless streams refused, a stray log under a folder skipped,
// every input kept from --out) and how it writes (log by log, the same output; a closed output ends it).
#include "fmwork/report/process_io.hpp"

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "fmwork/base/error.hpp"
#include "fmwork/base/python_text.hpp"
#include "fmwork/log/log_records.hpp"
#include "fmwork/report/formats.hpp"
#include "fmwork/report/process_command.hpp"
#include "support/process_fixtures.hpp"

namespace fmwork {
namespace {

using namespace process_fixtures;

// ---- inputs that cannot be logs, trees with strays, outputs over inputs ----

// /dev/zero and /dev/urandom, as a file or on standard input, were read forever.
TEST(ProcessIo, AnEndlessStreamIsRefusedAsNoLog) {
  const Error zero = run_error({"--path", "/dev/zero"});
  EXPECT_EQ(zero.exit_code(), 1);
  EXPECT_EQ(std::string(zero.what()),
            "/dev/zero:1: binary data (a NUL byte) before any FMWORK line; a driver log is text: is this a driver log?");
  EXPECT_EQ(run_error({"--path", "/dev/urandom"}).exit_code(), 1);
  // Text with no end: lines of another program, never an FMWORK line, end at kMaxLogGapBytes.
  std::string junk;
  while (junk.size() <= kMaxLogGapBytes) junk += std::string(1023, 'y') + "\n";
  const std::string what = run_error({"-"}, junk).what();
  EXPECT_EQ(what.rfind("<stdin>:", 0), 0u) << what;
  EXPECT_NE(what.find(": no FMWORK line in the 64 MiB read since the start;"), std::string::npos) << what;
}

// A stray *.log under a folder (an editor's, another tool's) no longer fails the whole tree: it is named on
// one line, the others are written, and the exit status is 1 with the count.
TEST(ProcessIo, AStrayLogUnderAFolderIsSkippedNamedAndCounted) {
  TempDir dir;
  std::filesystem::create_directories(dir.path() + "/t/sub");
  dir.write("t/a.log", kOurLog);
  const std::string stray = dir.write("t/sub/notes.log", "my notes\n");
  const std::string bad = dir.write("t/z.log", kOurLog + "FMWORK RES 1 2\n");
  dir.write("t/b.log", kUpstreamLog);
  std::istringstream in;
  std::ostringstream out, err;
  const std::vector<std::string> words = {"process", "--path", dir.path() + "/t", "--format", "csv"};
  std::vector<const char*> argv;
  for (const auto& w : words) argv.push_back(w.c_str());
  try {
    run_process(static_cast<int>(argv.size()), argv.data(), in, out, err);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), 1);
    EXPECT_EQ(std::string(e.what()), "2 of the 4 *.log files found under the folders given were skipped (each named "
                                     "above); the output holds the others");
  }
  const std::string good = run({"--path", dir.path() + "/t/a.log", dir.path() + "/t/b.log", "--format", "csv"});
  EXPECT_EQ(out.str(), good);
  EXPECT_EQ(err.str(), "skipped: " + stray + ": no FMWORK line in it; give a log the driver wrote\n"
                       "skipped: " + bad + ":" + std::to_string(line_of(kOurLog + "FMWORK RES 1 2\n", "FMWORK RES 1 2")) +
                       ": FMWORK RES line has 2 values, expected 8: t_first t_last model_name model_class input batch "
                       "latency_ms throughput\n");
  // Named by the user, the same file is the Error it always was; a folder of strays only is one too.
  EXPECT_EQ(run_error({"--path", stray}).exit_code(), 1);
  EXPECT_EQ(std::string(run_error({"--path", dir.path() + "/t/sub"}).what()),
            "--path " + dir.path() + "/t/sub: no driver log under this folder (1 *.log file skipped, named above)");
}

// Every file process reads is an input --out may not name: the plan.json of a campaign as well as its logs.
TEST(ProcessIo, OutThatIsACampaignsPlanIsRefused) {
  TempDir dir;
  std::filesystem::create_directories(dir.path() + "/c/logs");
  dir.write("c/logs/a.1.log", kOurLog);
  const std::string plan = dir.write("c/plan.json", "{\"runs\": 3}");
  const Error e = run_error({"--path", dir.path() + "/c", "--out", plan});
  EXPECT_EQ(e.exit_code(), 2);
  EXPECT_EQ(std::string(e.what()), "--out " + plan + " is the campaign plan " + plan +
                                       " that process reads for the labels of " + dir.path() +
                                       "/c/logs/a.1.log; name another file");
  EXPECT_EQ(slurp(plan), "{\"runs\": 3}");
}

// Written log by log, the output is the same as written whole: the JSON list, the CSV with the label
// columns of every log, the summary's tables; standard input is read once.
TEST(ProcessIo, OutputWrittenLogByLogIsTheSameAsWhole) {
  TempDir dir;
  const std::string x = dir.write("x.log", kOurLog), y = dir.write("y.log", kUpstreamLog);
  EXPECT_EQ(run({"--path", x, "-", y}, kUpstreamLog), python_json_dumps(to_upstream_json({parse_log_text(kOurLog, x),
      parse_log_text(kUpstreamLog, "-"), parse_log_text(kUpstreamLog, y)}, std::nullopt), BadBytes::replace) + "\n");
  const std::vector<ParsedLog> logs = {parse_log_text(kOurLog, x), parse_log_text(kUpstreamLog, y)};
  EXPECT_EQ(run({"--path", x, y, "--format", "csv", "--metadata_id", "m"}), to_csv(logs, std::string("m")));
  EXPECT_EQ(run({"--path", x, y, "--format", "summary"}), to_summary(logs));
  const std::string none = dir.write("none.log", "FMWORK ARG --a 1\n");
  EXPECT_EQ(run({"--path", none}), "[]\n");
}

// A closed standard output (`process ... | head -1`): process stops reading and returns; its main() ends
// quietly with status 0 (see apps/process.cpp). Here the stream fails after its first write.
TEST(ProcessIo, AClosedOutputStopsTheReading) {
  TempDir dir;
  const std::string x = dir.write("x.log", kOurLog);
  std::istringstream in;
  std::ostringstream out, err;
  out.setstate(std::ios::badbit);
  const std::vector<std::string> words = {"process", "--path", x, x, x, "--format", "csv"};
  std::vector<const char*> argv;
  for (const auto& w : words) argv.push_back(w.c_str());
  EXPECT_NO_THROW(run_process(static_cast<int>(argv.size()), argv.data(), in, out, err));
  EXPECT_EQ(err.str(), "");
}

// `process ... | head -1` died of SIGPIPE (rc 141, nothing said): the output is far more than a pipe holds,
// so process writes into the pipe after head has gone, whatever the timing. It ends quietly with status 0.
TEST(ProcessIo, HeadClosingTheOutputIsAQuietEnd) {
  TempDir dir;
  const std::string x = dir.write("x.log", kOurLog);
  std::string paths;
  for (int i = 0; i < 400; ++i) paths += " " + x;
  const std::string err = dir.file("err.txt");
  const std::string command = "bash -c 'set -o pipefail; \"" FMWORK_PROCESS_BINARY "\" --format csv" + paths +
                              " 2>" + err + " | head -1 >/dev/null'";
  const int status = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(slurp(err), "");
}

}  // namespace
}  // namespace fmwork
