// The parser of the Python literals an `@` sub-option takes (see python_literal.hpp): the grammar of values,
// signs, names, lists, tuples and dicts, and their nesting; the tokens (numbers, strings) are read by the
// scanner of python_literal_scanner.hpp.
#include "fmwork/base/python_literal.hpp"

#include <algorithm>

#include "fmwork/base/error.hpp"
#include "python_literal_scanner.hpp"

namespace fmwork {

namespace {

using namespace literal;

// How deep lists, tuples, dicts and signs may nest: each level is a frame of this recursive parser, so a
// value such as 10,000 '[' would overflow the stack. Python's own parser stops at 200 parentheses.
constexpr int kMaxNesting = 100;

const char kAccepted[] =
    "use None, True, False, a number, a quoted string, a list/tuple/dict of these, a dtype like "
    "torch.float16, or args.<option>";

class Parser : LiteralScanner {
 public:
  Parser(std::string_view text, const NameResolver& resolve) : LiteralScanner(text), resolve_(resolve) {}

  Value parse_all() {
    skip_space();
    if (pos_ >= s_.size()) throw Stop{"it is empty", s_.size()};
    Value v = parse_sequence_or_expr(/*top=*/true);
    skip_space();
    if (pos_ < s_.size()) unexpected();
    return v;
  }

 private:
  const NameResolver& resolve_;
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
    if (c == '\'' || c == '"' || (is_ident_start(c) && string_prefix_length() > 0))
      return Value::of_string(lex_strings());
    if (is_ident_start(c)) return parse_name();
    if (c == '[') return parse_list();
    if (c == '(') return parse_paren();
    if (c == '{') return parse_dict();
    unexpected();
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
        stop("dict keys must be quoted strings; got " + excerpt(repr(key)), key_at);
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
