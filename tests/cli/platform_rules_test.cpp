// Tests of platform_rules: the rules a platform declares, checked against command lines; where a plugin is
// looked for.
#include "fmwork/cli/platform_rules.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "fmwork/cli/cli.hpp"
#include "fmwork/base/error.hpp"
#include "support/scoped_env.hpp"

namespace fmwork {
namespace {

CommandLine with(std::vector<std::string> words) {
  std::vector<std::string> all = {"driver", "--platform", "dev", "--model_class", "M", "--model_name", "m.pt"};
  all.insert(all.end(), words.begin(), words.end());
  std::vector<const char*> argv;
  for (const auto& w : all) argv.push_back(w.c_str());
  return parse_command_line(static_cast<int>(argv.size()), argv.data());
}

std::string runtime_error_of(const std::function<void()>& body) {
  try {
    body();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::runtime) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no Error thrown";
  return {};
}

TEST(PlatformRules, GenericRequirements) {
  PlatformConstraints c;
  c.required = {{"eval", "True", true, ""},
                {"model:torch_dtype", "torch.float16", true, "the device computes in half precision"},
                {"compile:options:x:y", "1", true, ""}};
  auto refusals = check_constraints("dev", c, with({"--input_sizes", "8", "--batch_sizes", "1", "--reps",
                                                                 "3", "--compile:options:x:y@", "2"}));
  ASSERT_EQ(refusals.size(), 3u);
  EXPECT_EQ(refusals[0], "--platform dev requires --eval (not given).");
  EXPECT_EQ(refusals[1], "--platform dev requires --model:torch_dtype@ torch.float16 (not given): the device "
                         "computes in half precision.");
  EXPECT_EQ(refusals[2], "--platform dev requires --compile:options:x:y@ 1 (got --compile:options:x:y@ 2).");
  EXPECT_TRUE(check_constraints("dev", c, with({"--input_sizes", "8", "--batch_sizes", "1", "--reps",
                                                             "3", "--eval", "--model:torch_dtype@", "torch.float16",
                                                             "--compile:options:x:y@", "1"}))
                  .empty());

  EXPECT_EQ(format_requirement({"compile", "True", true, ""}), "--compile");
  EXPECT_EQ(format_requirement({"compile:backend", "sendnn", false, ""}), "--compile:backend sendnn");

  PlatformConstraints bad;
  bad.required = {{"nosuchset:key", "1", true, ""}};
  auto message = runtime_error_of(
      [&] { check_constraints("dev", bad, with({"--input_sizes", "8", "--batch_sizes", "1", "--reps", "3"})); });
  EXPECT_NE(message.find("the plugin declares an invalid requirement 'nosuchset:key'"), std::string::npos) << message;
}

TEST(PlatformRules, SingleSizesNameWhatWasGiven) {
  PlatformConstraints c;
  c.single_input_size = true;
  c.single_input_reason = "one shape per compile";
  c.single_batch_size = true;
  auto refusals = check_constraints("dev", c, with({"--input_sizes", "64,128", "--batch_sizes", "1,4,8", "--reps", "3"}));
  ASSERT_EQ(refusals.size(), 2u);
  EXPECT_EQ(refusals[0], "--platform dev requires a single --input_sizes value or --isolate (got 2: 64,128): one shape per compile.");
  EXPECT_EQ(refusals[1], "--platform dev requires a single --batch_sizes value or --isolate (got 3: 1,4,8).");
  EXPECT_TRUE(check_constraints("dev", c, with({"--input_sizes", "64", "--batch_sizes", "1", "--reps", "3"})).empty());
  // --isolate gives each combination a process of its own: one shape per process, as the rules ask.
  EXPECT_TRUE(
      check_constraints("dev", c, with({"--input_sizes", "64,128", "--batch_sizes", "1,4,8", "--reps", "3", "--isolate"}))
          .empty());
}

TEST(PlatformRules, InvalidRequirementsArePluginBugs) {
  for (const PlatformRequirement& r : std::vector<PlatformRequirement>{{"compile", "yes", false, ""},
                                                                       {"compile:", "1", true, ""},
                                                                       {"model:x", "[1,", true, ""}}) {
    SCOPED_TRACE(r.option + " " + r.value);
    runtime_error_of([&] { validate_requirement("dev", r); });
  }
  validate_requirement("dev", {"compile", "True", true, ""});  // valid: no throw
}

TEST(PlatformRules, SuggestionOffersTheBuiltInOneTypoAway) {
  EXPECT_EQ(platform_suggestion("cup"), "; did you mean cpu?");
  EXPECT_EQ(platform_suggestion("CPU"), "; did you mean cpu?");
  EXPECT_EQ(platform_suggestion("cdua"), "; did you mean cuda?");
  EXPECT_EQ(platform_suggestion("spyre"), "") << "a plugin's name: no guess";
  EXPECT_EQ(platform_suggestion("cuda:x"), "") << "a bad index has its own message";
}

TEST(PlatformRules, PluginFileNameAndSearchFoldersInOrder) {
  EXPECT_EQ(plugin_file_name("spyre"), "libfmwork_platform_spyre.so");
  const test_support::ScopedEnv path(kPluginPathVariable, "/first::/second/");
  const std::vector<std::string> dirs = plugin_search_dirs();
  ASSERT_EQ(dirs.size(), 4u);
  EXPECT_EQ(dirs[0], "/first");
  EXPECT_EQ(dirs[1], "/second/");
  const auto exe = std::filesystem::read_symlink("/proc/self/exe").parent_path();
  EXPECT_EQ(dirs[2], (exe / "plugins").string());
  EXPECT_EQ(dirs[3], (exe.parent_path() / "lib" / "fmwork").string());
}

}  // namespace
}  // namespace fmwork
