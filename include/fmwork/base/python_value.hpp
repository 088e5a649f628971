// The typed value of a dynamic sub-option given with `@` (`--compile:dynamic@ True`) and its Python
// repr(); python_literal.hpp parses the text into one.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

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

// The dtype name `torch.<name>` stands for, as repr() writes it ("half" -> "float16", "float16" ->
// "float16"); nullopt for a name that is not a dtype.
std::optional<std::string> canonical_dtype_name(std::string_view name);
// The canonical dtype names, "torch.float32, torch.float16, ...", for messages.
std::string dtype_name_list();

// The value as compact JSON text (None -> null, tuple -> array, dtype -> "torch.<name>"; invalid UTF-8
// written as U+FFFD): how the --compile: and --model: sets reach plugins.
std::string value_to_json(const Value& value);

}  // namespace fmwork
