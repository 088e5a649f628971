// Shared by the command-line tests: a command line parsed from its words, as the driver gets them.
#pragma once

#include <string>
#include <vector>

#include "fmwork/cli/cli.hpp"

namespace fmwork::cli_fixtures {

// parse_command_line of "driver" followed by `words`.
inline CommandLine parse(const std::vector<std::string>& words) {
  std::vector<const char*> argv{"driver"};
  for (const auto& w : words) argv.push_back(w.c_str());
  return parse_command_line(static_cast<int>(argv.size()), argv.data());
}

}  // namespace fmwork::cli_fixtures
