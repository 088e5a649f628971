// The typed readers of option values: every command's options (driver, driver serve, driver run, process),
// sub-option keys and torch settings read a number, a list, a choice or a word through these, so that a
// value is checked once, at the edge, and every refusal is one line that names the option as typed and says
// what would be right: "--users expects a number of users from 1 to 100000; got '0'".
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fmwork {

// Plain digits, at most 18 after leading zeros (so that no int64_t overflows); nullopt for anything else (a
// sign, a space, an underscore, the empty text).
std::optional<int64_t> parse_digits(std::string_view text);

// Python's int() of a command-line word: an optional sign, digits with single underscores between them (1_000),
// leading zeros. A value past int64_t (more than 18 digits after the zeros) is clamped to the int64_t limit of
// its sign, which no range admits; nullopt for a text that is no integer.
std::optional<int64_t> parse_python_int(std::string_view text);

// How an integer is written, and the range it must fall in.
struct IntegerRule {
  int64_t low = 0;
  int64_t high = 0;
  // What the value must be, for "OPTION expects EXPECTS; got 'TEXT'": said for a text that is no integer, and
  // for one out of range unless `out_of_range` is given.
  std::string expects;
  // When set, a value out of range is "OPTION VALUE is out of range: it must be from LOW to HIGH<out_of_range>"
  // (a unit, or why the bound is there), VALUE as given when it is past int64_t.
  std::optional<std::string> out_of_range = std::nullopt;
  bool python = false;  // Python's int() spelling (parse_python_int) instead of plain digits
};

// `text` read as `rule` says; a usage Error naming `option` otherwise.
int64_t read_integer(const std::string& option, const std::string& text, const IntegerRule& rule);

// A decimal (parse_decimal: "20", "2.5", "1e3"; no sign, no hex, no inf) within [low, high], or (low, high] when
// `low_open`; a usage Error "OPTION expects EXPECTS; got 'TEXT'" otherwise.
struct DecimalRule {
  double low = 0;
  bool low_open = false;
  double high = 0;
  std::string expects;
};
double read_decimal(const std::string& option, const std::string& text, const DecimalRule& rule);

// Splits `text` on commas and hands each item, in order, to `each` (which reads it, throwing the usage Error for a
// bad one; an empty item is handed on like any other). Past `max_items` items: a usage Error `too_many`.
void read_items(const std::string& text, size_t max_items, const std::string& too_many,
                const std::function<void(const std::string& item)>& each);

// One of `names`: the name itself, or a usage Error "OPTION expects one of A, B, C; got 'TEXT'" with "; did you
// mean B?" where one is close (closest_option).
std::string read_choice(const std::string& option, const std::string& text, const std::vector<std::string>& names);

// A number already read (a typed `@` value, an environment variable's), held to [low, high]: a usage Error
// "OPTION must be a positive integer; got V" below a low of 1 (else "must be at least LOW"), and
// "OPTION must be at most HIGH<why>; got V" above high.
int64_t integer_within(const std::string& option, int64_t value, int64_t low, int64_t high, const std::string& why = "");

// A value that must not be empty: a usage Error "OPTION is empty; give IF_EMPTY". With `word`, also one
// without whitespace (it goes into a line whose fields are split on spaces): "OPTION 'T' contains whitespace,
// which would break ... ; name it without spaces".
std::string read_text(const std::string& option, const std::string& text, const std::string& if_empty, bool word = false);

}  // namespace fmwork
