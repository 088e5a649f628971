// The typed readers of option values (option_values.hpp).
#include "fmwork/base/option_values.hpp"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "fmwork/base/error.hpp"
#include "fmwork/base/text_format.hpp"

namespace fmwork {

std::optional<int64_t> parse_digits(std::string_view text) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string_view::npos) return std::nullopt;
  const size_t first = std::min(text.find_first_not_of('0'), text.size());
  if (text.size() - first > 18) return std::nullopt;
  int64_t value = 0;
  for (const char c : text.substr(first)) value = value * 10 + (c - '0');
  return value;
}

std::optional<int64_t> parse_python_int(std::string_view text) {
  size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
  std::string digits;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c >= '0' && c <= '9') digits.push_back(c);
    else if (c == '_' && !digits.empty() && i + 1 < text.size() && text[i + 1] >= '0' && text[i + 1] <= '9') continue;
    else return std::nullopt;
  }
  if (digits.empty()) return std::nullopt;
  digits.erase(0, std::min(digits.find_first_not_of('0'), digits.size() - 1));  // Python reads 007 as 7
  if (digits.size() > 18) return negative ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int64_t>::max();
  const int64_t v = std::stoll(digits);
  return negative ? -v : v;
}

int64_t read_integer(const std::string& option, const std::string& text, const IntegerRule& rule) {
  const std::optional<int64_t> value = rule.python ? parse_python_int(text) : parse_digits(text);
  if (value && *value >= rule.low && *value <= rule.high) return *value;
  if (!value || !rule.out_of_range)
    throw usage_error(fmt::format("{} expects {}; got '{}'", option, rule.expects, excerpt(text)));
  const bool clamped =
      *value == std::numeric_limits<int64_t>::max() || *value == std::numeric_limits<int64_t>::min();
  throw usage_error(fmt::format("{} {} is out of range: it must be from {} to {}{}", option,
                                clamped ? excerpt(text, 40) : std::to_string(*value), rule.low, rule.high,
                                *rule.out_of_range));
}

double read_decimal(const std::string& option, const std::string& text, const DecimalRule& rule) {
  const std::optional<double> v = parse_decimal(text);  // strict: "0x10" is no 16, "inf" no number
  if (!v || (rule.low_open ? !(*v > rule.low) : !(*v >= rule.low)) || *v > rule.high)
    throw usage_error(fmt::format("{} expects {}; got '{}'", option, rule.expects, excerpt(text)));
  return *v;
}

void read_items(const std::string& text, size_t max_items, const std::string& too_many,
                const std::function<void(const std::string& item)>& each) {
  size_t count = 0;
  for (std::string_view item : split(text, ',')) {
    if (++count > max_items) throw usage_error(too_many);
    each(std::string(item));
  }
}

std::string read_choice(const std::string& option, const std::string& text, const std::vector<std::string>& names) {
  if (std::find(names.begin(), names.end(), text) != names.end()) return text;
  throw usage_error(fmt::format("{} expects one of {}; got '{}'{}", option, joined(names), excerpt(text),
                                did_you_mean(closest_option(text, names))));
}

int64_t integer_within(const std::string& option, int64_t value, int64_t low, int64_t high, const std::string& why) {
  if (value < low)
    throw usage_error(low == 1 ? fmt::format("{} must be a positive integer; got {}", option, value)
                               : fmt::format("{} must be at least {}; got {}", option, low, value));
  if (value > high) throw usage_error(fmt::format("{} must be at most {}{}; got {}", option, high, why, value));
  return value;
}

std::string read_text(const std::string& option, const std::string& text, const std::string& if_empty, bool word) {
  if (text.empty()) throw usage_error(option + " is empty; give " + if_empty);
  if (word && text.find_first_of(" \t\n\v\f\r") != std::string::npos)  // isspace()'s
    throw usage_error(option + " '" + text +
                      "' contains whitespace, which would break the FMWORK RES line (its fields are split on "
                      "spaces); name it without spaces");
  return text;
}

}  // namespace fmwork
