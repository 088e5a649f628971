// The option row's help line and unknown-option message (option_row.hpp).
#include "fmwork/cli/option_row.hpp"

#include "fmwork/base/error.hpp"
#include "fmwork/base/text_format.hpp"

namespace fmwork {

std::string option_help_line(std::string left, size_t width, const std::string& help) {
  if (left.size() < width) left.resize(width, ' ');
  else left += "  ";
  return left + help + "\n";
}

std::string unknown_option(const std::string& word, const std::vector<std::string>& names) {
  return "unknown option " + excerpt(word) + did_you_mean(closest_option(word, names));
}

}  // namespace fmwork
