// The fields of our key=value lines and the records they are written from (log_values.hpp): Fields' helpers
// and keyed_fields, which holds a record to its line's table and writes each value as its field says.
#include "fmwork/log/log_values.hpp"

#include <fmt/format.h>

#include "fmwork/base/error.hpp"
#include "log_rules.hpp"

namespace fmwork {

using namespace log_rules;

const std::string* Fields::find(std::string_view key) const {
  for (const auto& item : items) {
    if (item.first == key) return &item.second;
  }
  return nullptr;
}

Fields& Fields::add(std::string key, std::string value) {
  items.emplace_back(std::move(key), std::move(value));
  return *this;
}

Fields& Fields::add(std::string key, int64_t value) { return add(std::move(key), std::to_string(value)); }

Fields& Fields::add(std::string key, double value, int decimals) {
  return add(std::move(key), printf_double(value, decimals));
}

namespace {

// The value of `key` in `fields` read by `parse`; nullopt when absent; a runtime Error naming `what` the value
// must be when it does not read.
template <class Parse>
auto parsed_field(const Fields& fields, std::string_view key, Parse parse, const char* what) -> decltype(parse("")) {
  const std::string* v = fields.find(key);
  if (!v) return std::nullopt;
  auto parsed = parse(*v);
  if (!parsed) throw runtime_error(std::string(key) + "= must be " + what + ", got " + quote(*v));
  return parsed;
}

}  // namespace

std::optional<int64_t> Fields::get_int(std::string_view key) const {
  return parsed_field(*this, key, [](const std::string& v) { return to_int(v); }, "an integer");
}

std::optional<double> Fields::get_double(std::string_view key) const {
  return parsed_field(*this, key, [](const std::string& v) { return to_double(v); }, "a number");
}

namespace {

std::string format_value(const FieldSpec& spec, const FieldValue& value) {
  if (spec.kind == FieldKind::integer && std::holds_alternative<int64_t>(value)) {
    return std::to_string(std::get<int64_t>(value));
  }
  if (spec.kind == FieldKind::number && std::holds_alternative<double>(value)) {
    const double x = std::get<double>(value);
    return spec.significant ? fmt::format("{:.{}g}", x, spec.precision) : printf_double(x, spec.precision);
  }
  if (spec.kind == FieldKind::text && std::holds_alternative<std::string_view>(value)) {
    return std::string(std::get<std::string_view>(value));
  }
  throw runtime_error("FMWORK line field " + quote(spec.key) + " given a value of the wrong kind");
}

}  // namespace

Fields keyed_fields(const LineSpec& spec, const std::vector<KeyedValue>& values) {
  const std::string line = "FMWORK " + std::string(spec.word);
  if (values.size() != spec.fields.size()) {
    throw runtime_error(line + " has " + std::to_string(spec.fields.size()) + " fields in its table, its record " +
                        std::to_string(values.size()));
  }
  Fields fields;
  for (size_t i = 0; i < values.size(); ++i) {
    const FieldSpec& f = spec.fields[i];
    if (values[i].key != f.key || values[i].kind != f.kind) {
      throw runtime_error(line + " field " + std::to_string(i + 1) + " is " + quote(f.key) +
                          " in its table, its record has " + quote(values[i].key) +
                          (values[i].key == f.key ? " of another kind" : std::string()));
    }
    if (values[i].value) fields.add(std::string(f.key), format_value(f, *values[i].value));
  }
  return fields;
}

}  // namespace fmwork
