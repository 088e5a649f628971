// The job array's pieces without a cluster: the checks on --slurm:KEY VALUE, the --array list, the script.
// tests/slurm/campaign_test.sh submits real arrays to a one-node cluster.
#include "fmwork/runner/slurm.hpp"

#include <gtest/gtest.h>

#include "fmwork/base/error.hpp"

namespace fmwork {
namespace {

std::string usage_message(const std::string& key, const std::string& value) {
  try {
    sbatch_option(key, value);
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), 2) << e.what();
    return e.what();
  }
  return "no error";
}

TEST(Slurm, SbatchOptionsAreLongOptionNamesWithOneWordValues) {
  EXPECT_EQ(sbatch_option("partition", "gpu"), (SbatchOption{"partition", "gpu"}));
  EXPECT_EQ(sbatch_option("gres", "gpu:h100:1"), (SbatchOption{"gres", "gpu:h100:1"}));
  EXPECT_EQ(sbatch_option("exclusive", ""), (SbatchOption{"exclusive", ""}));
  EXPECT_EQ(usage_message("Partition", "x"),
            "--slurm:Partition: the key is an sbatch long option without its dashes (partition, time, gres, account, "
            "cpus-per-task, ...)");
  EXPECT_EQ(usage_message("-p", "x").substr(0, 12), "--slurm:-p: ");
  EXPECT_EQ(usage_message("array", "0-3"),
            "--slurm:array: the runner sets --array itself (the array is the runs to do, output goes to the campaign "
            "folder); leave it out");
  for (const char* owned : {"output", "error", "chdir", "wait", "parsable", "wrap"})
    EXPECT_NE(usage_message(owned, "x").find("the runner sets"), std::string::npos) << owned;
  EXPECT_EQ(usage_message("comment", "two words"),
            "--slurm:comment two words: a value without spaces or quotes (an #SBATCH line is read word by word)");
  EXPECT_NE(usage_message("comment", "a\nb").find("a\\nb"), std::string::npos);
  EXPECT_NE(usage_message("comment", "\"x\"").find("without spaces or quotes"), std::string::npos);
}

TEST(Slurm, ArraySpecMakesRangesOfConsecutiveRuns) {
  EXPECT_EQ(array_spec({0}), "0");
  EXPECT_EQ(array_spec({0, 1, 2, 3}), "0-3");
  EXPECT_EQ(array_spec({8, 7, 5, 0, 1, 2, 3, 3}), "0-3,5,7-8");
  EXPECT_EQ(array_spec({1, 3, 5}), "1,3,5");
}

SlurmJob job_of(const std::string& campaign_dir, const std::string& driver, std::vector<size_t> indices) {
  SlurmJob job;
  job.campaign_dir = campaign_dir;
  job.driver = driver;
  job.workdir = "/home/me/work";
  job.name = "fmwork-20260101-120000";
  job.indices = std::move(indices);
  return job;
}

TEST(Slurm, ScriptRunsEachTaskAsOneRunOfTheCampaign) {
  SlurmJob job = job_of("/shared/results/me/host/20260101-120000", "/opt/fmwork/driver", {0, 1, 2, 5});
  job.options = {{"partition", "gpu"}, {"gres", "gpu:1"}, {"exclusive", ""}};
  const std::string script = sbatch_script(job);
  EXPECT_EQ(script.rfind("#!/bin/bash\n", 0), 0u) << script;
  for (const char* line : {"#SBATCH --job-name=fmwork-20260101-120000\n", "#SBATCH --array=0-2,5\n",
                           "#SBATCH --chdir=/home/me/work\n",
                           "#SBATCH --output=/shared/results/me/host/20260101-120000/slurm/%A_%a.out\n",
                           "#SBATCH --partition=gpu\n", "#SBATCH --gres=gpu:1\n", "#SBATCH --exclusive\n",
                           "\nexec /opt/fmwork/driver run --task /shared/results/me/host/20260101-120000 "
                           "\"$SLURM_ARRAY_TASK_ID\"\n"})
    EXPECT_NE(script.find(line), std::string::npos) << line << "\nin:\n" << script;
  job.max_running = 4;
  EXPECT_NE(sbatch_script(job).find("#SBATCH --array=0-2,5%4\n"), std::string::npos);
  // The user's options come after the defaults: sbatch takes the last of an option given twice.
  EXPECT_LT(script.find("--output="), script.find("--partition="));
}

TEST(Slurm, PathsThatAnSbatchLineCannotHoldAreRefused) {
  SlurmJob job = job_of("/tmp/my results/x", "/opt/d", {0});
  try {
    sbatch_script(job);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "--out /tmp/my results/x: an #SBATCH line cannot hold a path with spaces or "
                                     "quotes; use a folder whose path has none");
  }
  job.campaign_dir = "/tmp/x";
  job.driver = "/opt/my driver/driver";  // the exec line is shell-quoted: spaces are fine there
  EXPECT_NE(sbatch_script(job).find("exec '/opt/my driver/driver' run --task /tmp/x"), std::string::npos);
}

}  // namespace
}  // namespace fmwork
