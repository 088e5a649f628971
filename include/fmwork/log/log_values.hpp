// The values of each key=value line as a typed record, written by name: one member per row of the line's list
// (log_schema.hpp), the member named as its key and typed as the row says (integer: int64_t, number: double,
// text: std::string; std::optional of one where the writer may leave the field out). A writer fills the record
// member by member (`v.p50_ms = latency.p50_ms`) and to_fields() turns it into the line's fields in the
// table's order, so a value cannot land under another key by its position.
//
// Each record is declared from its line's list in log_schema.hpp, the list its table (LineSpec) is made of too:
// the list makes the members and the keyed() view of them, so a member without a key, or a key without a
// member, cannot be written, and record and table cannot differ. keyed_fields still holds the values it is
// given to the table (a hand-made list of KeyedValue could differ).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "fmwork/log/log_fields.hpp"
#include "fmwork/log/log_schema.hpp"

namespace fmwork {

// Our extension lines: an ordered list of key=value fields, as written. Keys are [A-Za-z0-9_.-]+, unique
// within a line; a value may be empty and holds no whitespace or control characters, except the last
// field of a FAIL line (`error=`), free text to the end of the line.
struct Fields {
  std::vector<std::pair<std::string, std::string>> items;
  const std::string* find(std::string_view key) const;  // nullptr when absent
  // Appends a field (no checks here: format_line checks). Numbers: integers as is, doubles with the
  // given number of decimals ("%.*f").
  Fields& add(std::string key, std::string value);
  Fields& add(std::string key, int64_t value);
  Fields& add(std::string key, double value, int decimals);
  // The value parsed as an integer / a number; nullopt when absent; a runtime Error when malformed.
  std::optional<int64_t> get_int(std::string_view key) const;
  std::optional<double> get_double(std::string_view key) const;
};
// A field's value as a writer gives it (the records below): integer fields take int64_t, number fields
// double, text fields text (copied when written).
using FieldValue = std::variant<int64_t, double, std::string_view>;

// One member of a record seen as a field: its key, its kind and its value (nullopt: left out of the line).
// Text values are views of the record's members: a KeyedValue lives no longer than its record.
struct KeyedValue {
  std::string_view key;
  FieldKind kind = FieldKind::text;
  std::optional<FieldValue> value;
};

inline KeyedValue keyed(std::string_view key, int64_t v) { return {key, FieldKind::integer, FieldValue(v)}; }
inline KeyedValue keyed(std::string_view key, double v) { return {key, FieldKind::number, FieldValue(v)}; }
inline KeyedValue keyed(std::string_view key, const std::string& v) {
  return {key, FieldKind::text, FieldValue(std::string_view(v))};
}
template <class T>
KeyedValue keyed(std::string_view key, const std::optional<T>& v) {
  KeyedValue out = v ? keyed(key, *v) : keyed(key, T{});
  if (!v) out.value.reset();
  return out;
}

// The fields of `spec` from `values`, which must name spec's fields one for one in its order with its kinds
// (else a runtime Error naming the first that differs: a record out of step with its table). Each present
// value is written as its field says (decimals, significant digits); an absent one is left out. The values
// themselves (tokens, ranges, choices) are checked when the line is formatted (log_format.hpp's format_line).
Fields keyed_fields(const LineSpec& spec, const std::vector<KeyedValue>& values);

// The fields of a record declared below, in its table's order.
template <class Record>
Fields to_fields(const Record& values) {
  return keyed_fields(Record::spec(), values.keyed());
}

#define FMWORK_VALUE_MEMBER(type, key, rule) type key{};
#define FMWORK_VALUE_KEYED(type, key, rule) ::fmwork::keyed(#key, key),
// A record named `Name` of the list `FIELDS` (log_schema.hpp), whose table is `spec_function()`.
#define FMWORK_LINE_VALUES(WORD, Name, spec_function, FIELDS, suffix)                                      \
  struct Name {                                                                                           \
    FIELDS(FMWORK_VALUE_MEMBER)                                                                           \
    static const LineSpec& spec() { return spec_function(); }                                             \
    std::vector<KeyedValue> keyed() const { return {FIELDS(FMWORK_VALUE_KEYED)}; }                         \
  };

// The records: MetaLineValues, StatLineValues, MemLineValues, FailLineValues, CheckLineValues,
// CompileLineValues, InterruptLineValues, NoteLineValues, ProfileLineValues, ServeLineValues,
// CapacityLineValues, one a line of FMWORK_KEYED_LINES.
FMWORK_KEYED_LINES(FMWORK_LINE_VALUES)

}  // namespace fmwork
