// Tests of `driver run --slurm` without a cluster: the tree and script --no-submit writes, what each array
// task runs, and paths an #SBATCH line cannot hold, refused before the tree is made.
#include "fmwork/runner/campaign.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "fmwork/base/error.hpp"
#include "fmwork/base/json_input.hpp"
#include "support/campaign_fixtures.hpp"
#include "support/temp_dir.hpp"

namespace fmwork {
namespace {

namespace fs = std::filesystem;
using namespace campaign_fixtures;

// --no-submit: the tree and the script are written as --slurm writes them, nothing needs a cluster.
TEST(CampaignSlurm, SlurmScriptHoldsTheRunsToDoAndTheOptions) {
  TempDir dir;
  const ScopedCurrentPath here(dir.path());
  const std::string driver = fake_driver(dir), root = dir.path() + "/out";
  std::ostringstream out, err;
  ASSERT_EQ(run_campaign_command({experiment(dir), "--out", root, "--slurm", "--no-submit", "--slurm:partition", "p1",
                                  "--slurm:time=5"},
                                 driver, out, err),
            0) << err.str();
  const std::string campaign = only_child(only_child(only_child(root)));
  const std::string script = slurp(campaign + "/slurm/submit-1.sbatch");
  for (const char* line : {"#SBATCH --array=0-2\n", "#SBATCH --partition=p1\n", "#SBATCH --time=5\n"})
    EXPECT_NE(script.find(line), std::string::npos) << line << " in:\n" << script;
  EXPECT_NE(script.find(" run --task " + fs::absolute(campaign).lexically_normal().string() + " \"$SLURM_ARRAY_TASK_ID\""),
            std::string::npos) << script;
  EXPECT_NE(err.str().find("submit it with: sbatch " + campaign + "/slurm/submit-1.sbatch"), std::string::npos) << err.str();
  EXPECT_FALSE(fs::exists(campaign + "/slurm/jobs"));
  EXPECT_FALSE(fs::exists(campaign + "/logs/a.1.log"));
}

// What each array task runs: one run of the plan into the tree, as the local runner writes it.
TEST(CampaignSlurm, TaskRunsOneRunOfThePlan) {
  TempDir dir;
  const ScopedCurrentPath here(dir.path());
  const std::string driver = fake_driver(dir), root = dir.path() + "/out";
  std::ostringstream out, err;
  ASSERT_EQ(run_campaign_command({experiment(dir), "--out", root, "--slurm", "--no-submit"}, driver, out, err), 0);
  const std::string campaign = only_child(only_child(only_child(root)));
  std::ostringstream out1, err1;
  EXPECT_EQ(run_campaign_command({"--task", campaign, "1"}, driver, out1, err1), 0) << err1.str();
  EXPECT_EQ(err1.str(), "campaign: run a.2 ended with exit status 0\n");
  EXPECT_TRUE(run_log_complete(campaign + "/logs/a.2.log", kArgv));
  EXPECT_TRUE(read_json_file(campaign + "/logs/a.2.environment.json").contains("host"));
  EXPECT_FALSE(fs::exists(campaign + "/logs/a.1.log"));
  std::ostringstream out2, err2;
  EXPECT_EQ(run_campaign_command({"--task", campaign, "2"}, driver, out2, err2), 1);
  EXPECT_EQ(err2.str(), "campaign: run a.3 ended with exit status 1: error: no\n");
  for (const char* bad : {"3", "-1", "x", ""}) {
    try {
      run_campaign_command({"--task", campaign, bad}, driver, out2, err2);
      ADD_FAILURE() << bad;
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), "--task " + campaign + " " + bad + ": INDEX is a run of " + campaign +
                                           "/plan.json, 0 to 2");
    }
  }
}

// Defect: an --out path with a space was refused only after the campaign's folder had been made (left
// empty behind). Refused now before anything exists.
TEST(CampaignSlurm, AnOutPathWithSpacesIsRefusedBeforeTheTree) {
  TempDir dir;
  const ScopedCurrentPath here(dir.path());
  const std::string root = dir.path() + "/my results";
  std::ostringstream out, err;
  try {
    run_campaign_command({experiment(dir), "--out", root, "--slurm", "--no-submit"}, fake_driver(dir), out, err);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), 2);
    EXPECT_EQ(std::string(e.what()), "--out " + root + ": an #SBATCH line cannot hold a path with spaces or quotes; "
                                     "use a folder whose path has none");
  }
  EXPECT_FALSE(fs::exists(root));
  // '%' starts a Slurm placeholder on the #SBATCH --output line: refused there too.
  const std::string percent = dir.path() + "/a%j";
  try {
    run_campaign_command({experiment(dir), "--out", percent, "--slurm", "--no-submit"}, fake_driver(dir), out, err);
    ADD_FAILURE() << "no error for " << percent;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("is a Slurm placeholder"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(percent));
}

// The "submit it with" line is for pasting into a shell: quoted where the path needs it.
TEST(CampaignSlurm, TheSubmitCommandIsQuoted) {
  TempDir dir;
  const ScopedCurrentPath here(dir.path());
  const std::string root = dir.path() + "/a;b";
  std::ostringstream out, err;
  ASSERT_EQ(run_campaign_command({experiment(dir), "--out", root, "--slurm", "--no-submit"}, fake_driver(dir), out,
                                 err),
            0) << err.str();
  EXPECT_NE(err.str().find("submit it with: sbatch '" + root + "/"), std::string::npos) << err.str();
}

}  // namespace
}  // namespace fmwork
