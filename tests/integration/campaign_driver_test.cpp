// `driver run`, end to end with the real driver on two small TorchScript encoders: an experiment of 2 models
// x 2 dtypes x 2 thread counts, the runner killed for real (SIGKILL) after its first log is complete, the
// resume running only the runs without a complete log, and `process --path` on the tree giving every
// combination with the plan's columns.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "support/test_support.hpp"

namespace fmwork {
namespace {

using namespace fmwork::test_support;
namespace fs = std::filesystem;

std::string experiment_json(const std::string& a, const std::string& b) {
  return R"({"defaults": {"options": {"--platform": "cpu", "--model_class": "BertModel", "--eval": true, "--reps": 2,
      "--input_sizes": "8", "--batch_sizes": [1, 2]},
    "matrix": {"--model:torch_dtype": ["float32", "bfloat16"], "--torch.call:set_num_threads@": [1, 2]}},
  "runs": [{"id": "a", "options": {"--model_name": ")" + a + R"("}},
           {"id": "b", "options": {"--model_name": ")" + b + R"("}}]})";
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::istringstream in(text);
  for (std::string part; std::getline(in, part, sep);) parts.push_back(part);
  return parts;
}

// A CSV row's cells: a quoted cell may hold commas (a verdict's reason does), and "" is a quote in it.
std::vector<std::string> csv_cells(const std::string& row) {
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (size_t i = 0; i < row.size(); ++i) {
    const char c = row[i];
    if (quoted && c == '"' && i + 1 < row.size() && row[i + 1] == '"') cells.back() += row[++i];
    else if (c == '"') quoted = !quoted;
    else if (c == ',' && !quoted) cells.emplace_back();
    else cells.back() += c;
  }
  return cells;
}

std::set<std::string> complete_logs(const std::string& logs) {
  std::set<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(logs, ec))
    if (e.path().extension() == ".log") names.insert(e.path().filename().string());
  return names;
}

TEST(CampaignDriver, KilledHalfwayResumesOnlyTheMissingRunsAndProcessReadsTheTree) {
  TempDir scratch;
  const std::string a = make_small_torchscript(scratch, "a"), b = make_small_torchscript(scratch, "b");
  write_file(scratch.file("exp.json"), experiment_json(a, b));
  const std::string root = scratch.file("out");
  const pid_t runner = start_in_background({driver_path(), "run", scratch.file("exp.json"), "--out", root},
                                    scratch.file("run.out"), scratch.file("run.err"));
  // Find the campaign folder and wait for the first complete log, then kill the runner as a crash would.
  std::string dir;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (std::chrono::steady_clock::now() < deadline) {
    std::error_code ec;
    for (const auto& e : fs::recursive_directory_iterator(root, ec))
      if (e.path().filename() == "logs") dir = e.path().parent_path().string();
    if (!dir.empty() && !complete_logs(dir + "/logs").empty()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_FALSE(dir.empty()) << read_file(scratch.file("run.err"));
  ASSERT_EQ(kill(runner, SIGKILL), 0);
  int status = 0;
  waitpid(runner, &status, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // its child dies with it (PR_SET_PDEATHSIG)
  const std::set<std::string> before = complete_logs(dir + "/logs");
  ASSERT_GE(before.size(), 1u);
  ASSERT_LT(before.size(), 8u) << "the runner finished before the kill";
  std::map<std::string, fs::file_time_type> stamps;
  for (const auto& name : before) stamps[name] = fs::last_write_time(dir + "/logs/" + name);

  const auto resumed = run_command({driver_path(), "run", "--resume", dir});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find(std::to_string(8 - before.size()) + " of 8 runs to do"), std::string::npos) << resumed.err;
  EXPECT_NE(resumed.err.find("campaign: " + std::to_string(8 - before.size()) + " done, 0 failed, 0 left"),
            std::string::npos) << resumed.err;
  EXPECT_EQ(complete_logs(dir + "/logs").size(), 8u);
  for (const auto& [name, stamp] : stamps) EXPECT_EQ(fs::last_write_time(dir + "/logs/" + name), stamp) << name;

  const auto csv = run_command({process_path(), "--path", root, "--format", "csv"});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  const auto rows = split(csv.out, '\n');
  ASSERT_EQ(rows.size(), 1u + 16u) << csv.out;  // 8 runs x 2 batch sizes
  const auto header = csv_cells(rows[0]);
  const size_t n = header.size();
  ASSERT_GE(n, 4u);
  EXPECT_EQ(std::vector<std::string>(header.end() - 4, header.end()),
            (std::vector<std::string>{"run_id", "run", "model:torch_dtype", "torch.call:set_num_threads"}));
  std::set<std::string> seen;
  for (size_t i = 1; i < rows.size(); ++i) {
    const auto cells = csv_cells(rows[i]);
    ASSERT_EQ(cells.size(), n) << rows[i];
    EXPECT_EQ(cells[3], "ok") << rows[i];
    seen.insert(cells[n - 4] + " " + cells[n - 2] + " " + cells[n - 1] + " " + cells[8]);
  }
  EXPECT_EQ(seen.size(), 16u);
  EXPECT_EQ(seen.count("b.4 bfloat16 2 2"), 1u);
  const auto cmp = run_command({process_path(), "--compare", root, root});
  ASSERT_EQ(cmp.exit_code, 0) << cmp.err;
  EXPECT_NE(cmp.out.find("0 combinations in A only, 0 in B only"), std::string::npos) << cmp.out;
  EXPECT_NE(cmp.out.find("1.000x"), std::string::npos) << cmp.out;
}

// A disk that fills while the runner writes a run's log (here a file size limit): the runner said only
// "cannot write the run's log". The reason is in the line now, and the log stays .partial.
TEST(CampaignDriver, AFullDiskSaysWhyTheRunsLogCannotBeWritten) {
  TempDir scratch;
  const std::string a = make_small_torchscript(scratch, "a");
  write_file(scratch.file("exp.json"), R"({"defaults": {"options": {"--platform": "cpu", "--model_class": "BertModel",
      "--reps": 600, "--input_sizes": "8", "--batch_sizes": 1}}, "runs": [{"id": "a", "options": {"--model_name": ")" +
                                           a + R"("}}]})");
  // The log's first sections are about 3 KB and each rep's line about 75 bytes: 600 reps write some 48 KB, three
  // times the limit (16 blocks: 8 KB in dash's 512-byte blocks, 16 KB in bash's 1024-byte ones), which falls
  // among the reps' lines, past the first sections.
  const auto r = run_command({"sh", "-c", "ulimit -f 16 && exec \"$0\" \"$@\"", driver_path(), "run",
                              scratch.file("exp.json"), "--out", scratch.file("out")});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("a.log: cannot write the run's log (File too large)"), std::string::npos) << r.err;
  std::set<std::string> logs;
  for (const auto& e : fs::recursive_directory_iterator(scratch.file("out")))
    if (e.path().extension() == ".log") logs.insert(e.path().string());
  EXPECT_TRUE(logs.empty());
}

TEST(CampaignDriver, ABadOptionInTheFileIsTheDriversMessageNamingTheRun) {
  TempDir scratch;
  write_file(scratch.file("exp.json"), R"({"defaults": {"options": {"--platform": "cpu", "--model_class": "M",
      "--model_name": "m", "--reps": 2, "--input_sizes": 8, "--batch_sizes": 1}},
    "runs": [{"id": "x", "matrix": {"--model:torch_dtype": ["float32", "float7"]}}]})");
  const auto r = run_command({driver_path(), "run", scratch.file("exp.json"), "--out", scratch.file("out")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.rfind("error: " + scratch.file("exp.json") + ": run \"x\" (model:torch_dtype=float7): ", 0), 0u)
      << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
  EXPECT_FALSE(fs::exists(scratch.file("out")));
}

}  // namespace
}  // namespace fmwork
