// Tests of parse_errors: CLI11's own phrases never reach a user.
#include "fmwork/cli/parse_errors.hpp"

#include <gtest/gtest.h>

namespace fmwork {
namespace {

TEST(ParseErrors, CountsAreToldInOurWords) {
  EXPECT_EQ(parse_error_text("--format: At Most 1 required but received 2"), "--format is given 2 times; give it once");
  EXPECT_EQ(parse_error_text("--x: At Most 3 required but received 4"), "--x takes at most 3 values; got 4");
  EXPECT_EQ(parse_error_text("--compare: At least 2 required but received 1"), "--compare takes at least 2 values; got 1");
  EXPECT_EQ(parse_error_text("Expected exactly 2 arguments to --compare, got 1"), "--compare takes 2 values; got 1");
  EXPECT_EQ(parse_error_text("--format: xml not in {json,csv}"), "--format: xml not in {json,csv}");
}

}  // namespace
}  // namespace fmwork
