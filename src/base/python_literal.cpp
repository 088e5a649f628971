// The parser of the Python literals an `@` sub-option takes (see python_literal.hpp).
#include "fmwork/base/python_literal.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "fmwork/base/error.hpp"
#include "fmwork/base/python_text.hpp"

namespace fmwork {

namespace {

// How deep lists, tuples, dicts and signs may nest: each level is a frame of this recursive parser, so a
// value such as 10,000 '[' would overflow the stack. Python's own parser stops at 200 parentheses.
constexpr int kMaxNesting = 100;

const char kAccepted[] =
    "use None, True, False, a number, a quoted string, a list/tuple/dict of these, a dtype like "
    "torch.float16, or args.<option>";

// Where parsing stopped and why; turned into the one-line usage error by parse_value.
struct Stop {
  std::string what;
  size_t at;                            // byte offset into the text
  size_t end = std::string_view::npos;  // where the offending token ends, when known
  bool quiet = false;                   // an unknown name: the message needs no detail when it is all the text
};

bool is_ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::string quoted(std::string_view s) { return "'" + std::string(s) + "'"; }

class Parser {
 public:
  Parser(std::string_view text, const NameResolver& resolve) : s_(text), resolve_(resolve) {}

  Value parse_all() {
    skip_space();
    if (pos_ >= s_.size()) throw Stop{"it is empty", s_.size()};
    Value v = parse_sequence_or_expr(/*top=*/true);
    skip_space();
    if (pos_ < s_.size()) unexpected();
    return v;
  }

 private:
  std::string_view s_;
  const NameResolver& resolve_;
  size_t pos_ = 0;
  int depth_ = 0;  // containers and signs open around pos_

  // One level deeper for the life of the object; refused beyond kMaxNesting.
  class Nested {
   public:
    explicit Nested(Parser& p) : p_(p) {
      if (++p_.depth_ > kMaxNesting)
        p_.stop("it is nested deeper than " + std::to_string(kMaxNesting) + " levels", p_.pos_);
    }
    ~Nested() { --p_.depth_; }
    Nested(const Nested&) = delete;
    Nested& operator=(const Nested&) = delete;

   private:
    Parser& p_;
  };

  [[noreturn]] void stop(std::string what, size_t at, size_t end = std::string_view::npos) {
    throw Stop{std::move(what), at, end};
  }

  [[noreturn]] void unexpected() {
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

  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }

  void skip_space() {
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

  // expr (',' expr)* [','] at the top level (a bare tuple, as `eval("1, 2")` gives), else one expr.
  Value parse_sequence_or_expr(bool top) {
    Value first = parse_expr();
    skip_space();
    if (!top || peek() != ',') return first;
    std::vector<Value> items{std::move(first)};
    while (peek() == ',') {
      ++pos_;
      skip_space();
      if (pos_ >= s_.size()) break;
      items.push_back(parse_expr());
      skip_space();
    }
    return Value::of_tuple(std::move(items));
  }

  Value parse_expr() {
    skip_space();
    return parse_unary();
  }

  Value parse_unary() {
    skip_space();
    const char c = peek();
    if (c != '-' && c != '+') return parse_primary();
    const Nested nested(*this);
    const size_t at = pos_;
    ++pos_;
    skip_space();
    // A literal integer right after the sign: negate it exactly (-9223372036854775808 fits).
    if (c == '-' && is_number_start()) {
      size_t literal_at = pos_;
      Number n = lex_number();
      if (!n.is_float) {
        if (n.overflow || n.magnitude > static_cast<uint64_t>(INT64_MAX) + 1)
          stop("-" + std::string(s_.substr(literal_at, pos_ - literal_at)) + " is out of the 64-bit integer range", at,
               pos_);
        if (n.magnitude == static_cast<uint64_t>(INT64_MAX) + 1) return Value::of_int(INT64_MIN);
        return Value::of_int(-static_cast<int64_t>(n.magnitude));
      }
      return Value::of_float(-n.value);
    }
    Value v = parse_unary();
    switch (v.type) {
      case Value::Type::boolean: return Value::of_int(c == '-' ? -static_cast<int64_t>(v.boolean) : v.boolean);
      case Value::Type::integer:
        if (c == '-') {
          if (v.integer == INT64_MIN) stop("the result is out of the 64-bit integer range", at);
          v.integer = -v.integer;
        }
        return v;
      case Value::Type::floating:
        if (c == '-') v.floating = -v.floating;
        return v;
      default:
        stop(std::string("'") + c + "' needs a number, not a " + type_name(v.type), at);
    }
  }

  bool is_number_start() const {
    const char c = peek();
    return is_digit(c) || (c == '.' && pos_ + 1 < s_.size() && is_digit(s_[pos_ + 1]));
  }

  Value parse_primary() {
    skip_space();
    if (pos_ >= s_.size()) stop("it ends where a value was expected", pos_);
    const char c = peek();
    if (is_number_start()) {
      Number n = lex_number();
      if (n.is_float) return Value::of_float(n.value);
      if (n.overflow || n.magnitude > static_cast<uint64_t>(INT64_MAX))
        stop(std::string(s_.substr(n.at, pos_ - n.at)) + " is out of the 64-bit integer range", n.at, pos_);
      return Value::of_int(static_cast<int64_t>(n.magnitude));
    }
    if (c == '\'' || c == '"' || (is_ident_start(c) && string_prefix_length() > 0)) return parse_strings();
    if (is_ident_start(c)) return parse_name();
    if (c == '[') return parse_list();
    if (c == '(') return parse_paren();
    if (c == '{') return parse_dict();
    unexpected();
  }

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
  void lex_digits(std::string& out, bool (*ok)(char)) {
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

  Number lex_number() {
    Number n;
    n.at = pos_;
    if (s_[pos_] == '0' && pos_ + 1 < s_.size() && std::strchr("xXoObB", s_[pos_ + 1]) != nullptr)
      return lex_prefixed_integer(n);
    return lex_decimal(n);
  }

  // A number may not run into a name character or a point ("1x", "0x1.5", "1j").
  void finish_check(size_t at) {
    if (pos_ < s_.size() && (is_ident_char(s_[pos_]) || s_[pos_] == '.')) {
      const char c = s_[pos_];
      if (c == 'j' || c == 'J') stop("complex numbers are not supported", at);
      stop("malformed number", at);
    }
  }

  // 0x / 0o / 0b integers
  Number lex_prefixed_integer(Number n) {
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

  // An exponent's signed digits into `exp_part`; false when there is no 'e'.
  bool lex_exponent(std::string& exp_part, size_t at) {
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

  Number lex_decimal(Number n) {
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

  // The length of a string prefix (r, u, R, U) right before a quote; 0 when there is none.
  size_t string_prefix_length() {
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

  Value parse_strings() {
    std::string out;
    do {
      parse_one_string(out);
      skip_space();
    } while (peek() == '\'' || peek() == '"' || (is_ident_start(peek()) && string_prefix_length() > 0));
    return Value::of_string(std::move(out));
  }

  void parse_one_string(std::string& out) {
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

  // At a quote: consumes the closing quote(s) and says so; a lone quote inside a triple-quoted string is text.
  bool closes_string(char q, bool triple) {
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

  // The escape at pos_ (a backslash and at least one more character), appended to `out`.
  void parse_escape(std::string& out) {
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

  char32_t hex_escape(int digits, size_t esc_at) {
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

  void append_code_point(std::string& out, char32_t cp, size_t esc_at) {
    if (cp > 0x10ffff) stop("the escape is beyond U+10FFFF", esc_at);
    if (cp >= 0xd800 && cp <= 0xdfff) stop("lone surrogate escapes are not supported", esc_at);
    append_utf8(out, cp);
  }

  // --- names ---

  Value parse_name() {
    const size_t start = pos_;
    while (pos_ < s_.size() && (is_ident_char(s_[pos_]) ||
                                (s_[pos_] == '.' && pos_ + 1 < s_.size() && is_ident_start(s_[pos_ + 1]))))
      ++pos_;
    const std::string_view name = s_.substr(start, pos_ - start);
    if (name == "None") return Value::none();
    if (name == "True") return Value::of_bool(true);
    if (name == "False") return Value::of_bool(false);
    if (name.substr(0, 6) == "torch.") {
      const std::string_view rest = name.substr(6);
      if (std::optional<std::string> canonical = canonical_dtype_name(rest)) return Value::of_dtype(*canonical);
      stop(std::string(name) + " is not a dtype; the dtypes are " + dtype_name_list(), start, pos_);
    }
    if (resolve_) {
      if (std::optional<Value> v = resolve_(name)) return *v;
    }
    size_t after = pos_;
    while (after < s_.size() && (s_[after] == ' ' || s_[after] == '\t')) ++after;
    if (after < s_.size() && s_[after] == '(') stop("function calls are not supported", start);
    Stop s{"unknown name " + quoted(name), start, pos_};
    s.quiet = true;
    throw s;
  }

  // --- containers ---

  // Items up to `close`, with an optional trailing comma. Returns whether a comma was seen.
  bool parse_items(char close, std::vector<Value>& items) {
    bool comma = false;
    for (;;) {
      skip_space();
      if (peek() == close) {
        ++pos_;
        return comma;
      }
      if (pos_ >= s_.size()) stop(std::string("it ends before the closing '") + close + "'", pos_);
      items.push_back(parse_expr());
      skip_space();
      if (peek() == ',') {
        ++pos_;
        comma = true;
      } else if (peek() != close) {
        if (pos_ >= s_.size()) stop(std::string("it ends before the closing '") + close + "'", pos_);
        unexpected();
      }
    }
  }

  Value parse_list() {
    const Nested nested(*this);
    ++pos_;
    std::vector<Value> items;
    parse_items(']', items);
    return Value::of_list(std::move(items));
  }

  Value parse_paren() {
    const Nested nested(*this);
    ++pos_;
    std::vector<Value> items;
    const bool comma = parse_items(')', items);
    if (items.size() == 1 && !comma) return std::move(items[0]);  // (x) is x
    return Value::of_tuple(std::move(items));
  }

  Value parse_dict() {
    const Nested nested(*this);
    const size_t open = pos_;
    ++pos_;
    std::vector<std::pair<std::string, Value>> entries;
    for (;;) {
      skip_space();
      if (peek() == '}') {
        ++pos_;
        return Value::of_dict(std::move(entries));
      }
      if (pos_ >= s_.size()) stop("it ends before the closing '}'", pos_);
      const size_t key_at = pos_;
      Value key = parse_expr();
      skip_space();
      if (peek() != ':') {
        if (entries.empty() && (peek() == ',' || peek() == '}')) stop("sets are not supported", open);
        if (pos_ >= s_.size()) stop("it ends before the closing '}'", pos_);
        unexpected();
      }
      if (key.type != Value::Type::string)
        stop("dict keys must be quoted strings; got " + repr(key), key_at);
      ++pos_;
      Value value = parse_expr();
      // A repeated key keeps its first place and takes the last value, as in Python.
      auto it = std::find_if(entries.begin(), entries.end(), [&](const auto& e) { return e.first == key.text; });
      if (it != entries.end()) it->second = std::move(value);
      else entries.emplace_back(std::move(key.text), std::move(value));
      skip_space();
      if (peek() == ',') {
        ++pos_;
      } else if (peek() != '}') {
        if (pos_ >= s_.size()) stop("it ends before the closing '}'", pos_);
        unexpected();
      }
    }
  }
};

}  // namespace

Value parse_value(std::string_view text, const std::string& option, const NameResolver& resolve) {
  try {
    return Parser(text, resolve).parse_all();
  } catch (const Stop& s) {
    // The detail says where, unless the offending token is the whole text or the text ended early.
    const size_t first = std::min(text.find_first_not_of(" \t\n\r\f"), text.size());
    const size_t last = text.find_last_not_of(" \t\n\r\f") + 1;
    const bool whole = s.at <= first && s.end != std::string_view::npos && s.end >= last;
    // Quoted whole up to 80 characters: a long value (10,000 '[') is not echoed in full.
    std::string message = option + ": cannot read '" + excerpt(text) + "' as a value";
    if (whole && s.quiet) {
      // `cannot read 'Tru' as a value`: nothing to add
    } else if (whole || s.at >= text.size()) {
      message += " (" + s.what + ")";
    } else {
      message += " (at character " + std::to_string(s.at + 1) + ": " + s.what + ")";
    }
    throw usage_error(message + "; " + kAccepted);
  }
}

}  // namespace fmwork
