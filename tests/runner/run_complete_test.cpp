// Tests of whether a campaign's run is complete (run_complete.hpp) where its log was cut short; the runner's
// own tests (campaign_test.cpp) hold the rest of what completeness means. A shell script stands in for the
// driver.
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

// A log whose last line was cut mid-value but still parses (a throughput 1000.0 cut to 100) is no complete
// run: its last combination's line has no newline. Resume runs it again, and the rerun's log replaces it.
TEST(RunComplete, ALogCutMidValueIsNotCompleteAndResumeRunsIt) {
  TempDir dir;
  const std::string res8 = "FMWORK RES 1.000000000 2.000000000 m C 8 1 1.000 1000.0\n";
  const std::string res16 = "FMWORK RES 1.000000000 2.000000000 m C 16 1 1.000 1000.0";
  EXPECT_TRUE(run_log_complete(dir.write("whole.log", res8 + res16 + "\n"), kArgv));
  for (size_t cut = res16.find(" 16 1 ") + 5; cut < res16.size(); ++cut)
    EXPECT_FALSE(run_log_complete(dir.write("cut.log", res8 + res16.substr(0, cut)), kArgv)) << res16.substr(0, cut);
  EXPECT_FALSE(run_log_complete(dir.write("unended.log", res8 + res16), kArgv));

  const std::string driver = fake_driver(dir), exp = experiment(dir), root = dir.path() + "/out";
  std::ostringstream out, err;
  run_campaign_command({exp, "--out", root}, driver, out, err);
  const std::string campaign = only_child(only_child(only_child(root)));
  const std::string log = campaign + "/logs/a.1.log", whole = slurp(log);
  ASSERT_EQ(whole.substr(whole.size() - 7), "1000.0\n") << whole;
  std::ofstream(log, std::ios::trunc) << whole.substr(0, whole.size() - 4);  // "... 1.000 100"
  std::ostringstream out2, err2;
  run_campaign_command({"--resume", campaign}, driver, out2, err2);
  EXPECT_NE(err2.str().find("1 of 3 runs to do (the others are complete)"), std::string::npos) << err2.str();
  EXPECT_EQ(slurp(log), whole);
}

}  // namespace
}  // namespace fmwork
