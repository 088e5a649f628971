// The scanner of the Python literals an `@` sub-option takes (python_literal.hpp): where the text is, its
// spaces and comments, and its tokens with their own small grammars, numbers (bases, underscores, exponents,
// range) and strings (prefixes, quotes, escapes). Apart from the parser (python_literal.cpp), which holds
// the grammar of values (signs, names, containers, nesting) and reads these tokens. Private to src/base/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace fmwork::literal {

// Where reading stopped and why; turned into the one-line usage error by parse_value.
struct Stop {
  std::string what;
  size_t at;                            // byte offset into the text
  size_t end = std::string_view::npos;  // where the offending token ends, when known
  bool quiet = false;                   // an unknown name: the message needs no detail when it is all the text
};

bool is_ident_start(char c);
bool is_ident_char(char c);
bool is_digit(char c);
// 'text', for messages.
std::string quoted(std::string_view s);

// The text and the position in it; the parser derives from it. Every error throws Stop.
class LiteralScanner {
 protected:
  explicit LiteralScanner(std::string_view text) : s_(text) {}

  std::string_view s_;
  size_t pos_ = 0;

  // Where the text stopped being a value and why: throws Stop.
  [[noreturn]] void stop(std::string what, size_t at, size_t end = std::string_view::npos);
  // Stops at pos_ with "unexpected '<the token there>'".
  [[noreturn]] void unexpected();
  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  // Spaces, line continuations and comments.
  void skip_space();
  // A digit, or a point before a digit.
  bool is_number_start() const;

  // --- numbers ---

  struct Number {
    bool is_float = false;
    uint64_t magnitude = 0;
    bool overflow = false;  // beyond 64 bits
    void add_digit(unsigned base, unsigned digit) {
      if (magnitude > (UINT64_MAX - digit) / base) overflow = true;
      else magnitude = magnitude * base + digit;
    }
    double value = 0.0;
    size_t at = 0;
  };
  // Digits with single underscores between them; appends the digits (no underscores) to `out`.
  void lex_digits(std::string& out, bool (*ok)(char));
  // The number at pos_ (is_number_start()): an integer's magnitude or a float's value.
  Number lex_number();
  // A number may not run into a name character or a point ("1x", "0x1.5", "1j").
  void finish_check(size_t at);
  // 0x / 0o / 0b integers
  Number lex_prefixed_integer(Number n);
  // An exponent's signed digits into `exp_part`; false when there is no 'e'.
  bool lex_exponent(std::string& exp_part, size_t at);
  Number lex_decimal(Number n);

  // --- strings ---

  // The length of a string prefix (r, u, R, U) right before a quote; 0 when there is none.
  size_t string_prefix_length();
  // Adjacent string literals, concatenated as Python does ("a" 'b').
  std::string lex_strings();
  void parse_one_string(std::string& out);
  // At a quote: consumes the closing quote(s) and says so; a lone quote inside a triple-quoted string is text.
  bool closes_string(char q, bool triple);
  // The escape at pos_ (a backslash and at least one more character), appended to `out`.
  void parse_escape(std::string& out);
  char32_t hex_escape(int digits, size_t esc_at);
  void append_code_point(std::string& out, char32_t cp, size_t esc_at);
};

}  // namespace fmwork::literal
