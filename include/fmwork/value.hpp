// The typed value of a dynamic sub-option given with `@` (`--compile:dynamic@ True`), the parser of the
// Python-literal forms upstream's eval() accepts in practice, and Python-compatible repr().
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fmwork {

struct Value {
  enum class Type { none, boolean, integer, floating, string, dtype, list, tuple, dict };

  Type type = Type::none;
  bool boolean = false;
  int64_t integer = 0;
  double floating = 0.0;
  std::string text;                                  // string contents, or the dtype name ("float16")
  std::vector<Value> items;                          // list and tuple elements
  std::vector<std::pair<std::string, Value>> entries;  // dict entries, string keys, in the order given

  static Value none();
  static Value of_bool(bool b);
  static Value of_int(int64_t i);
  static Value of_float(double d);
  static Value of_string(std::string s);
  static Value of_dtype(std::string name);  // name without "torch.", e.g. "bfloat16"
  static Value of_list(std::vector<Value> items);
  static Value of_tuple(std::vector<Value> items);
  static Value of_dict(std::vector<std::pair<std::string, Value>> entries);

  bool operator==(const Value& other) const;
  bool operator!=(const Value& other) const { return !(*this == other); }
};

// "bool", "int", "float", "str", "torch.dtype", "list", "tuple", "dict", "None": for error messages.
std::string type_name(Value::Type type);

// Python's repr() of the value: None True False 2 2.5 1e-05 'text' torch.float16 [1, 2] (8,) {'a': 1}.
std::string repr(const Value& value);

// Python's str(): like repr() except a top-level string is written as is.
std::string str(const Value& value);

// The code points of UTF-8 text, decoded as Python decodes command-line bytes: an invalid byte b (and each
// byte of an encoded surrogate) becomes the lone surrogate U+DC00+b ("surrogateescape"). For repr() and
// the \uXXXX escapes of the args JSON.
std::u32string decode_utf8(std::string_view text);

// Resolves a name such as `args.batch_sizes` to a value; returns nullopt when the name is unknown.
using NameResolver = std::function<std::optional<Value>(std::string_view name)>;

// Parses what the user wrote after an `@` option, as Python's eval would for these forms:
// None, True, False; integers (also negative, and 1_000); floats (1e-05, 2.50, -0.5, inf via float('inf')
// not supported); strings in single or double quotes with the usual escapes; lists, tuples (incl. `(1,)`
// and `()`), dicts with string keys; dtype names `torch.float16` (and `torch.half`, `torch.bfloat16`, ...);
// names the resolver knows (`args.batch_sizes`). Throws a usage Error that quotes `text`, says where it
// stopped and lists the accepted forms. `option` (e.g. "--compile:dynamic@") prefixes the message.
Value parse_value(std::string_view text, const std::string& option, const NameResolver& resolve = {});

}  // namespace fmwork
