// The values of each key=value line as a typed record, written by name: one member per field of the line's
// table (log_fields.hpp), the member named as its key and typed by its kind (integer: int64_t, number: double,
// text: std::string; std::optional of one where the writer may leave the field out). A writer fills the record
// member by member (`v.p50_ms = latency.p50_ms`) and to_fields() turns it into the line's fields in the
// table's order, so a value cannot land under another key by its position.
//
// Each record is declared from one list of (type, key) pairs (the FMWORK_*_VALUES macros below): the list makes
// the members and the keyed() view of them, so a member without a key, or a key without a member, cannot be
// written. What the list must agree with (the same keys, in the same order, of matching kinds) is the line's
// table; keyed_fields checks that on every write and throws a runtime Error naming the first key that differs
// (tests/log/log_format_test.cpp writes every record, so a table and a list out of step fail a test).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "fmwork/log/log_fields.hpp"

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

#define FMWORK_VALUE_MEMBER(type, key) type key{};
#define FMWORK_VALUE_KEYED(type, key) ::fmwork::keyed(#key, key),
// A record named `Name` of the (type, key) list `FIELDS`, checked against the table `spec_function()`.
#define FMWORK_LINE_VALUES(Name, FIELDS, spec_function)                                                    \
  struct Name {                                                                                           \
    FIELDS(FMWORK_VALUE_MEMBER)                                                                           \
    static const LineSpec& spec() { return spec_function(); }                                             \
    std::vector<KeyedValue> keyed() const { return {FIELDS(FMWORK_VALUE_KEYED)}; }                         \
  }

using OptInt = std::optional<int64_t>;
using OptNumber = std::optional<double>;
using OptText = std::optional<std::string>;

// META (meta_line_spec): the run's facts; the optional ones are left out when not known.
#define FMWORK_META_VALUES(X)                                                                                   \
  X(std::string, driver) X(std::string, git) X(std::string, torch) X(std::string, blas) X(std::string, onednn) \
  X(std::string, parallel) X(std::string, platform) X(std::string, device) X(int64_t, threads)               \
  X(int64_t, interop_threads) X(std::string, dtype) X(int64_t, parameters) X(std::string, weights)           \
  X(std::string, seed) X(std::string, grad) X(std::string, eval) X(std::string, compile) X(OptText, cpu)     \
  X(OptText, isa) X(OptNumber, gemm_gflops) X(OptText, gemm_probe) X(OptText, warmup) X(OptText, batching)   \
  X(OptText, lengths) X(OptText, attention) X(OptText, gelu_epilogue) X(OptText, runtime)
FMWORK_LINE_VALUES(MetaLineValues, FMWORK_META_VALUES, meta_line_spec);

// STAT (stat_line_spec): the timing statistics, then what is known of the work, the CPU, the energy, the
// profile rep and the tokens.
#define FMWORK_STAT_VALUES(X)                                                                                  \
  X(int64_t, input) X(int64_t, batch) X(int64_t, reps) X(int64_t, dropped) X(double, mean_ms)                 \
  X(double, stddev_ms) X(double, min_ms) X(double, p50_ms) X(double, p90_ms) X(double, p99_ms)                \
  X(double, max_ms) X(OptNumber, tokens_per_s) X(OptNumber, flops) X(OptText, flops_from) X(OptNumber, gflops) \
  X(OptNumber, of_peak) X(OptNumber, cpu_share) X(OptNumber, wait_share) X(OptNumber, cpu_pressure)           \
  X(OptNumber, steal_share) X(OptNumber, joules_per_rep) X(OptNumber, joules_per_1000_seq) X(OptNumber, watts) \
  X(OptNumber, energy_window_s) X(OptNumber, profile_ms) X(OptNumber, real_tokens) X(OptNumber, padded_tokens) \
  X(OptNumber, padding) X(OptNumber, padded_tokens_per_s) X(OptNumber, work_cov) X(OptNumber, work_p90_p50)    \
  X(OptNumber, work_drift) X(OptNumber, work_explained)
FMWORK_LINE_VALUES(StatLineValues, FMWORK_STAT_VALUES, stat_line_spec);

// MEM (mem_line_spec).
#define FMWORK_MEM_VALUES(X)                                                                                     \
  X(int64_t, input) X(int64_t, batch) X(OptInt, allocated_peak_bytes) X(OptInt, reserved_peak_bytes)            \
  X(OptInt, weights_bytes) X(OptInt, activation_peak_bytes) X(OptInt, host_rss_peak_bytes) X(OptText, host_rss_peak_of)
FMWORK_LINE_VALUES(MemLineValues, FMWORK_MEM_VALUES, mem_line_spec);

// FAIL (fail_line_spec).
#define FMWORK_FAIL_VALUES(X) X(int64_t, input) X(int64_t, batch) X(std::string, error)
FMWORK_LINE_VALUES(FailLineValues, FMWORK_FAIL_VALUES, fail_line_spec);

// CHECK (check_line_spec): the measured figures are left out where they are not finite.
#define FMWORK_CHECK_VALUES(X)                                                                                   \
  X(int64_t, input) X(int64_t, batch) X(OptText, reference) X(OptInt, rows) X(std::string, outputs)               \
  X(OptNumber, max_abs) X(OptNumber, max_rel) X(OptNumber, cosine) X(double, atol) X(double, rtol) X(double, min_cosine) X(std::string, result)
FMWORK_LINE_VALUES(CheckLineValues, FMWORK_CHECK_VALUES, check_line_spec);

// COMPILE (compile_line_spec).
#define FMWORK_COMPILE_VALUES(X)                                                                                 \
  X(std::string, backend) X(std::string, shape) X(std::string, cache) X(double, build_seconds)                  \
  X(double, ready_seconds) X(std::string, key) X(std::string, vec_isa) X(std::string, batch_range)             \
  X(std::string, input_range)
FMWORK_LINE_VALUES(CompileLineValues, FMWORK_COMPILE_VALUES, compile_line_spec);

// INTERRUPT (interrupt_line_spec).
#define FMWORK_INTERRUPT_VALUES(X) \
  X(int64_t, input) X(int64_t, batch) X(std::string, signal) X(int64_t, complete) X(int64_t, combinations)
FMWORK_LINE_VALUES(InterruptLineValues, FMWORK_INTERRUPT_VALUES, interrupt_line_spec);

// NOTE (note_line_spec): the spread's numbers are left out where the spread lacks them.
#define FMWORK_NOTE_VALUES(X)                                                                                    \
  X(int64_t, input) X(int64_t, batch) X(std::string, verdict) X(int64_t, kept) X(OptNumber, cov)                \
  X(OptNumber, p90_p50) X(OptNumber, drift) X(OptText, spread_of) X(std::string, reason)
FMWORK_LINE_VALUES(NoteLineValues, FMWORK_NOTE_VALUES, note_line_spec);

// PROFILE (profile_line_spec).
#define FMWORK_PROFILE_VALUES(X)                                                                                 \
  X(int64_t, input) X(int64_t, batch) X(int64_t, rank) X(std::string, op) X(std::string, on) X(int64_t, calls)  \
  X(double, self_ms) X(double, total_ms) X(double, self_share) X(double, flops) X(std::string, trace)
FMWORK_LINE_VALUES(ProfileLineValues, FMWORK_PROFILE_VALUES, profile_line_spec);

// SERVE (serve_line_spec): a figure that was not measured is left out (process shows it as not measured).
#define FMWORK_SERVE_VALUES(X)                                                                                   \
  X(int64_t, level) X(std::string, phase) X(std::string, arrival) X(OptNumber, rate) X(OptInt, users)           \
  X(std::string, lengths) X(std::string, batching) X(int64_t, max_batch) X(double, max_wait_ms)                 \
  X(int64_t, max_tokens) X(int64_t, queries) X(int64_t, warmup_queries) X(int64_t, unanswered)                  \
  X(OptNumber, window_s) X(double, offered_qps) X(OptNumber, achieved_qps) X(OptNumber, tokens_per_s)              \
  X(OptNumber, p50_ms) X(OptNumber, p90_ms) X(OptNumber, p99_ms) X(OptNumber, p999_ms) X(OptNumber, max_ms)     \
  X(OptNumber, mean_ms) X(OptNumber, queue_p50_ms) X(OptNumber, service_p50_ms) X(int64_t, batches)            \
  X(OptNumber, mean_batch) X(std::string, batch_hist) X(OptNumber, busy) X(OptNumber, joules_per_1000_q)      \
  X(OptNumber, watts) X(OptNumber, energy_window_s) X(OptNumber, cpu_share) X(OptNumber, wait_share)            \
  X(OptNumber, cpu_pressure) X(OptNumber, steal_share) X(OptText, timing) X(OptText, bound) X(OptNumber, bound_ms) \
  X(std::string, verdict) X(std::string, reason)
FMWORK_LINE_VALUES(ServeLineValues, FMWORK_SERVE_VALUES, serve_line_spec);

// CAPACITY (capacity_line_spec).
#define FMWORK_CAPACITY_VALUES(X)                                                                                \
  X(std::string, bound) X(std::string, result) X(OptNumber, capacity_qps) X(OptNumber, bound_ms)                \
  X(OptNumber, achieved_qps) X(OptNumber, lowest_failed_qps) X(int64_t, steps) X(std::string, tried)            \
  X(OptNumber, price_per_hour) X(OptNumber, usd_per_million) X(OptNumber, joules_per_1000_q)                   \
  X(OptText, timing) X(OptInt, contended_levels) X(std::string, reason)
FMWORK_LINE_VALUES(CapacityLineValues, FMWORK_CAPACITY_VALUES, capacity_line_spec);

}  // namespace fmwork
