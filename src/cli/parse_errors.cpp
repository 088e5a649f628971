// CLI11's parse errors in our words (see parse_errors.hpp).
#include "fmwork/cli/parse_errors.hpp"

#include <regex>

namespace fmwork {

std::string parse_error_text(const std::string& message) {
  std::smatch m;
  static const std::regex at_most("^(\\S+): At Most ([0-9]+) required but received ([0-9]+)$");
  static const std::regex at_least("^(\\S+): At least ([0-9]+) required but received ([0-9]+)$");
  static const std::regex exactly("^Expected exactly ([0-9]+) arguments? to (\\S+), got ([0-9]+)$");
  if (std::regex_match(message, m, at_most)) {
    if (m[2] == "1") return m[1].str() + " is given " + m[3].str() + " times; give it once";
    return m[1].str() + " takes at most " + m[2].str() + " values; got " + m[3].str();
  }
  if (std::regex_match(message, m, at_least))
    return m[1].str() + " takes at least " + m[2].str() + " values; got " + m[3].str();
  if (std::regex_match(message, m, exactly))
    return m[2].str() + " takes " + m[1].str() + " values; got " + m[3].str();
  return message;
}

}  // namespace fmwork
