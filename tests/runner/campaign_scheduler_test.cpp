// Tests of the local scheduler's pieces that need no run: the --devices list (checked before a campaign
// folder exists) and the progress line. The runs over slots are campaign_test's.
#include "fmwork/runner/campaign_scheduler.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "fmwork/base/error.hpp"
#include "fmwork/cli/platform_rules.hpp"
#include "support/scoped_env.hpp"
#include "support/temp_dir.hpp"

namespace fmwork {
namespace {

using test_support::ScopedEnv;

std::string devices_error(const std::string& text) {
  try {
    parse_devices(text);
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), 2) << text;
    return e.what();
  }
  ADD_FAILURE() << "no error for --devices " << text;
  return "";
}

TEST(CampaignScheduler, DevicesAreBuiltInPlatformsOrPluginsFound) {
  TempDir plugins;
  for (const std::string name : {"refdev", "my_dev-1.0"}) std::ofstream(plugins.path() + "/" + plugin_file_name(name));
  const ScopedEnv path(kPluginPathVariable, plugins.path());
  EXPECT_EQ(parse_devices("cuda:0,cuda:1"), (std::vector<std::string>{"cuda:0", "cuda:1"}));
  EXPECT_EQ(parse_devices("cpu,cpu"), (std::vector<std::string>{"cpu", "cpu"}));
  EXPECT_EQ(parse_devices("cuda,refdev,my_dev-1.0"), (std::vector<std::string>{"cuda", "refdev", "my_dev-1.0"}));
  EXPECT_THROW(parse_devices("cpu,"), Error);
}

// Defect: --devices CPU passed (a plugin's name, by its letters) and every run of the campaign then failed
// on "no plugin libfmwork_platform_CPU.so". Refused now, before the campaign starts, as --platform would be.
TEST(CampaignScheduler, ADeviceThatIsNoPluginFoundIsRefusedAtOnce) {
  TempDir plugins;
  const ScopedEnv path(kPluginPathVariable, plugins.path());
  const std::string message = devices_error("cpu,CPU");
  EXPECT_EQ(message.rfind("--devices cpu,CPU: 'CPU' is not a built-in platform (cpu, cuda, cuda:N) and no plugin "
                          "libfmwork_platform_CPU.so was found; tried " + plugins.path() + "/libfmwork_platform_CPU.so",
                          0), 0u) << message;
  const std::string tail = "(set FMWORK_PLUGIN_PATH to the folder that holds it); did you mean cpu?";
  ASSERT_GE(message.size(), tail.size()) << message;
  EXPECT_EQ(message.substr(message.size() - tail.size()), tail) << message;
  EXPECT_EQ(devices_error("no_such_dev").find("did you mean"), std::string::npos);
  // A folder of that name is not a library.
  std::filesystem::create_directory(plugins.path() + "/" + plugin_file_name("dir"));
  const std::string dir_error = devices_error("dir");
  EXPECT_NE(dir_error.find("no plugin libfmwork_platform_dir.so was found"), std::string::npos) << dir_error;
  EXPECT_NE(dir_error.find("/libfmwork_platform_dir.so is there but is not a regular file"), std::string::npos)
      << dir_error;
}

// Bounds: a name goes into file names and messages, each name is a thread and a process at once.
TEST(CampaignScheduler, DeviceNamesAndListsAreBounded) {
  EXPECT_NE(devices_error(std::string(65, 'x')).find("is not a platform name"), std::string::npos);
  std::string many = "cpu";
  for (size_t i = 1; i < kMaxDevices; ++i) many += ",cpu";
  EXPECT_EQ(parse_devices(many).size(), kMaxDevices);
  EXPECT_EQ(devices_error(many + ",cpu"), "--devices: more than 256 names; a runner runs at most 256 runs at once");
}

TEST(CampaignScheduler, ProgressLine) {
  EXPECT_EQ(progress_line(0, 0, 8, 0, 0), "campaign: 0 done, 0 failed, 8 left (0 running), elapsed 0:00");
  EXPECT_EQ(progress_line(3, 1, 4, 2, 42), "campaign: 3 done, 1 failed, 4 left (2 running), elapsed 0:42, about 0:42 to go");
}

}  // namespace
}  // namespace fmwork
