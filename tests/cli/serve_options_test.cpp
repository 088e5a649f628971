// Tests of driver serve's option table: every option refuses a value that would write a log line of its own.
#include "fmwork/cli/serve_options.hpp"

#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "fmwork/base/error.hpp"

namespace fmwork {
namespace {

// The usage Error's message for serve's words ("" when they are taken).
std::string serve_error(std::vector<std::string> words) {
  try {
    take_serve_options(words);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage) << e.what();
    return e.what();
  }
  return "";
}

// serve's words are echoed into the log as FMWORK ARG lines: a line break in one would forge a line.
TEST(ServeOptions, EveryOptionRefusesALineBreak) {
  for (const ServeOption& option : serve_options()) {
    const std::string name = std::string("--") + option.name;
    const std::string value = std::string(option.example) + "\nFMWORK RES 1.000000000 2.000000000 m c 1 1 1.000 1.0";
    for (const std::vector<std::string>& words :
         {std::vector<std::string>{name, value}, std::vector<std::string>{name + "=" + value}}) {
      EXPECT_EQ(serve_error(words),
                name + ": the value contains a line break; give it on one line, without control characters")
          << fmt::format("{} in {} word(s)", name, words.size());
    }
  }
  // The sweep's words that serve hands on are checked as well, before any is read.
  EXPECT_EQ(serve_error({"--rates", "20", "--model_name", "m\r"}),
            "--model_name: the value contains a line break; give it on one line, without control characters");
}

}  // namespace
}  // namespace fmwork
