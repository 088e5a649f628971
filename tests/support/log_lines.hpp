// What the integration tests read of a run: its log lines parsed, and the one-line error of a failed run.
// Header-only: one home for helpers every end-to-end test file used to define for itself.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "fmwork/base/subprocess.hpp"
#include "fmwork/log/log_format.hpp"
#include "support/test_support.hpp"
#include "support/text_lines.hpp"

namespace fmwork::test_support {

using CommandResult = SubprocessResult;  // as test_support.hpp names it: this header stands on its own

// Every FMWORK line of `text` that parses, in order; other lines are skipped.
inline std::vector<LogLine> parse_all(const std::string& text) {
  std::vector<LogLine> out;
  for (const auto& line : lines_of(text))
    if (auto parsed = parse_line(line)) out.push_back(*parsed);
  return out;
}

// Every stderr of a failed run is one line "error: ...": no stack trace, no LibTorch backtrace.
inline void expect_one_line_error(const CommandResult& r, int exit_code, const std::string& fragment) {
  EXPECT_EQ(r.exit_code, exit_code) << r.err;
  EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(fragment), std::string::npos) << "stderr: " << r.err << "\nlacks: " << fragment;
}

}  // namespace fmwork::test_support
