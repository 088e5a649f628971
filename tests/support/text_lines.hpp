// Lines of a text by how they start, for tests of the help and the docs the code writes. Header-only, so
// that the core's tests and the LibTorch tests can both use it.
#pragma once

#include <sstream>
#include <string>
#include <vector>

namespace fmwork::test_support {

// The line of `text` after its first that starts with `start`, without its newline ("" when none does).
inline std::string line_starting(const std::string& text, const std::string& start) {
  const size_t at = text.find("\n" + start);
  if (at == std::string::npos) return "";
  return text.substr(at + 1, text.find('\n', at + 1) - at - 1);
}

// The lines of `text`, without their newlines.
inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace fmwork::test_support
