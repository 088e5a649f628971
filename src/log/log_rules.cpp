// The value rules of FMWORK lines (see log_rules.hpp): shared by the line writers and the line parsers.
#include "log_rules.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace fmwork::log_rules {
namespace {

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

const std::string* find_item(const FieldItems& items, std::string_view key) {
  for (const auto& item : items)
    if (item.first == key) return &item.second;
  return nullptr;
}

// "pass|fail" -> "pass or fail"
std::string choices_text(std::string_view choices) {
  std::string out;
  for (char c : choices) out += c == '|' ? std::string(" or ") : std::string(1, c);
  return out;
}

}  // namespace

bool is_choice(std::string_view choices, std::string_view value) {
  size_t start = 0;
  while (true) {
    size_t bar = std::min(choices.find('|', start), choices.size());
    if (choices.substr(start, bar - start) == value) return true;
    if (bar == choices.size()) return false;
    start = bar + 1;
  }
}

namespace {

void check_value(std::string_view word, const FieldSpec& spec, std::string_view key, std::string_view value,
                 Side side) {
  switch (spec.kind) {
    case FieldKind::integer: field_int(word, key, value, spec.min); break;
    case FieldKind::number:
      field_double(word, key, value,
                   spec.fraction ? NumberRange::fraction : spec.non_negative ? NumberRange::non_negative : NumberRange::any);
      break;
    case FieldKind::text:
      if (!spec.choices.empty() && !is_choice(spec.choices, value) && !(spec.open_choices && side == Side::reader)) {
        throw line_error(word, std::string(key) + " must be " + choices_text(spec.choices) + ", got " + quote(value));
      }
      break;
  }
}

}  // namespace

bool is_py_space(char c) {
  return c == ' ' || (c >= '\t' && c <= '\r') || (c >= '\x1c' && c <= '\x1f');
}

std::string without_record_words(std::string text) {
  static constexpr std::string_view kWord = "FMWORK", kDefused = "\\x46MWORK";
  for (size_t at = text.find(kWord); at != std::string::npos; at = text.find(kWord, at + kDefused.size()))
    text.replace(at, kWord.size(), kDefused);
  return text;
}

bool is_control_or_space(char c) {
  auto u = static_cast<unsigned char>(c);
  return u <= 0x20 || u == 0x7f;
}

std::string quote(std::string_view s) { return "'" + std::string(s) + "'"; }

std::vector<std::string_view> split_spaces(std::string_view s) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    size_t pos = s.find(' ', start);
    if (pos == std::string_view::npos) {
      out.push_back(s.substr(start));
      return out;
    }
    out.push_back(s.substr(start, pos - start));
    start = pos + 1;
  }
}

std::optional<int64_t> to_int(std::string_view s) {
  std::string_view digits = s;
  if (!digits.empty() && digits[0] == '-') digits.remove_prefix(1);
  if (!all_digits(digits)) return std::nullopt;
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return value;
}

std::optional<double> to_double(std::string_view s) {
  std::string_view body = s;
  bool negative = false;
  if (!body.empty() && (body[0] == '+' || body[0] == '-')) {
    negative = body[0] == '-';
    body.remove_prefix(1);
  }
  if (iequals(body, "inf") || iequals(body, "infinity")) {
    return negative ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  }
  if (iequals(body, "nan")) return std::numeric_limits<double>::quiet_NaN();
  // digits [. digits] | . digits, then [e[sign]digits]
  size_t i = 0, int_digits = 0, frac_digits = 0;
  while (i < body.size() && body[i] >= '0' && body[i] <= '9') ++i, ++int_digits;
  if (i < body.size() && body[i] == '.') {
    ++i;
    while (i < body.size() && body[i] >= '0' && body[i] <= '9') ++i, ++frac_digits;
  }
  if (int_digits + frac_digits == 0) return std::nullopt;
  if (i < body.size() && (body[i] == 'e' || body[i] == 'E')) {
    ++i;
    if (i < body.size() && (body[i] == '+' || body[i] == '-')) ++i;
    size_t exp_digits = 0;
    while (i < body.size() && body[i] >= '0' && body[i] <= '9') ++i, ++exp_digits;
    if (exp_digits == 0) return std::nullopt;
  }
  if (i != body.size()) return std::nullopt;
  // from_chars does not take a leading '+'; give it the body and apply the sign.
  double value = 0;
  auto [ptr, ec] = std::from_chars(body.data(), body.data() + body.size(), value);
  if (ptr != body.data() + body.size()) return std::nullopt;
  if (ec == std::errc::result_out_of_range) {
    // Python gives inf for overflow and 0 for underflow; from_chars leaves value unchanged. Redo with strtod.
    value = std::strtod(std::string(body).c_str(), nullptr);
  } else if (ec != std::errc()) {
    return std::nullopt;
  }
  return negative ? -value : value;
}

std::string printf_double(double value, int decimals) {
  char buf[512];
  int n = std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  if (n < 0 || static_cast<size_t>(n) >= sizeof buf) {
    // Only for absurd magnitudes; fall back to a dynamically sized buffer.
    std::string out(static_cast<size_t>(std::snprintf(nullptr, 0, "%.*f", decimals, value)) + 1, '\0');
    std::snprintf(out.data(), out.size(), "%.*f", decimals, value);
    out.pop_back();
    return out;
  }
  return std::string(buf, static_cast<size_t>(n));
}

std::optional<int64_t> to_timestamp(std::string_view s) {
  size_t dot = s.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  std::string_view secs = s.substr(0, dot), frac = s.substr(dot + 1);
  if (frac.size() != 9 || !all_digits(frac)) return std::nullopt;
  if (!secs.empty() && !all_digits(secs)) return std::nullopt;
  int64_t sec_value = 0;
  if (!secs.empty()) {
    auto [ptr, ec] = std::from_chars(secs.data(), secs.data() + secs.size(), sec_value);
    if (ec != std::errc() || ptr != secs.data() + secs.size()) return std::nullopt;
  }
  int64_t frac_value = 0;
  std::from_chars(frac.data(), frac.data() + frac.size(), frac_value);
  if (sec_value > (std::numeric_limits<int64_t>::max() - frac_value) / kNanosPerSecond) return std::nullopt;
  return sec_value * kNanosPerSecond + frac_value;
}

bool is_duration(std::string_view s) {
  if (!s.empty() && s[0] == '-') s.remove_prefix(1);
  size_t dot = s.find('.');
  if (dot == std::string_view::npos) return false;
  return all_digits(s.substr(0, dot)) && s.size() - dot - 1 == 9 && all_digits(s.substr(dot + 1));
}

bool is_key(std::string_view key) {
  return !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
           c == '-';
  });
}

Error line_error(std::string_view word, const std::string& what) {
  return runtime_error("FMWORK " + std::string(word) + " " + what);
}

int64_t field_int(std::string_view word, std::string_view name, std::string_view text, int64_t min_value) {
  auto v = to_int(text);
  if (!v) throw line_error(word, std::string(name) + " must be an integer, got " + quote(text));
  if (*v < min_value) {
    throw line_error(word, std::string(name) + " must be at least " + std::to_string(min_value) + ", got " +
                               quote(text));
  }
  return *v;
}

double field_double(std::string_view word, std::string_view name, std::string_view text, NumberRange range) {
  auto v = to_double(text);
  if (!v) throw line_error(word, std::string(name) + " must be a number, got " + quote(text));
  // No driver writes nan or inf, and JSON has no such numbers: jq refuses the output that would carry them.
  if (range == NumberRange::fraction && !(*v >= 0 && *v <= 1))
    throw line_error(word, std::string(name) + " must be a fraction from 0 to 1, got " + quote(text));
  if (!std::isfinite(*v) || (range == NumberRange::non_negative && *v < 0))
    throw line_error(word, std::string(name) + " must be a finite number" +
                               (range == NumberRange::non_negative ? " >= 0" : "") + ", got " + quote(text));
  return *v;
}

const FieldSpec* to_end_field(const LineSpec& spec) {
  for (const FieldSpec& f : spec.fields) {
    if (f.to_end) return &f;
  }
  return nullptr;
}

void check_fields(const LineSpec& spec, const FieldItems& items, Side side) {
  const std::string_view word = spec.word;
  for (const FieldSpec& f : spec.fields) {
    if (f.need != FieldNeed::key) continue;
    const std::string* v = find_item(items, f.key);
    if (!v) throw line_error(word, "has no " + std::string(f.key) + "= field");
    check_value(word, f, f.key, *v, side);
  }
  for (const auto& [key, value] : items) {
    if (const FieldSpec* f = spec.find(key)) check_value(word, *f, key, value, side);
  }
  for (const FieldSpec& f : spec.fields) {
    if (f.to_end) {
      if (items.empty() || items.back().first != f.key) {
        throw line_error(word, "must end with an " + std::string(f.key) + "= field");
      }
    } else if (f.need == FieldNeed::required && !find_item(items, f.key)) {
      throw line_error(word, "has no " + std::string(f.key) + "= field");
    }
  }
}

}  // namespace fmwork::log_rules
