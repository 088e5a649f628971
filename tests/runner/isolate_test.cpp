// Tests of isolate's pieces that need no child: the variable that names a child's combination, its checks
// against the command line, and the FAIL text of a killed child. The isolated runs themselves are in
// tests/integration/isolate_driver_test.cpp.
#include "fmwork/runner/isolate.hpp"

#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <sstream>

#include <gtest/gtest.h>

#include "fmwork/cli/cli.hpp"
#include "fmwork/base/error.hpp"

namespace fmwork {
namespace {

std::string usage_message(const std::function<void()>& body) {
  try {
    body();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "expected a usage Error";
  return "";
}

FixedArgs sweep(bool isolate) {
  FixedArgs args;
  args.batch_sizes = {1, 4};
  args.input_sizes = {64, 128};
  args.isolate = isolate;
  return args;
}

TEST(Isolate, TheVariableRoundTrips) {
  EXPECT_EQ(isolated_child_spec({4, 128, true, 77}), "batch=4 input=128 sections=all parent=77");
  EXPECT_EQ(isolated_child_spec({1, 64, false, 9}), "batch=1 input=64 sections=run parent=9");
  const IsolatedChild child = parse_isolated_child("batch=4 input=128 sections=run parent=77");
  EXPECT_EQ(child.batch, 4);
  EXPECT_EQ(child.input, 128);
  EXPECT_FALSE(child.sections);
  EXPECT_EQ(child.parent, 77);
}

TEST(Isolate, AnyOtherValueIsRefused) {
  for (const char* bad : {"", "batch=4", "batch=4 input=128", "batch=4 input=128 sections=all",
                          "batch=4 input=128 sections=some parent=1", "input=128 batch=4 sections=all parent=1",
                          "batch=-4 input=128 sections=all parent=1", "batch=4 input=1e3 sections=all parent=1",
                          "batch=4  input=128 sections=all parent=1", "batch=4 input=128 sections=all parent=1 ",
                          "batch=4 input=128 sections=all parent=x"}) {
    SCOPED_TRACE(bad);
    EXPECT_EQ(usage_message([&] { parse_isolated_child(bad); }),
              std::string("FMWORK_ISOLATED_CHILD='") + bad +
                  "' is not what the driver sets; `driver --isolate` sets it for its children only");
  }
}

class IsolateEnvTest : public ::testing::Test {
 protected:
  void TearDown() override { unsetenv(kIsolatedChildVariable); }
  // The variable as this process's parent would set it for the combination.
  static std::string from_parent(const std::string& combination) {
    return combination + " parent=" + std::to_string(::getppid());
  }
};

TEST_F(IsolateEnvTest, AChildIsTheVariableWithIsolate) {
  std::ostringstream err;
  unsetenv(kIsolatedChildVariable);
  EXPECT_FALSE(isolated_child(sweep(true), err).has_value());
  setenv(kIsolatedChildVariable, from_parent("batch=4 input=64 sections=all").c_str(), 1);
  EXPECT_FALSE(isolated_child(sweep(false), err).has_value());  // the variable alone does nothing
  const auto child = isolated_child(sweep(true), err);
  ASSERT_TRUE(child.has_value());
  EXPECT_EQ(child->batch, 4);
  EXPECT_EQ(child->input, 64);
  EXPECT_EQ(err.str(), "");
  setenv(kIsolatedChildVariable, from_parent("batch=2 input=64 sections=all").c_str(), 1);
  EXPECT_EQ(usage_message([&] { isolated_child(sweep(true), err); }),
            "FMWORK_ISOLATED_CHILD: batch 2 / input 64 is not a combination of --batch_sizes and --input_sizes");
}

// The variable left in a top-level run's environment (another parent's, an older format, a hand-made one)
// does not make it a child: it is ignored with one note, and the run is a whole run.
TEST_F(IsolateEnvTest, AVariableNotFromTheParentIsIgnoredWithANote) {
  const std::string not_parent = std::to_string(::getppid() + 1);
  for (const std::string stray : {"batch=4 input=64 sections=all parent=" + not_parent, std::string("batch=4 input=64 sections=all"),
                                  std::string("yes")}) {
    setenv(kIsolatedChildVariable, stray.c_str(), 1);
    std::ostringstream err;
    EXPECT_FALSE(isolated_child(sweep(true), err).has_value()) << stray;
    EXPECT_EQ(err.str(), "note: FMWORK_ISOLATED_CHILD='" + stray + "' was not set by this process's parent (pid " +
                             std::to_string(::getppid()) + "); ignored: this is a top-level run\n");
  }
}

TEST(Isolate, AKilledChildsFailureNamesTheSignalAndThePeak) {
  EXPECT_EQ(killed_child_error(SIGKILL, int64_t{3435973837}),
            "the isolated process was killed by SIGKILL (signal 9; peak memory 3.2 GiB): the kernel's OOM killer is "
            "the likely cause (or a kill -9)");
  EXPECT_EQ(killed_child_error(SIGSEGV, int64_t{200} << 20),
            "the isolated process was killed by SIGSEGV (signal 11; peak memory 200 MiB): a crash in native code (the "
            "model's operators, LibTorch or a plugin)");
  EXPECT_EQ(killed_child_error(SIGTERM, 0), "the isolated process was killed by SIGTERM (signal 15; peak memory unknown)");
}

}  // namespace
}  // namespace fmwork
