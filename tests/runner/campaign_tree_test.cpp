// Tests of the campaign's tree (campaign_tree.hpp) holding no secret: the experiment's copy, the plan, the
// logs. A shell script stands in for the driver.
#include "fmwork/runner/campaign.hpp"
#include "fmwork/runner/run_complete.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "fmwork/base/json_input.hpp"
#include "support/campaign_fixtures.hpp"
#include "support/temp_dir.hpp"

namespace fmwork {
namespace {

using namespace campaign_fixtures;

// A secret in an experiment file (--model:token, --model:proxies, in the options or the matrix) is in no file
// of the campaign's tree (plan.json, the experiment's copy), in no line --list prints and in no run's argv.
TEST(CampaignTree, ASecretIsInNoFileOfTheTree) {
  TempDir dir;
  const std::string driver = fake_driver(dir), root = dir.path() + "/out";
  experiment(dir);
  const std::string exp = dir.write("secret.json", R"({"defaults": {"options": {"--platform": "cpu",
      "--model_class": "C", "--reps": 2, "--input_sizes": "8,16", "--batch_sizes": "1",
      "--model:token": "hf_SECRET1", "--model:proxies@": "{'https': 'http://u:SECRET2@p:1'}"}},
    "runs": [{"id": "a", "matrix": {"--model_name": ["m1", "m2"], "--model:use_auth_token": ["SECRET3", "SECRET4"]}}]})");
  std::ostringstream listed, err0;
  EXPECT_EQ(run_campaign_command({exp, "--list"}, driver, listed, err0), 0) << err0.str();
  EXPECT_EQ(listed.str().find("SECRET"), std::string::npos) << listed.str();
  EXPECT_NE(listed.str().find("--model:token '<not shown>'"), std::string::npos) << listed.str();
  std::ostringstream out, err;
  EXPECT_EQ(run_campaign_command({exp, "--out", root}, driver, out, err), 0) << err.str();
  const std::string campaign = only_child(only_child(only_child(root)));
  for (const std::string file : {"/plan.json", "/experiment.json", "/environment.json", "/logs/a.1.log"})
    EXPECT_EQ(slurp(campaign + file).find("SECRET"), std::string::npos) << file << ":\n" << slurp(campaign + file);
  EXPECT_EQ(err.str().find("SECRET"), std::string::npos) << err.str();
  EXPECT_EQ(read_json_file(campaign + "/plan.json")["runs"][0]["matrix"]["model:use_auth_token"], "<not shown>");
  EXPECT_EQ(read_json_file(campaign + "/experiment.json")["defaults"]["options"]["--model:token"], "<not shown>");
  // Without a secret, the copy is the file byte for byte (RunsEveryRunIntoTheTree...); a plan of an older
  // driver that holds one is read without it.
  std::ofstream(campaign + "/plan.json", std::ios::trunc)
      << R"({"experiment": "x", "runs": [{"id": "a.1", "run": "a", "matrix": {"model:token": "SECRET5"},
           "argv": ["--model:token", "SECRET5", "--model_name", "m1"]}]})";
  std::ostringstream relisted, err2;
  EXPECT_EQ(run_campaign_command({"--resume", campaign, "--list"}, driver, relisted, err2), 0) << err2.str();
  EXPECT_EQ(relisted.str(), "driver --model:token '<not shown>' --model_name m1  # a.1\n");
}

}  // namespace
}  // namespace fmwork
