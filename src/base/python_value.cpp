// Value: the typed value of an `@` sub-option, its Python repr() and str(), and the dtype names.
#include "fmwork/base/python_value.hpp"

#include <algorithm>

#include "fmwork/base/error.hpp"
#include "fmwork/base/python_text.hpp"

namespace fmwork {

// --- construction and comparison ---

Value Value::none() { return Value{}; }

Value Value::of_bool(bool b) {
  Value v;
  v.type = Type::boolean;
  v.boolean = b;
  return v;
}

Value Value::of_int(int64_t i) {
  Value v;
  v.type = Type::integer;
  v.integer = i;
  return v;
}

Value Value::of_float(double d) {
  Value v;
  v.type = Type::floating;
  v.floating = d;
  return v;
}

Value Value::of_string(std::string s) {
  Value v;
  v.type = Type::string;
  v.text = std::move(s);
  return v;
}

Value Value::of_dtype(std::string name) {
  Value v;
  v.type = Type::dtype;
  v.text = std::move(name);
  return v;
}

Value Value::of_list(std::vector<Value> items) {
  Value v;
  v.type = Type::list;
  v.items = std::move(items);
  return v;
}

Value Value::of_tuple(std::vector<Value> items) {
  Value v;
  v.type = Type::tuple;
  v.items = std::move(items);
  return v;
}

Value Value::of_dict(std::vector<std::pair<std::string, Value>> entries) {
  Value v;
  v.type = Type::dict;
  v.entries = std::move(entries);
  return v;
}

// Structural equality of the same type; dicts compare as Python's do, whatever the order of their keys.
bool Value::operator==(const Value& other) const {
  if (type != other.type) return false;
  switch (type) {
    case Type::none: return true;
    case Type::boolean: return boolean == other.boolean;
    case Type::integer: return integer == other.integer;
    case Type::floating: return floating == other.floating;
    case Type::string:
    case Type::dtype: return text == other.text;
    case Type::list:
    case Type::tuple: return items == other.items;
    case Type::dict: {
      if (entries.size() != other.entries.size()) return false;
      for (const auto& mine : entries) {  // not a structured binding: C++17 lambdas cannot capture one (clang refuses)
        auto it = std::find_if(other.entries.begin(), other.entries.end(),
                               [&](const auto& entry) { return entry.first == mine.first; });
        if (it == other.entries.end() || it->second != mine.second) return false;
      }
      return true;
    }
  }
  return false;
}

std::string type_name(Value::Type type) {
  switch (type) {
    case Value::Type::none: return "None";
    case Value::Type::boolean: return "bool";
    case Value::Type::integer: return "int";
    case Value::Type::floating: return "float";
    case Value::Type::string: return "str";
    case Value::Type::dtype: return "torch.dtype";
    case Value::Type::list: return "list";
    case Value::Type::tuple: return "tuple";
    case Value::Type::dict: return "dict";
  }
  return "?";
}

namespace {

void repr_into(std::string& out, const Value& v) {
  switch (v.type) {
    case Value::Type::none: out += "None"; return;
    case Value::Type::boolean: out += v.boolean ? "True" : "False"; return;
    case Value::Type::integer: out += std::to_string(v.integer); return;
    case Value::Type::floating: out += python_float_repr(v.floating); return;
    case Value::Type::string: out += python_str_repr(v.text); return;
    case Value::Type::dtype: out += "torch." + v.text; return;
    case Value::Type::list:
    case Value::Type::tuple: {
      const bool list = v.type == Value::Type::list;
      out += list ? "[" : "(";
      for (size_t i = 0; i < v.items.size(); ++i) {
        if (i) out += ", ";
        repr_into(out, v.items[i]);
      }
      if (!list && v.items.size() == 1) out += ",";
      out += list ? "]" : ")";
      return;
    }
    case Value::Type::dict: {
      out += "{";
      for (size_t i = 0; i < v.entries.size(); ++i) {
        if (i) out += ", ";
        out += python_str_repr(v.entries[i].first);
        out += ": ";
        repr_into(out, v.entries[i].second);
      }
      out += "}";
      return;
    }
  }
}

}  // namespace

std::string repr(const Value& value) {
  std::string out;
  repr_into(out, value);
  return out;
}

std::string str(const Value& value) {
  return value.type == Value::Type::string ? value.text : repr(value);
}

namespace {

// The dtype names `torch.<name>` may take, and the canonical name each stands for (as Python's repr
// writes it: torch.half is torch.float16).
const std::pair<const char*, const char*> kDtypes[] = {
    {"float32", "float32"}, {"float", "float32"},   {"float16", "float16"}, {"half", "float16"},
    {"bfloat16", "bfloat16"}, {"float64", "float64"}, {"double", "float64"}, {"int8", "int8"},
    {"int16", "int16"},     {"short", "int16"},     {"int32", "int32"},     {"int", "int32"},
    {"int64", "int64"},     {"long", "int64"},      {"bool", "bool"},       {"uint8", "uint8"},
};

nlohmann::ordered_json to_json(const Value& value) {
  switch (value.type) {
    case Value::Type::none: return nullptr;
    case Value::Type::boolean: return value.boolean;
    case Value::Type::integer: return value.integer;
    case Value::Type::floating: return value.floating;
    case Value::Type::string: return value.text;
    case Value::Type::dtype: return "torch." + value.text;
    case Value::Type::list:
    case Value::Type::tuple: {
      auto array = nlohmann::ordered_json::array();
      for (const auto& item : value.items) array.push_back(to_json(item));
      return array;
    }
    case Value::Type::dict: {
      auto object = nlohmann::ordered_json::object();
      for (const auto& [key, item] : value.entries) object[key] = to_json(item);
      return object;
    }
  }
  return nullptr;
}

}  // namespace

std::optional<std::string> canonical_dtype_name(std::string_view name) {
  for (const auto& [alias, canonical] : kDtypes)
    if (name == alias) return std::string(canonical);
  return std::nullopt;
}

std::string dtype_name_list() {
  std::string list;
  for (const auto& [alias, canonical] : kDtypes) {
    if (std::string_view(alias) != canonical) continue;
    list += (list.empty() ? "torch." : ", torch.") + std::string(canonical);
  }
  return list;
}

std::string value_to_json(const Value& value) {
  // Invalid UTF-8 (a surrogateescape'd argument) becomes U+FFFD rather than an exception.
  return to_json(value).dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace fmwork
