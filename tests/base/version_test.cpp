#include "fmwork/base/version.hpp"

#include <string>

#include <gtest/gtest.h>

namespace fmwork {
namespace {

TEST(Version, NamesTheProgramTheReleaseAndTheRevisionWhenGiven) {
  EXPECT_EQ(version_text("process"), std::string("process ") + FMWORK_VERSION + " (fmwork-cpp)\n");
  EXPECT_EQ(version_text("driver", "4f2a9c1"), std::string("driver ") + FMWORK_VERSION + " (fmwork-cpp, git 4f2a9c1)\n");
}

}  // namespace
}  // namespace fmwork
