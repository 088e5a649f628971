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

// Defects: "--format: 1 required FORMAT:{json,csv,summary,html} missing", "Could not convert: --upstream =
// garbage" and "--max-tasks: Value x not in range 1 to 1000000" reached users as CLI11 wrote them.
TEST(ParseErrors, ValuesAreToldInOurWords) {
  EXPECT_EQ(parse_error_text("--format: 1 required FORMAT:{json,csv,summary,html} missing"),
            "--format needs a value: one of json, csv, summary, html");
  EXPECT_EQ(parse_error_text("--out: 1 required TEXT missing"), "--out needs a value");
  EXPECT_EQ(parse_error_text("--max-tasks: 1 required UINT missing"), "--max-tasks needs a value: a whole number");
  EXPECT_EQ(parse_error_text("Could not convert: --upstream = garbage"),
            "--upstream is a flag and takes no value (got garbage); give --upstream alone");
  EXPECT_EQ(parse_error_text("--list: Should be true/false or a number"),
            "--list is a flag and takes no value; give --list alone");
  EXPECT_EQ(parse_error_text("--max-tasks: Value x not in range 1 to 1000000"),
            "--max-tasks x: give a value from 1 to 1000000");
  EXPECT_EQ(parse_error_text("The value 7 is not an allowed value for --mode"), "--mode 7: not a value it takes");
}

// Defect: `process --<100,000 characters>` died by SIGSEGV, std::regex recursing over CLI11's message,
// which quotes the word whole; the word now comes back as an excerpt in one short line.
TEST(ParseErrors, AHugeWordIsExcerptedNotRecursedOver) {
  const std::string word = "--" + std::string(100000, 'a');
  CLI::App app{"test"};
  std::string format;
  app.add_option("--format", format);
  std::vector<const char*> argv = {"test", word.c_str()};
  std::string message;
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    message = e.what();
  }
  ASSERT_NE(message.find(word), std::string::npos) << "CLI11 quotes the word whole";
  const std::string line = parse_error_line(app, message, {word});
  EXPECT_EQ(line, "unknown option --" + std::string(78, 'a') + "...") << "no guess for a pasted value either";
  EXPECT_LE(parse_error_text(std::string(100000, 'x')).size(), 203u);
}

}  // namespace
}  // namespace fmwork
