// The scanner of Python literals (see python_literal_scanner.hpp): spaces, numbers and strings.
#include "python_literal_scanner.hpp"

#include <cctype>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "fmwork/base/error.hpp"
#include "fmwork/base/python_text.hpp"

namespace fmwork::literal {

bool is_ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::string quoted(std::string_view s) { return "'" + excerpt(s) + "'"; }  // a token may be any length

void LiteralScanner::stop(std::string what, size_t at, size_t end) {
  throw Stop{std::move(what), at, end};
}

void LiteralScanner::unexpected() {
  if (pos_ >= s_.size()) stop("it ends too early", pos_);
  const char c = s_[pos_];
  if (c == '(' || c == '[') stop("calls and indexing are not supported", pos_);
  size_t len = 1;
  const auto b = static_cast<unsigned char>(c);
  if (is_ident_char(c)) {  // a whole word: unexpected 'False'
    while (pos_ + len < s_.size() && is_ident_char(s_[pos_ + len])) ++len;
  } else if (b >= 0xc0) {
    while (pos_ + len < s_.size() && (static_cast<unsigned char>(s_[pos_ + len]) & 0xc0) == 0x80) ++len;
  }
  stop("unexpected " + quoted(s_.substr(pos_, len)), pos_);
}

void LiteralScanner::skip_space() {
  while (pos_ < s_.size()) {
    const char c = s_[pos_];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
      ++pos_;
    } else if (c == '\\' && pos_ + 1 < s_.size() && s_[pos_ + 1] == '\n') {
      pos_ += 2;  // line continuation
    } else if (c == '#') {
      while (pos_ < s_.size() && s_[pos_] != '\n') ++pos_;
    } else {
      break;
    }
  }
}

bool LiteralScanner::is_number_start() const {
  const char c = peek();
  return is_digit(c) || (c == '.' && pos_ + 1 < s_.size() && is_digit(s_[pos_ + 1]));
}

void LiteralScanner::lex_digits(std::string& out, bool (*ok)(char)) {
  while (pos_ < s_.size()) {
    if (ok(s_[pos_])) {
      out.push_back(s_[pos_++]);
    } else if (s_[pos_] == '_' && !out.empty() && pos_ + 1 < s_.size() && ok(s_[pos_ + 1])) {
      ++pos_;
    } else {
      break;
    }
  }
}

LiteralScanner::Number LiteralScanner::lex_number() {
  Number n;
  n.at = pos_;
  if (s_[pos_] == '0' && pos_ + 1 < s_.size() && std::strchr("xXoObB", s_[pos_ + 1]) != nullptr)
    return lex_prefixed_integer(n);
  return lex_decimal(n);
}

void LiteralScanner::finish_check(size_t at) {
  if (pos_ < s_.size() && (is_ident_char(s_[pos_]) || s_[pos_] == '.')) {
    const char c = s_[pos_];
    if (c == 'j' || c == 'J') stop("complex numbers are not supported", at);
    stop("malformed number", at);
  }
}

LiteralScanner::Number LiteralScanner::lex_prefixed_integer(Number n) {
  const char kind = static_cast<char>(std::tolower(static_cast<unsigned char>(s_[pos_ + 1])));
  pos_ += 2;
  if (pos_ < s_.size() && s_[pos_] == '_') ++pos_;
  std::string digits;
  int base = 16;
  if (kind == 'x') lex_digits(digits, [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; });
  if (kind == 'o') base = 8, lex_digits(digits, [](char c) { return c >= '0' && c <= '7'; });
  if (kind == 'b') base = 2, lex_digits(digits, [](char c) { return c == '0' || c == '1'; });
  if (digits.empty()) stop("malformed number", n.at);
  finish_check(n.at);
  for (char d : digits) {
    const int v = std::isdigit(static_cast<unsigned char>(d)) ? d - '0' : std::tolower(d) - 'a' + 10;
    n.add_digit(static_cast<unsigned>(base), static_cast<unsigned>(v));
  }
  return n;
}

bool LiteralScanner::lex_exponent(std::string& exp_part, size_t at) {
  if (peek() != 'e' && peek() != 'E') return false;
  size_t save = pos_;
  ++pos_;
  std::string sign;
  if (peek() == '+' || peek() == '-') sign.push_back(s_[pos_++]);
  if (!is_digit(peek())) {
    pos_ = save;
    stop("malformed number", at);
  }
  lex_digits(exp_part, is_digit);
  exp_part = sign + exp_part;
  return true;
}

LiteralScanner::Number LiteralScanner::lex_decimal(Number n) {
  std::string int_part, frac_part, exp_part;
  lex_digits(int_part, is_digit);
  bool has_point = false;
  if (peek() == '.') {
    has_point = true;
    ++pos_;
    if (is_digit(peek())) lex_digits(frac_part, is_digit);
  }
  const bool has_exp = lex_exponent(exp_part, n.at);
  finish_check(n.at);
  if (!has_point && !has_exp) {
    if (int_part.size() > 1 && int_part[0] == '0' && int_part.find_first_not_of('0') != std::string::npos)
      stop("a decimal integer cannot start with 0", n.at, pos_);
    for (char d : int_part) {
      n.add_digit(10, static_cast<unsigned>(d - '0'));
    }
    return n;
  }
  n.is_float = true;
  std::string literal = (int_part.empty() ? "0" : int_part) + "." + (frac_part.empty() ? "0" : frac_part);
  if (has_exp) literal += "e" + exp_part;
  double value = 0.0;
  auto res = std::from_chars(literal.data(), literal.data() + literal.size(), value);
  if (res.ec == std::errc::result_out_of_range) {
    value = std::strtod(literal.c_str(), nullptr);  // overflow: inf, as Python; underflow: 0.0
  }
  n.value = value;
  return n;
}

// --- strings ---
size_t LiteralScanner::string_prefix_length() {
  size_t k = pos_;
  while (k < s_.size() && is_ident_char(s_[k]) && k - pos_ < 2) ++k;
  if (k >= s_.size() || (s_[k] != '\'' && s_[k] != '"')) return 0;
  std::string prefix(s_.substr(pos_, k - pos_));
  for (auto& ch : prefix) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (prefix == "r" || prefix == "u") return prefix.size();
  if (prefix == "b" || prefix == "rb" || prefix == "br") stop("bytes literals are not supported", pos_);
  if (prefix == "f" || prefix == "rf" || prefix == "fr") stop("f-strings are not supported", pos_);
  return 0;
}

std::string LiteralScanner::lex_strings() {
  std::string out;
  do {
    parse_one_string(out);
    skip_space();
  } while (peek() == '\'' || peek() == '"' || (is_ident_start(peek()) && string_prefix_length() > 0));
  return out;
}

void LiteralScanner::parse_one_string(std::string& out) {
  const size_t start = pos_;
  bool raw = false;
  if (is_ident_start(peek())) {
    const size_t len = string_prefix_length();
    raw = std::tolower(static_cast<unsigned char>(s_[pos_])) == 'r';
    pos_ += len;
  }
  const char q = s_[pos_];
  const bool triple = pos_ + 2 < s_.size() && s_[pos_ + 1] == q && s_[pos_ + 2] == q;
  pos_ += triple ? 3 : 1;
  for (;;) {
    if (pos_ >= s_.size()) stop("the string is not closed", start);
    const char c = s_[pos_];
    if (c == q && closes_string(q, triple)) return;
    if (c == '\n' && !triple) stop("the string is not closed on its line", start);
    if (c != '\\') {
      out.push_back(c);
      ++pos_;
      continue;
    }
    if (pos_ + 1 >= s_.size()) stop("the string is not closed", start);
    const char e = s_[pos_ + 1];
    if (raw) {  // a backslash keeps itself and the next character
      out.push_back('\\');
      out.push_back(e);
      pos_ += 2;
      continue;
    }
    parse_escape(out);
  }
}

bool LiteralScanner::closes_string(char q, bool triple) {
  if (!triple) {
    ++pos_;
    return true;
  }
  if (pos_ + 2 < s_.size() && s_[pos_ + 1] == q && s_[pos_ + 2] == q) {
    pos_ += 3;
    return true;
  }
  return false;
}

void LiteralScanner::parse_escape(std::string& out) {
  const size_t esc_at = pos_;
  const char e = s_[pos_ + 1];
  pos_ += 2;
  switch (e) {
    case '\n': break;
    case '\\': out.push_back('\\'); break;
    case '\'': out.push_back('\''); break;
    case '"': out.push_back('"'); break;
    case 'a': out.push_back('\a'); break;
    case 'b': out.push_back('\b'); break;
    case 'f': out.push_back('\f'); break;
    case 'n': out.push_back('\n'); break;
    case 'r': out.push_back('\r'); break;
    case 't': out.push_back('\t'); break;
    case 'v': out.push_back('\v'); break;
    case 'x': append_code_point(out, hex_escape(2, esc_at), esc_at); break;
    case 'u': append_code_point(out, hex_escape(4, esc_at), esc_at); break;
    case 'U': append_code_point(out, hex_escape(8, esc_at), esc_at); break;
    case 'N': stop("\\N{...} escapes are not supported", esc_at);
    default:
      if (e >= '0' && e <= '7') {
        char32_t cp = static_cast<char32_t>(e - '0');
        for (int k = 0; k < 2 && pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '7'; ++k)
          cp = cp * 8 + static_cast<char32_t>(s_[pos_++] - '0');
        append_code_point(out, cp, esc_at);
      } else {  // an unknown escape keeps its backslash, as Python does
        out.push_back('\\');
        out.push_back(e);
      }
  }
}

char32_t LiteralScanner::hex_escape(int digits, size_t esc_at) {
  char32_t cp = 0;
  for (int k = 0; k < digits; ++k) {
    if (pos_ >= s_.size() || !std::isxdigit(static_cast<unsigned char>(s_[pos_])))
      stop("malformed \\" + std::string(1, s_[esc_at + 1]) + " escape: it needs " + std::to_string(digits) +
               " hex digits",
           esc_at);
    const char d = s_[pos_++];
    cp = cp * 16 + static_cast<char32_t>(std::isdigit(static_cast<unsigned char>(d)) ? d - '0'
                                                                                    : std::tolower(d) - 'a' + 10);
  }
  return cp;
}

void LiteralScanner::append_code_point(std::string& out, char32_t cp, size_t esc_at) {
  if (cp > 0x10ffff) stop("the escape is beyond U+10FFFF", esc_at);
  if (cp >= 0xd800 && cp <= 0xdfff) stop("lone surrogate escapes are not supported", esc_at);
  append_utf8(out, cp);
}

}  // namespace fmwork::literal
