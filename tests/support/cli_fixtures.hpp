// Shared by the command-line tests: a command line parsed from its words, as the driver gets them, and the
// usage line an option's reader refuses a value with.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "fmwork/base/error.hpp"
#include "fmwork/cli/cli.hpp"

namespace fmwork::cli_fixtures {

// parse_command_line of "driver" followed by `words`.
inline CommandLine parse(const std::vector<std::string>& words) {
  std::vector<const char*> argv{"driver"};
  for (const auto& w : words) argv.push_back(w.c_str());
  return parse_command_line(static_cast<int>(argv.size()), argv.data());
}

// The message of the usage Error `read` throws (a test failure when it throws another kind); "" when it throws
// none.
inline std::string usage_refusal(const std::function<void()>& read) {
  try {
    read();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage) << e.what();
    return e.what();
  }
  return "";
}

}  // namespace fmwork::cli_fixtures
