// What the tests of the HTML report (svg_chart, html_report) share: counting elements in the markup.
#pragma once

#include <cstddef>
#include <string>

namespace fmwork {
namespace html_fixtures {

// Non-overlapping occurrences of `needle` in `text`.
inline size_t count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + needle.size())) ++n;
  return n;
}

}  // namespace html_fixtures
}  // namespace fmwork
