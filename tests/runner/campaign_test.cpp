// Tests of the runner on real files: completeness of a run's log, the tree it writes, devices and the
// platform they set, resume running only what is missing. A shell script stands
// in for the driver (the integration test runs the real one).
#include "fmwork/runner/campaign.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "fmwork/base/error.hpp"
#include "fmwork/base/json_input.hpp"
#include "fmwork/runner/campaign_run.hpp"
#include "support/campaign_fixtures.hpp"
#include "support/scoped_env.hpp"
#include "support/temp_dir.hpp"

namespace fmwork {
namespace {

namespace fs = std::filesystem;
using namespace campaign_fixtures;

TEST(Campaign, ALogIsCompleteWhenEveryCombinationHasItsResOrFail) {
  TempDir dir;
  EXPECT_FALSE(run_log_complete(dir.path() + "/none.log", kArgv));
  const std::string res8 = "FMWORK RES 1.000000000 2.000000000 m C 8 1 1.000 1000.0\n";
  EXPECT_FALSE(run_log_complete(dir.write("half.log", res8), kArgv));
  EXPECT_TRUE(run_log_complete(dir.write("all.log", res8 + "FMWORK FAIL input=16 batch=1 error=x\n"), kArgv));
  EXPECT_FALSE(run_log_complete(dir.write("bad.log", res8 + "FMWORK RES 1 2\n"), kArgv));
  EXPECT_FALSE(run_log_complete(dir.write("cut.log", res8 + "FMWORK FAIL input=16 bat"), kArgv));
}

// A serve run is complete with a SERVE line per level it asks for and, with a bound, the search's CAPACITY line.
TEST(Campaign, AServeLogIsCompleteWithItsLevelsAndItsCapacity) {
  TempDir dir;
  // Whole command lines, as the campaign checked them before they ran: serve's are read by the one tokenizer.
  const std::vector<std::string> rates = {"serve", "--platform", "cpu", "--model_class", "C", "--model_name", "m",
                                          "--rates", "20,40"};
  const std::string level =  // as driver serve writes it (tests/report/serve_report_test.cpp has the whole log)
      "FMWORK SERVE level=1 phase=levels arrival=poisson rate=20.000 lengths=fixed:128 batching=padded max_batch=8 "
      "max_wait_ms=2.000 max_tokens=0 queries=104 warmup_queries=21 unanswered=0 window_s=5.031 offered_qps=20.391 "
      "achieved_qps=20.672 tokens_per_s=2646.0 p50_ms=14.122 p90_ms=17.540 p99_ms=24.871 p999_ms=27.322 max_ms=27.594 "
      "mean_ms=14.960 batches=99 mean_batch=1.051 batch_hist=1:94,2:5 busy=0.3071 verdict=VALID reason=kept up\n";
  EXPECT_FALSE(run_log_complete(dir.write("one.log", level), rates));
  EXPECT_TRUE(run_log_complete(dir.write("two.log", level + level), rates));
  const std::vector<std::string> bound = {"serve", "--platform", "cpu", "--model_class", "C", "--model_name", "m",
                                          "--rates", "20,40", "--latency_bound", "p99:50"};  // a search
  EXPECT_FALSE(run_log_complete(dir.write("no-capacity.log", level + level), bound));
  const std::string capacity = "FMWORK CAPACITY bound=p99:50 result=found capacity_qps=40.000 reason=found\n";
  EXPECT_TRUE(run_log_complete(dir.write("capacity.log", level + level + level + capacity), bound));
  // Defect: the search's levels counted as levels asked for. One asked level and two of a search (a log of
  // another command line, or one cut and resumed by hand) is not the two --rates asks for.
  std::string search = level;
  search.replace(search.find("phase=levels"), 12, "phase=search");
  EXPECT_FALSE(run_log_complete(dir.write("search.log", level + search + search), rates));
  EXPECT_EQ(with_platform({"serve", "--rates", "5"}, "cuda"),  // after the word serve, which names the command
            (std::vector<std::string>{"serve", "--platform", "cuda", "--rates", "5"}));
}

// Defect: a run killed by a signal (the OOM killer's SIGKILL) was reported as "exit status 137: " with nothing
// after it. The signal, its likely cause and the peak memory, then the run's last words.
TEST(Campaign, ARunKilledByASignalSaysSo) {
  TempDir dir;
  const std::string program = dir.write("killed.sh", "#!/bin/sh\necho 'loading the model' >&2\nkill -9 $$\n");
  ASSERT_EQ(::chmod(program.c_str(), 0755), 0);
  fs::create_directories(dir.path() + "/logs");
  PlannedRun run;
  run.id = run.run = "a";
  run.argv = {"--platform", "cpu"};
  const RunEnd end = execute_run(run, "", dir.path() + "/logs", program);
  EXPECT_EQ(end.status, 137);
  EXPECT_EQ(end.last_error.rfind("killed by SIGKILL (signal 9; peak memory ", 0), 0u) << end.last_error;
  EXPECT_NE(end.last_error.find("): the kernel's OOM killer is the likely cause (or a kill -9); its last line on "
                                "stderr: loading the model"),
            std::string::npos)
      << end.last_error;
}

// Only "the log is incomplete or invalid" means "run it again": a log that cannot be read, or a command
// line that does not parse, is an Error naming the log, not work quietly done twice.
TEST(Campaign, ALogThatCannotBeJudgedIsAnError) {
  TempDir dir;
  try {
    run_log_complete(dir.path(), kArgv);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), dir.path() + " is a directory, not a file; give the path of a regular file");
  }
  // A campaign folder's files get the checks logs get: a FIFO (which would block) or a link to a device
  // (/dev/zero, never ending) is refused naming it, before anything opens it.
  const std::string fifo = dir.path() + "/r1.log", zero = dir.path() + "/r2.log";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  ASSERT_EQ(::symlink("/dev/zero", zero.c_str()), 0);
  for (const auto& [path, kind] : {std::make_pair(fifo, "a FIFO"), std::make_pair(zero, "a character device")}) {
    try {
      run_log_complete(path, kArgv);
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), path + " is " + kind + ", not a file; give the path of a regular file");
    }
  }
  try {
    run_log_complete(dir.path() + "/none.log", {"--reps", "x"});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind(dir.path() + "/none.log: cannot tell whether the run is complete: its "
                                          "command line: ", 0), 0u) << e.what();
  }
}

TEST(Campaign, RunsGetTheirSlotsPlatform) {
  EXPECT_EQ(with_platform(kArgv, "cuda:1")[1], "cuda:1");
  EXPECT_EQ(with_platform({"--reps", "2"}, "cpu"), (std::vector<std::string>{"--platform", "cpu", "--reps", "2"}));
}

// Defect: every run of a --devices cuda:0,cuda:1 campaign made a context on GPU 0. Each GPU slot's run sees
// its one GPU only.
TEST(Campaign, AGpuSlotRunsOnItsOwnVisibleDevice) {
  const auto env = [](const SlotLaunch& l) { return l.env.empty() ? std::string() : l.env.front(); };
  EXPECT_EQ(slot_launch("cuda:1", std::nullopt).platform, "cuda");
  EXPECT_EQ(env(slot_launch("cuda:1", std::nullopt)), "CUDA_VISIBLE_DEVICES=1");
  EXPECT_EQ(env(slot_launch("cuda:1", std::string("4,6,7"))), "CUDA_VISIBLE_DEVICES=6");
  EXPECT_EQ(env(slot_launch("cuda:0", std::string("GPU-1234"))), "CUDA_VISIBLE_DEVICES=GPU-1234");
  // Past the visible list, and names that are not cuda:N, go on unchanged for the driver to judge.
  EXPECT_EQ(slot_launch("cuda:2", std::string("4,6")).platform, "cuda:2");
  EXPECT_TRUE(slot_launch("cuda:2", std::string("4,6")).env.empty());
  EXPECT_EQ(slot_launch("cuda", std::nullopt).platform, "cuda");
  EXPECT_TRUE(slot_launch("cuda", std::nullopt).env.empty());
  EXPECT_EQ(slot_launch("cpu", std::nullopt).platform, "cpu");
  EXPECT_TRUE(slot_launch("refdev", std::string("0")).env.empty());
  for (const char* bad : {"cuda:x", "cuda:1234", "cuda:"}) EXPECT_EQ(slot_launch(bad, std::nullopt).platform, bad);
}

TEST(Campaign, TheFolderIsClaimedOncePerSecond) {
  TempDir dir;
  const auto now = std::chrono::system_clock::now();
  const std::string first = make_campaign_dir(dir.path(), "me", "my host", now);
  const std::string second = make_campaign_dir(dir.path(), "me", "my host", now);
  EXPECT_EQ(fs::path(first).parent_path(), fs::path(dir.path()) / "me" / "my_host");
  EXPECT_EQ(second, first + "-2");
}

TEST(Campaign, RunsEveryRunIntoTheTreeAndResumesOnlyTheIncompleteOnes) {
  TempDir dir;
  const std::string driver = fake_driver(dir), exp = experiment(dir), root = dir.path() + "/out";
  for (const std::string name : {"deva", "devb"}) std::ofstream(dir.path() + "/libfmwork_platform_" + name + ".so");
  const test_support::ScopedEnv plugins("FMWORK_PLUGIN_PATH", dir.path());  // --devices checks they exist
  std::ostringstream out, err;
  EXPECT_EQ(run_campaign_command({exp, "--out", root, "--devices", "deva,devb"}, driver, out, err), 1) << err.str();
  const std::string campaign = only_child(only_child(only_child(root)));
  EXPECT_EQ(out.str(), campaign + "\n");
  EXPECT_EQ(slurp(campaign + "/experiment.json"), slurp(exp));
  EXPECT_EQ(read_json_file(campaign + "/plan.json")["runs"].size(), 3u);
  EXPECT_TRUE(read_json_file(campaign + "/environment.json").contains("kernel"));
  const std::string log1 = slurp(campaign + "/logs/a.1.log");
  EXPECT_TRUE(log1.rfind("platform deva\n", 0) == 0 || log1.rfind("platform devb\n", 0) == 0) << log1;
  EXPECT_NE(err.str().find("campaign: a.3: run \"a\" (model_name=bad) failed (exit status 1): error: no"),
            std::string::npos) << err.str();
  EXPECT_NE(err.str().find("campaign: 2 done, 1 failed, 0 left (0 running)"), std::string::npos) << err.str();
  // The failed run is complete (its FAIL line); a truncated and a missing log are not.
  EXPECT_TRUE(run_log_complete(campaign + "/logs/a.3.log", with_platform(kArgv, "x")));
  std::ofstream(campaign + "/logs/a.1.log") << "platform cpu\n";
  fs::remove(campaign + "/logs/a.2.log");
  std::ostringstream out2, err2;
  EXPECT_EQ(run_campaign_command({"--resume", campaign}, driver, out2, err2), 0) << err2.str();
  EXPECT_NE(err2.str().find("2 of 3 runs to do (the others are complete)"), std::string::npos) << err2.str();
  EXPECT_NE(slurp(campaign + "/logs/a.2.log").find("m2 c 16 1"), std::string::npos);
  EXPECT_NE(slurp(campaign + "/logs/a.1.log").find("m1 c 16 1"), std::string::npos);
}

// A run whose id is its name was reported as "a run \"a\" failed": named once now.
TEST(Campaign, AFailedRunIsNamedOnce) {
  TempDir dir;
  const std::string driver = fake_driver(dir), root = dir.path() + "/out";
  dir.write("bad", ""), dir.write("quiet", "");  // the models the fake driver fails on (paths must exist)
  const std::string exp = dir.write("one.json", R"({"defaults": {"options": {"--platform": "cpu", "--model_class": "C",
      "--reps": 2, "--input_sizes": "8,16", "--batch_sizes": "1"}}, "runs": [{"id": "b", "options": {"--model_name": "bad"}},
      {"id": "q", "options": {"--model_name": "quiet"}}]})");
  std::ostringstream out, err;
  EXPECT_EQ(run_campaign_command({exp, "--out", root}, driver, out, err), 1);
  EXPECT_NE(err.str().find("campaign: run \"b\" failed (exit status 1): error: no"), std::string::npos) << err.str();
  EXPECT_NE(err.str().find("run \"q\" exited 0, but its log holds no result"), std::string::npos) << err.str();
}

TEST(Campaign, ListPrintsCommandLinesAndRunsNothing) {
  TempDir dir;
  std::ostringstream out, err;
  EXPECT_EQ(run_campaign_command({experiment(dir), "--list"}, "/nonexistent", out, err), 0);
  EXPECT_EQ(out.str().substr(0, out.str().find('\n')),
            "driver --batch_sizes 1 --input_sizes 8,16 --model_class C --model_root " + dir.path() +
                " --model_name m1 --platform cpu --reps 2  # a.1");
  EXPECT_EQ(err.str(), "");
}

// The usage Error's message of `driver run` with `args` (exit status 2), "no error" when it runs.
std::string runner_usage_error(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  try {
    run_campaign_command(args, "/nonexistent", out, err);
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), 2);
    return std::string(e.what());
  }
  return std::string("no error");
}

TEST(Campaign, UsageErrors) {
  const auto message = runner_usage_error;
  EXPECT_EQ(message({}), "driver run: give an EXPERIMENT file or --resume DIR (one of them)");
  EXPECT_EQ(message({"x.json"}), "driver run x.json: --out ROOT is missing (or --list to print the runs)");
  EXPECT_NE(message({"x.json", "--bogus"}).find("see driver run --help"), std::string::npos);
  EXPECT_EQ(message({"x.json", "--out", "r", "--wait"}),
            "driver run: --wait is an option of --slurm: add --slurm, or leave it out");
  EXPECT_EQ(message({"x.json", "--out", "r", "--slurm:partition", "gpu"}),
            "driver run: --slurm:KEY is an option of --slurm: add --slurm, or leave it out");
  EXPECT_EQ(message({"x.json", "--out", "r", "--max-tasks", "2"}),
            "driver run: --max-tasks is an option of --slurm: add --slurm, or leave it out");
  EXPECT_NE(message({"x.json", "--out", "r", "--slurm", "--max-tasks", "0"}).find("--max-tasks"), std::string::npos);
  // Defect: CLI11 read --max-tasks with strtoull's base 0: 0x10 ran 16 at once, 010 ran 8.
  for (const char* bad : {"0x10", "010x", "1e3", "2000000"})
    EXPECT_EQ(message({"x.json", "--out", "r", "--slurm", "--max-tasks", bad}),
              std::string("--max-tasks expects a whole number from 1 to 1000000 (runs at once); got '") + bad + "'");
  EXPECT_EQ(message({"x.json", "--list", "--out", "r"}),
            "driver run --list prints the runs' command lines and runs nothing; leave out --out");
  EXPECT_EQ(message({"x.json", "--list", "--devices", "cpu"}),
            "driver run --list prints the runs' command lines and runs nothing; leave out --devices");
  EXPECT_EQ(message({"x.json", "--out", "r", "--slurm", "--devices", "cuda:0"}),
            "driver run --slurm: Slurm chooses each task's node and devices; leave out --devices and ask for devices "
            "with --slurm:gres gpu:1");
  EXPECT_EQ(message({"x.json", "--out", "r", "--slurm", "--slurm:time"}),
            "--slurm:time: a value is missing (--slurm:KEY VALUE; an empty VALUE \"\" for a flag)");
  // Defect: "--slurm:" took "--out" as its value and left "r" an unexpected argument.
  for (const char* word : {"--slurm:", "--slurm:=x"})
    EXPECT_EQ(message({"x.json", "--slurm", word, "--out", "r"}),
              std::string(word) + ": no KEY after ':'; write --slurm:KEY VALUE");
  EXPECT_NE(message({"x.json", "--out", "r", "--slurm", "--slurm:array=0-3"}).find("the runner sets --array"),
            std::string::npos);
  EXPECT_EQ(message({"--resume", "c", "--out", "r"}),
            "driver run --resume c: the campaign stays in its folder; --out names the root of a new campaign's tree: "
            "leave it out");
  EXPECT_EQ(message({"x.json", "--out", "r", "--devices", ""}),
            "--devices is empty; give platforms such as cpu or cuda:0,cuda:1, or leave it out");
  EXPECT_EQ(message({"--resume", ""}), "--resume is empty; give a campaign folder");
  EXPECT_EQ(message({"x.json", "--out", ""}), "--out is empty; give the root of the result tree");
  TempDir dir;
  const std::string plan = dir.write("plan.json", "{}");
  EXPECT_EQ(message({"--resume", plan}), "--resume " + plan + ": not a folder; give the campaign's folder (the one "
                                         "holding plan.json and logs/)");
  EXPECT_EQ(message({"--resume", dir.path() + "/gone"}), "--resume " + dir.path() + "/gone: no such folder; give "
                                                          "the campaign's folder (the one holding plan.json and logs/)");
  EXPECT_EQ(message({"--task", "d", "0", "--slurm"}),
            "driver run --task DIR INDEX runs one run of a campaign (a Slurm array task) and takes no other option");
}

// Defect: a misspelt option of driver run reached the user as CLI11 wrote it ("The following argument was not
// expected: --resum"), with no word of the option meant.
TEST(Campaign, AMisspeltOptionNamesTheOneMeantInOurWords) {
  const auto message = runner_usage_error;
  EXPECT_EQ(message({"--resum", "c"}), "unknown option --resum; did you mean --resume? (see driver run --help)");
  EXPECT_EQ(message({"x.json", "--out", "r", "--device", "cpu"}),
            "unknown option --device; did you mean --devices? (see driver run --help)");
  EXPECT_EQ(message({"x.json", "--out=r", "--no_submit"}),
            "unknown option --no_submit; did you mean --no-submit? (see driver run --help)");
  EXPECT_EQ(message({"x.json", "y.json", "--out", "r"}), "unexpected argument: y.json (see driver run --help)");
  EXPECT_EQ(message({"x.json", "--zzzzzzzzzz"}), "unknown option --zzzzzzzzzz (see driver run --help)");
  EXPECT_EQ(message({"x.json", "--out"}), "--out needs a value, like --out results (to give one that starts with '--', "
                                          "write --out=VALUE) (see driver run --help)");
  EXPECT_EQ(message({"x.json", "--out", "r", "--out", "s"}), "--out is given twice; give it once (see driver run --help)");
  EXPECT_EQ(message({"--task", "d"}), "--task takes 2 values, like --task results/me/host/20260101-120000 0; got 1 "
                                      "(see driver run --help)");
}

// A resumed run's .partial or .err that is a symbolic link (left by hand, or by another tool) is replaced,
// not written through: the file it leads to, outside the campaign, keeps its bytes.
TEST(Campaign, ARunNeverWritesThroughALinkInItsLogsFolder) {
  TempDir dir;
  const std::string driver = fake_driver(dir), root = dir.path() + "/out";
  std::ostringstream out, err;
  run_campaign_command({experiment(dir), "--out", root}, driver, out, err);
  const std::string campaign = only_child(only_child(only_child(root)));
  const std::string victim = dir.write("victim.txt", "precious\n"), victim2 = dir.write("victim2.txt", "kept\n");
  fs::remove(campaign + "/logs/a.1.log");
  fs::remove(campaign + "/logs/a.1.err");
  fs::create_symlink(victim, campaign + "/logs/a.1.log.partial");
  fs::create_symlink(victim2, campaign + "/logs/a.1.err");
  std::ostringstream err2;
  EXPECT_EQ(run_campaign_command({"--resume", campaign}, driver, out, err2), 0) << err2.str();
  EXPECT_EQ(slurp(victim), "precious\n");
  EXPECT_EQ(slurp(victim2), "kept\n");
  EXPECT_FALSE(fs::is_symlink(campaign + "/logs/a.1.log"));
  EXPECT_NE(slurp(campaign + "/logs/a.1.log").find("m1 c 16 1"), std::string::npos);
  // A folder where the log goes is named, not written into.
  fs::remove(campaign + "/logs/a.1.log");
  fs::create_directory(campaign + "/logs/a.1.log.partial");
  try {
    run_campaign_command({"--resume", campaign}, driver, out, err2);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("a.1.log.partial is a folder"), std::string::npos) << e.what();
  }
}

// Two runners of one campaign would run the same runs into the same .partial files: the second is refused
// at once, naming the folder and the holder's pid, and the folder is free again once the first has ended.
TEST(Campaign, OneRunnerAtATimeHoldsACampaign) {
  TempDir dir;
  const std::string driver = fake_driver(dir), root = dir.path() + "/out";
  std::ostringstream out, err;
  run_campaign_command({experiment(dir), "--out", root}, driver, out, err);
  const std::string campaign = only_child(only_child(only_child(root)));
  {
    const CampaignLock first(campaign);  // a runner still at work on it
    try {
      run_campaign_command({"--resume", campaign}, driver, out, err);
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(e.exit_code(), 1);
      EXPECT_EQ(std::string(e.what()), campaign + ": another driver run (pid " + std::to_string(::getpid()) +
                                           ") holds this campaign; wait until it has ended (or stop it), then resume");
    }
  }
  fs::remove(campaign + "/logs/a.2.log");
  std::ostringstream err2;
  EXPECT_EQ(run_campaign_command({"--resume", campaign}, driver, out, err2), 0) << err2.str();
  EXPECT_NE(err2.str().find("1 of 3 runs to do"), std::string::npos) << err2.str();
}

// A device that no driver would take is refused before the campaign folder exists, not by every run.
TEST(Campaign, ADeviceThatIsNoPlatformIsRefusedBeforeTheTree) {
  TempDir dir;
  const std::string root = dir.path() + "/out";
  for (const std::string devices : {"../x", "cpu,cuda:x", "cpu,,cpu", ".."}) {
    std::ostringstream out, err;
    try {
      run_campaign_command({experiment(dir), "--out", root, "--devices", devices}, fake_driver(dir), out, err);
      ADD_FAILURE() << "no error for " << devices;
    } catch (const Error& e) {
      EXPECT_EQ(e.exit_code(), 2);
      const std::string bad = devices == "cpu,cuda:x" ? "cuda:x" : devices == "cpu,,cpu" ? "" : devices;
      EXPECT_EQ(std::string(e.what()), "--devices " + devices + ": '" + bad + "' is not a platform name; give cpu, "
                                       "cuda, cuda:N or a plugin name of up to 64 letters, digits, '_', '-' and '.', "
                                       "comma-separated");
    }
    EXPECT_FALSE(fs::exists(root)) << devices;
  }
}

// Paths in an experiment file are the file's: a campaign started from another folder finds the same models,
// and writes where the file says, and the plan holds them absolute, so a resume works from anywhere.
TEST(Campaign, PathsAreTheExperimentFilesAndCheckedBeforeTheTree) {
  TempDir dir, elsewhere;
  fs::create_directories(dir.path() + "/exps/models/enc");
  dir.write("exps/models/enc/config.json", "{}");
  const std::string exp = dir.write("exps/e.json", R"({"defaults": {"options": {"--platform": "cpu",
      "--model_class": "C", "--reps": 2, "--input_sizes": "8", "--batch_sizes": "1"}},
    "runs": [{"id": "a", "options": {"--model_name": "models/enc", "--save_outputs": "out/saved"}}]})");
  const fs::path cwd = fs::current_path();
  fs::current_path(elsewhere.path());
  std::ostringstream out, err;
  const int listed = run_campaign_command({exp, "--list"}, "/nonexistent", out, err);
  fs::current_path(cwd);
  EXPECT_EQ(listed, 0);
  const std::string folder = dir.path() + "/exps";
  EXPECT_EQ(out.str(), "driver --batch_sizes 1 --input_sizes 8 --model_class C --model_root " + folder +
                           " --model_name models/enc --platform cpu --reps 2 --save_outputs " + folder +
                           "/out/saved  # a\n");
  const auto refusal = [&](const std::string& options) {
    const std::string bad = dir.write("exps/bad.json", R"({"runs": [{"id": "b", "options": {"--platform": "cpu",
        "--model_class": "C", "--reps": 2, "--input_sizes": "8", "--batch_sizes": "1", )" + options + "}}]}");
    std::ostringstream o, e;
    try {
      run_campaign_command({bad, "--out", dir.path() + "/root"}, "/nonexistent", o, e);
    } catch (const Error& error) {
      EXPECT_EQ(error.exit_code(), 2);
      EXPECT_FALSE(fs::exists(dir.path() + "/root")) << "refused before the tree is made";
      return std::string(error.what());
    }
    return std::string("no error");
  };
  const std::string head = folder + "/bad.json: run \"b\": ";
  EXPECT_EQ(refusal(R"("--model_name": "models/nope")"),
            head + "--model_name models/nope: no such file or folder (looked for " + folder +
                "/models/nope: a relative path in an experiment file is relative to the file's folder)");
  EXPECT_EQ(refusal(R"("--model_root": "models/enc/config.json", "--model_name": "x")"),
            head + "--model_root models/enc/config.json: not a folder (looked for " + folder +
                "/models/enc/config.json: a relative path in an experiment file is relative to the file's folder)");
  EXPECT_EQ(refusal(R"("--model_root": "models", "--model_name": "enc2")"),
            head + "--model_name enc2: no such file or folder (looked for " + folder + "/models/enc2)")
      << "under --model_root, made absolute against the file's folder";
  EXPECT_EQ(refusal(R"("--model_name": "/dev/null")"),
            head + "--model_name /dev/null: not a file or a folder (a model is a Hugging Face folder, a .pt or a "
                   ".pt2 file)");
  EXPECT_EQ(refusal(R"("--model_name": "models/enc", "--check_outputs": "saved")"),
            head + "--check_outputs saved: no such folder (looked for " + folder +
                "/saved: a relative path in an experiment file is relative to the file's folder)");
  EXPECT_EQ(refusal(R"("--model_name": "models/enc", "--profile": "models/enc/config.json/p")"),
            head + "--profile models/enc/config.json/p: " + folder + "/models/enc/config.json is not a folder, so "
                   "it cannot be made (looked for " + folder + "/models/enc/config.json/p: a relative path in an "
                   "experiment file is relative to the file's folder)");
  EXPECT_EQ(refusal(R"("--model_name": "models/enc", "--save_outputs": "models/enc/config.json")"),
            head + "--save_outputs models/enc/config.json: a file of that name exists; name a folder (it is made "
                   "when absent) (looked for " + folder + "/models/enc/config.json: a relative path in an "
                   "experiment file is relative to the file's folder)");
}

// Ctrl-C (SIGINT, or SIGTERM) during `driver run` still ends it by the signal, now with the command that
// resumes the campaign. The runner runs in a child process (the signal would end the test): its run is a
// driver stand-in that waits, so the signal comes while a run is in flight.
TEST(Campaign, AStopSaysTheResumeCommand) {
  for (const int signal : {SIGINT, SIGTERM}) {
    TempDir dir;
    const std::string driver = dir.write("slow.sh", "#!/bin/sh\necho started\nexec sleep 30\n");
    ::chmod(driver.c_str(), 0755);
    const std::string exp = experiment(dir), root = dir.path() + "/out", said = dir.path() + "/stderr";
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      const int to = ::open(said.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);  // the note writes to fd 2
      std::ostringstream out, err;
      try {
        if (to >= 0 && ::dup2(to, STDERR_FILENO) == STDERR_FILENO)
          run_campaign_command({exp, "--out", root, "--devices", "cpu"}, driver, out, err);
      } catch (...) {
      }
      std::_Exit(3);  // not reached when the signal ends it
    }
    // Wait (without a time bound: the test's own timeout is the bound) for the run to be in flight.
    std::string campaign;
    while (campaign.empty() || slurp(campaign + "/logs/a.1.log.partial").find("started") == std::string::npos) {
      if (campaign.empty() && fs::exists(root)) {
        for (const auto& e : fs::recursive_directory_iterator(root))
          if (e.path().filename() == "plan.json") campaign = e.path().parent_path().string();
      }
      int early = 0;
      ASSERT_EQ(::waitpid(child, &early, WNOHANG), 0) << "the runner ended before its run started: " << slurp(said);
      ::usleep(10000);
    }
    ASSERT_EQ(::kill(child, signal), 0);
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == signal) << status;
    const std::string text = slurp(said);
    const std::string line = "campaign: stopped; the complete runs are kept. Resume with: " + driver +
                             " run --resume " + fs::absolute(campaign).lexically_normal().string() + " --devices cpu\n";
    EXPECT_EQ(text.substr(text.size() - std::min(text.size(), line.size())), line) << text;
  }
}

TEST(Campaign, TheResumeCommandIsAbsoluteAndQuoted) {
  TempDir dir;
  const std::string driver = fake_driver(dir);
  const fs::path cwd = fs::current_path();
  fs::current_path(dir.path());
  const std::string command = resume_command(driver, "out/my campaign", "");
  fs::current_path(cwd);
  EXPECT_EQ(command, driver + " run --resume '" + dir.path() + "/out/my campaign'");
  EXPECT_EQ(resume_command(driver, "/r/c", "cuda:0,cuda:1"), driver + " run --resume /r/c --devices cuda:0,cuda:1");
}

// driver run's values reach plan.json and the runs' command lines: a line break in one is refused first.
TEST(Campaign, AnOptionWithALineBreakIsRefusedNamingIt) {
  std::ostringstream out, err;
  try {
    run_campaign_command({"experiment.json", "--out", "root\nFMWORK RES"}, "/bin/false", out, err);
    FAIL() << "a line break in --out was taken";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    EXPECT_EQ(std::string(e.what()),
              "--out: the value contains a line break; give it on one line, without control characters")
        << fmt::format("got: {}", e.what());
  }
}

}  // namespace
}  // namespace fmwork
