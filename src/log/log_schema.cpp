// The log schema (see log_schema.hpp): its lists made LineSpecs, and the JSON of them for readers that are not C++.
#include "fmwork/log/log_schema.hpp"

#include <algorithm>
#include <type_traits>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "fmwork/base/error.hpp"
#include "fmwork/base/python_text.hpp"

namespace fmwork {
namespace {

// A row's kind is its record member's type (log_schema.hpp), optional or not.
template <class T>
struct KindOf;
template <class T>
struct KindOf<std::optional<T>> : KindOf<T> {};
template <>
struct KindOf<int64_t> : std::integral_constant<FieldKind, FieldKind::integer> {};
template <>
struct KindOf<double> : std::integral_constant<FieldKind, FieldKind::number> {};
template <>
struct KindOf<std::string> : std::integral_constant<FieldKind, FieldKind::text> {};

// The rule for keys a line does not list that end with `suffix` (STAT's other *_ms, MEM's other *_bytes).
template <class T>
std::optional<FieldSpec> by_suffix(std::string_view suffix, const FieldRule& rule) {
  return rule.make(suffix, KindOf<T>::value);
}

const char* kind_name(FieldKind kind) {
  switch (kind) {
    case FieldKind::integer: return "integer";
    case FieldKind::number: return "number";
    case FieldKind::text: return "text";
  }
  return "text";
}

nlohmann::ordered_json line_json(const LineSpec& spec) {
  nlohmann::ordered_json kinds = nlohmann::ordered_json::object(), required = nlohmann::ordered_json::array();
  nlohmann::ordered_json to_end = nullptr, suffix = nullptr;
  for (const FieldSpec& f : spec.fields) {
    kinds[std::string(f.key)] = kind_name(f.kind);
    if (f.need != FieldNeed::optional) required.push_back(std::string(f.key));
    if (f.to_end) to_end = std::string(f.key);
  }
  if (spec.by_suffix) suffix = {{std::string(spec.by_suffix->key), kind_name(spec.by_suffix->kind)}};
  return {{"kinds", kinds}, {"required", required}, {"to_end", to_end}, {"by_suffix", suffix}};
}

// Every line that names a combination names it as RES does: log_records reads any of them by RES's names.
constexpr bool names_combination_as_res(std::string_view input, std::string_view batch) {
  return input == res_position::input && batch == res_position::batch;
}
static_assert(names_combination_as_res(stat_key::input, stat_key::batch) &&
              names_combination_as_res(mem_key::input, mem_key::batch) &&
              names_combination_as_res(fail_key::input, fail_key::batch) &&
              names_combination_as_res(check_key::input, check_key::batch) &&
              names_combination_as_res(interrupt_key::input, interrupt_key::batch) &&
              names_combination_as_res(note_key::input, note_key::batch) &&
              names_combination_as_res(profile_key::input, profile_key::batch));

#define FMWORK_LINE_SPEC_ADDRESS(WORD, Record, spec_function, FIELDS, suffix) &spec_function(),
const std::vector<const LineSpec*>& line_specs() {
  static const std::vector<const LineSpec*> all{FMWORK_KEYED_LINES(FMWORK_LINE_SPEC_ADDRESS)};
  return all;
}

}  // namespace

// One function a line (meta_line_spec, ...): its list's rows made FieldSpecs, in order.
#define FMWORK_FIELD_SPEC(type, key, rule) (rule).make(#key, KindOf<type>::value),
#define FMWORK_LINE_SPEC(WORD, Record, spec_function, FIELDS, suffix)             \
  const LineSpec& spec_function() {                                               \
    static const LineSpec spec{#WORD, {FIELDS(FMWORK_FIELD_SPEC)}, suffix};       \
    return spec;                                                                  \
  }
FMWORK_KEYED_LINES(FMWORK_LINE_SPEC)

const std::vector<std::string_view>& compared_keys() {
  static const std::vector<std::string_view> keys = [] {
    std::vector<std::pair<int, std::string_view>> ranked;
    for (const LineSpec* spec : line_specs())
      for (const FieldSpec& f : spec->fields) {
        if (f.compared < 0) continue;
        // meta_value reads the compared keys from META: a mark on another line would be a column never filled.
        if (spec != &meta_line_spec())
          throw runtime_error(fmt::format("log schema: {}'s {} is marked compared; only META's keys are", spec->word, f.key));
        ranked.emplace_back(f.compared, f.key);
      }
#define FMWORK_COMPARED_RANK(key, rank, from) ranked.emplace_back(rank, (static_cast<void>(from), #key));
    FMWORK_COMPARED_KEYS(FMWORK_COMPARED_RANK)
#undef FMWORK_COMPARED_RANK
    std::sort(ranked.begin(), ranked.end());
    std::vector<std::string_view> out;
    for (const auto& [rank, key] : ranked) {
      // The ranks are the columns' places: one key each, none left out.
      if (rank != static_cast<int>(out.size()))
        throw runtime_error(fmt::format("log schema: compared rank {} of {} should be {}", rank, key, out.size()));
      out.push_back(key);
    }
    return out;
  }();
  return keys;
}

std::string log_schema_json() {
#define FMWORK_POSITION_NAME(name) #name,
  nlohmann::ordered_json positional = {{"SETUP", {FMWORK_SETUP_POSITIONS(FMWORK_POSITION_NAME)}},
                                       {"REP", {FMWORK_REP_POSITIONS(FMWORK_POSITION_NAME)}},
                                       {"RES", {FMWORK_RES_POSITIONS(FMWORK_POSITION_NAME)}}};
#undef FMWORK_POSITION_NAME
  nlohmann::ordered_json keyed = nlohmann::ordered_json::object();
  for (const LineSpec* spec : line_specs()) keyed[std::string(spec->word)] = line_json(*spec);
  return python_json_dumps({{"positional", positional}, {"keyed", keyed}}, BadBytes::replace) + "\n";
}

}  // namespace fmwork
