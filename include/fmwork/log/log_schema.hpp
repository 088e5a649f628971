// The log schema: every line's fields, written once. Each FMWORK_<WORD>_FIELDS list has one row a field,
// X(type, key, rule), in the order the writer puts them:
//   type  the member of the line's record (log_values.hpp) that a writer fills by name: int64_t, double or
//         std::string, or OptInt / OptNumber / OptText where the writer may leave the field out; the field's
//         kind (integer, number, text) is the type's;
//   key   the field's key in the line, and the member's name;
//   rule  what else the field is (a FieldRule of log_fields.hpp): required, its range, decimals, choices, and
//         the CSV and summary columns `process` shows it in.
// From these lists come the records (log_values.hpp), the LineSpecs that format_line and parse_line check
// lines against (log_fields.cpp), `process`'s columns (report/formats) and `process --schema`, which
// bench/log_schema.json holds for the Python reader (bench/fmwork_log.py) and scripts. A new field is one row.
// What each field means: docs/log-lines.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fmwork/log/log_fields.hpp"

namespace fmwork {

using OptInt = std::optional<int64_t>;
using OptNumber = std::optional<double>;
using OptText = std::optional<std::string>;

// META: the run's facts, in the order make_meta_line writes them. None required: other writers leave some out
// and add keys of their own (bench/upstream_driver.py writes engine=, python=). cpu is the CPU's model name, isa
// its vector instructions; gemm_gflops the machine's GEMM rate in the run's dtype, device and threads and
// gemm_probe how it was measured (sweep/gemm_probe.hpp); warmup how many of each combination's first reps STAT
// leaves out (a count, or "upstream"); batching, lengths, attention and gelu_epilogue where the model says.
// alike: the facts that change the rate a model runs at (runs alike share them: log_records' plausibility).
// compared(rank): a key whose difference makes two results different experiments, `process --compare`'s and
// --baseline's refusal and the report's columns in rank order (FMWORK_COMPARED_KEYS below adds the one that is
// no META key). runtime stands for compile where a log has it (report/compare.cpp's meta_value).
#define FMWORK_META_FIELDS(X)                                                                                \
  X(std::string, driver, field()) X(std::string, git, field()) X(std::string, torch, field())                \
  X(std::string, blas, field()) X(std::string, onednn, field()) X(std::string, parallel, field())            \
  X(std::string, platform, field().alike().compared(3)) X(std::string, device, field().alike())              \
  X(int64_t, threads, field().alike().compared(1)) X(int64_t, interop_threads, field().alike())              \
  X(std::string, dtype, field().alike().compared(0)) X(int64_t, parameters, field())                         \
  X(std::string, weights, field()) X(std::string, seed, field()) X(std::string, grad, field().alike())       \
  X(std::string, eval, field().alike()) X(std::string, compile, field().alike())                             \
  X(OptText, cpu, field().alike()) X(OptText, isa, field().alike())                                          \
  X(OptNumber, gemm_gflops, field().non_negative().decimals(1)) X(OptText, gemm_probe, field())              \
  X(OptText, warmup, field()) X(OptText, batching, field().compared(7)) X(OptText, lengths, field().compared(8)) \
  X(OptText, attention, field().compared(4)) X(OptText, gelu_epilogue, field().compared(5))                  \
  X(OptText, runtime, field().alike().compared(2))

// STAT: the timing statistics of the kept reps (ms, 6 decimals; the summary shows tokens_per_s, p50, p90,
// p99, stddev, reps, dropped in that order), tokens_per_s = batch x input / p50. Then, where known: the work
// (the FLOPs of a forward pass from the native encoders' formula or the profiler, gflops over p50, of_peak
// its fraction of META's gemm_gflops); the CPU the process got over the reps (base/cpu_use.hpp: CPU time and
// run-queue wait over wall x threads, PSI "some" over wall, steal over the machine's CPU time; all but steal
// may pass 1 under a runtime's own threads or PSI's steps); the device's energy (NVML, over a window after
// the reps: base/energy_window.hpp); the --profile rep's wall time; under a length distribution the tokens
// (real and computed on, the padding fraction) and, where the work varied, the kept reps' spread at equal
// work (verdicts.hpp's equal_work_spread) and how much of it the draws explain. Other *_ms keys: numbers.
#define FMWORK_STAT_FIELDS(X)                                                                                  \
  X(int64_t, input, line_key()) X(int64_t, batch, line_key())                                                 \
  X(int64_t, reps, field().csv().summary(4)) X(int64_t, dropped, field().csv().summary(5))                    \
  X(double, mean_ms, csv_number(6)) X(double, stddev_ms, csv_number(6).summary(3, 1, 3))                     \
  X(double, min_ms, csv_number(6)) X(double, p50_ms, csv_number(6).summary(0, 1, 3))                         \
  X(double, p90_ms, csv_number(6).summary(1, 1, 3)) X(double, p99_ms, csv_number(6).summary(2, 1, 3))         \
  X(double, max_ms, csv_number(6)) X(OptNumber, tokens_per_s, csv_number(3).summary(-1, 1, 1))                \
  X(OptNumber, flops, csv_number(6).digits(6)) X(OptText, flops_from, field().choices("formula|profiler").csv()) \
  X(OptNumber, gflops, csv_number(3).summary(6, 1, 1, true))                                                  \
  X(OptNumber, of_peak, csv_number(4).summary_as("of_peak_%", 7, 0.01, 1, true))                              \
  X(OptNumber, cpu_share, share()) X(OptNumber, wait_share, share()) X(OptNumber, cpu_pressure, share())      \
  X(OptNumber, steal_share, share().fraction())                                                               \
  X(OptNumber, joules_per_rep, csv_number(6).digits(6))                                                       \
  X(OptNumber, joules_per_1000_seq, csv_number(6).digits(6).summary_as("J_per_1000_seq", 8, 1, 3, true))     \
  X(OptNumber, watts, csv_number(1)) X(OptNumber, energy_window_s, csv_number(3))                             \
  X(OptNumber, profile_ms, csv_number(3)) X(OptNumber, real_tokens, csv_number(1))                            \
  X(OptNumber, padded_tokens, csv_number(1))                                                                  \
  X(OptNumber, padding, csv_number(4).fraction().summary_as("padding_%", 9, 0.01, 1, true))                   \
  X(OptNumber, padded_tokens_per_s, csv_number(3)) X(OptNumber, work_cov, field().non_negative().decimals(4)) \
  X(OptNumber, work_p90_p50, field().non_negative().decimals(4)) X(OptNumber, work_drift, field().decimals(4)) \
  X(OptNumber, work_explained, csv_number(4).fraction())

// MEM: the device allocator's peaks where the platform reports them; where it knows what was resident at the
// reset (cuda), the weights and what stays across the reps, and the combination's own peak above it
// (allocated_peak_bytes counts both); the process's peak resident memory on the host over the reps ("reps")
// or, where the kernel refused the reset, since the process started ("process"). Other *_bytes keys: integers.
#define FMWORK_MEM_FIELDS(X)                                                                                   \
  X(int64_t, input, line_key()) X(int64_t, batch, line_key())                                                 \
  X(OptInt, allocated_peak_bytes, field().csv().summary_as("peak_MiB", 0, 1048576.0, 1, true))               \
  X(OptInt, reserved_peak_bytes, field().csv()) X(OptInt, weights_bytes, field().csv())                      \
  X(OptInt, activation_peak_bytes, field().csv().summary_as("activation_MiB", 1, 1048576.0, 1, true))        \
  X(OptInt, host_rss_peak_bytes, field().csv().summary_as("rss_MiB", 2, 1048576.0, 1, true))                 \
  X(OptText, host_rss_peak_of, field().choices("reps|process").csv())

// FAIL: a combination that failed, and why (free text to the end of the line).
#define FMWORK_FAIL_FIELDS(X) \
  X(int64_t, input, line_key()) X(int64_t, batch, line_key()) X(std::string, error, free_text("error"))

// CHECK: the outputs of the combination's last rep against a saved file (--check_outputs; no reference= nor
// rows=) or, with reference=cpu, the first `rows` rows against the same model eager on the CPU
// (sweep/cpu_reference.hpp; open: a newer driver may name another reference); sweep/saved_outputs.hpp says
// how each number is computed (6 significant digits; left out where not finite).
#define FMWORK_CHECK_FIELDS(X)                                                                                 \
  X(int64_t, input, line_key()) X(int64_t, batch, line_key())                                                 \
  X(OptText, reference, field().choices("cpu", true)) X(OptInt, rows, field().at_least(1))                    \
  X(std::string, outputs, field())                                                                            \
  X(OptNumber, max_abs, field().non_negative().digits(6).csv("check_max_abs"))                                \
  X(OptNumber, max_rel, field().non_negative().digits(6).csv("check_max_rel"))                                \
  X(OptNumber, cosine, field().digits(6).csv("check_cosine")) X(double, atol, field().non_negative().digits(6)) \
  X(double, rtol, field().non_negative().digits(6)) X(double, min_cosine, field().non_negative().digits(6))    \
  X(std::string, result, field().required().choices("pass|fail").csv("check", -1))

// COMPILE: one line per compiled artifact (an AOTInductor package), before the reps it serves: what building
// it took (in the run that built it) and what this run spent to have it loaded (lookup, build if needed, load).
#define FMWORK_COMPILE_FIELDS(X)                                                                               \
  X(std::string, backend, field().required()) X(std::string, shape, field().required())                      \
  X(std::string, cache, field().required().choices("hit|built"))                                             \
  X(double, build_seconds, field().non_negative().decimals(3))                                                \
  X(double, ready_seconds, field().non_negative().decimals(3)) X(std::string, key, field())                  \
  X(std::string, vec_isa, field()) X(std::string, batch_range, field()) X(std::string, input_range, field())

// INTERRUPT: the sweep stopped by a signal before its end (the log's last FMWORK line): the combination it was
// at, how many had their RES or FAIL line, and how many it had. A newer driver may stop on another signal.
#define FMWORK_INTERRUPT_FIELDS(X)                                                                             \
  X(int64_t, input, line_key()) X(int64_t, batch, line_key())                                                 \
  X(std::string, signal, field().required().choices("SIGINT|SIGTERM", true))                                  \
  X(int64_t, complete, field().required()) X(int64_t, combinations, field().required().at_least(1))

// NOTE: one combination's noise and validity verdict (verdicts.hpp; open: a newer driver may judge by another
// word). cov, p90_p50 and drift of the kept reps, or of their durations at equal work where spread_of says so
// (mixed lengths); the summary shows cov as a percentage, the CSV the fraction.
#define FMWORK_NOTE_FIELDS(X)                                                                                  \
  X(int64_t, input, line_key()) X(int64_t, batch, line_key())                                                 \
  X(std::string, verdict,                                                                                     \
    field().required().choices("ok|noisy|unstable|too-few-reps|contended|implausible", true).csv().summary(1)) \
  X(int64_t, kept, field()) X(OptNumber, cov, csv_number(4).summary_as("cov_%", 0, 0.01, 1, false))            \
  X(OptNumber, p90_p50, csv_number(4)) X(OptNumber, drift, field().decimals(4).csv())                          \
  X(OptText, spread_of, field().choices("equal_work").csv()) X(std::string, reason, free_text("verdict_reason"))

// PROFILE: one operator of the --profile rep, the top ones by self time (rank 1 the largest): where it ran,
// its time less its children's and with them, its part of all self time on the same side, the profiler's
// FLOPs, and the Chrome trace file in the --profile folder.
#define FMWORK_PROFILE_FIELDS(X)                                                                               \
  X(int64_t, input, line_key()) X(int64_t, batch, line_key()) X(int64_t, rank, field().required().at_least(1)) \
  X(std::string, op, field().required()) X(std::string, on, field()) X(int64_t, calls, field())               \
  X(double, self_ms, field().decimals(3)) X(double, total_ms, field().decimals(3))                            \
  X(double, self_share, field().decimals(4)) X(double, flops, field().digits(6)) X(std::string, trace, field())

// SERVE: one load level of `driver serve` (workload/serve_loop.hpp says what each number is; a figure not
// measured is left out). rate is the open loop's target, users the closed loop's; batch_hist
// "size:batches,..."; queue_p50_ms the median wait from a query's scheduled arrival to its batch's dispatch,
// service_p50_ms the median batch time; the CPU shares as STAT's; timing whether other work held the CPU;
// bound and bound_ms where a --latency_bound was given.
#define FMWORK_SERVE_FIELDS(X)                                                                                 \
  X(int64_t, level, field().required().at_least(1).csv().summary(0))                                          \
  X(std::string, phase, field().required().choices("levels|search").csv().summary(1))                         \
  X(std::string, arrival, field().required().choices("poisson|closed").csv())                                 \
  X(OptNumber, rate, csv_number(3).summary(2, 1, 1)) X(OptInt, users, field().csv().summary(3, 1, -1, true))   \
  X(std::string, lengths, field().csv()) X(std::string, batching, field().csv())                              \
  X(int64_t, max_batch, field().csv()) X(double, max_wait_ms, csv_number(3)) X(int64_t, max_tokens, field().csv()) \
  X(int64_t, queries, field().csv().summary(4)) X(int64_t, warmup_queries, field().csv())                     \
  X(int64_t, unanswered, field().csv()) X(OptNumber, window_s, csv_number(3))                                 \
  X(double, offered_qps, csv_number(3).summary(5, 1, 1)) X(OptNumber, achieved_qps, csv_number(3).summary(6, 1, 1)) \
  X(OptNumber, tokens_per_s, csv_number(1).summary(7, 1, 0)) X(OptNumber, p50_ms, csv_number(3).summary(8, 1, 2)) \
  X(OptNumber, p90_ms, csv_number(3).summary(9, 1, 2)) X(OptNumber, p99_ms, csv_number(3).summary(10, 1, 2))  \
  X(OptNumber, p999_ms, csv_number(3).summary(11, 1, 2)) X(OptNumber, max_ms, csv_number(3).summary(12, 1, 2)) \
  X(OptNumber, mean_ms, csv_number(3)) X(OptNumber, queue_p50_ms, csv_number(3))                              \
  X(OptNumber, service_p50_ms, csv_number(3)) X(int64_t, batches, field().csv())                              \
  X(OptNumber, mean_batch, csv_number(3).summary(13, 1, 2)) X(std::string, batch_hist, field().csv())         \
  X(OptNumber, busy, csv_number(4).fraction().summary(14, 1, 3)) X(OptNumber, joules_per_1000_q, csv_number(3)) \
  X(OptNumber, watts, csv_number(1)) X(OptNumber, energy_window_s, csv_number(3))                             \
  X(OptNumber, cpu_share, share()) X(OptNumber, wait_share, share()) X(OptNumber, cpu_pressure, share())      \
  X(OptNumber, steal_share, share().fraction())                                                               \
  X(OptText, timing, field().choices("ok|contended").csv().summary(16)) X(OptText, bound, field().csv())      \
  X(OptNumber, bound_ms, csv_number(3)) X(std::string, verdict, field().required().choices("VALID|INVALID").csv().summary(15)) \
  X(std::string, reason, free_text("reason"))

// CAPACITY: the capacity search's answer: the highest rate tried whose level was VALID (its percentile bound_ms
// and achieved rate), the lowest that failed, the levels run and each rate tried ("20:pass:12.345,...": rate,
// outcome, the bound's percentile in ms); with a price per hour, the cost of a million queries at the capacity.
#define FMWORK_CAPACITY_FIELDS(X)                                                                              \
  X(std::string, bound, field().required().csv().summary(0))                                                  \
  X(std::string, result, field().required().choices("found|none|partial").csv().summary(1))                  \
  X(OptNumber, capacity_qps, csv_number(3).summary(2, 1, 2)) X(OptNumber, bound_ms, csv_number(3).summary(3, 1, 2)) \
  X(OptNumber, achieved_qps, csv_number(3).summary(4, 1, 2))                                                  \
  X(OptNumber, lowest_failed_qps, csv_number(3).summary(5, 1, 2)) X(int64_t, steps, field().csv().summary(6)) \
  X(std::string, tried, field().csv()) X(OptNumber, price_per_hour, csv_number(4).summary(7, 1, 2))           \
  X(OptNumber, usd_per_million, csv_number(6).summary(8, 1, 4))                                               \
  X(OptNumber, joules_per_1000_q, csv_number(3).summary(9, 1, 1))                                             \
  X(OptText, timing, field().choices("ok|contended").csv().summary(10))                                       \
  X(OptInt, contended_levels, field().csv().summary(11)) X(std::string, reason, free_text("reason"))

// Every key=value line: L(WORD, its record, its LineSpec's function, its list, the rule of keys by suffix). STAT's other
// *_ms keys are numbers >= 0, MEM's other *_bytes keys integers; any other key not listed is allowed (readers
// skip it) and unchecked.
#define FMWORK_KEYED_LINES(L)                                                                               \
  L(META, MetaLineValues, meta_line_spec, FMWORK_META_FIELDS, std::nullopt)                                     \
  L(STAT, StatLineValues, stat_line_spec, FMWORK_STAT_FIELDS, by_suffix<double>("_ms", field().non_negative())) \
  L(MEM, MemLineValues, mem_line_spec, FMWORK_MEM_FIELDS, by_suffix<int64_t>("_bytes", field()))              \
  L(FAIL, FailLineValues, fail_line_spec, FMWORK_FAIL_FIELDS, std::nullopt)                                     \
  L(CHECK, CheckLineValues, check_line_spec, FMWORK_CHECK_FIELDS, std::nullopt)                                 \
  L(COMPILE, CompileLineValues, compile_line_spec, FMWORK_COMPILE_FIELDS, std::nullopt)                         \
  L(INTERRUPT, InterruptLineValues, interrupt_line_spec, FMWORK_INTERRUPT_FIELDS, std::nullopt)                 \
  L(NOTE, NoteLineValues, note_line_spec, FMWORK_NOTE_FIELDS, std::nullopt)                                     \
  L(PROFILE, ProfileLineValues, profile_line_spec, FMWORK_PROFILE_FIELDS, std::nullopt)                         \
  L(SERVE, ServeLineValues, serve_line_spec, FMWORK_SERVE_FIELDS, std::nullopt)                                 \
  L(CAPACITY, CapacityLineValues, capacity_line_spec, FMWORK_CAPACITY_FIELDS, std::nullopt)

// Upstream's lines, read by position after the word (docs/log-lines.md; never change them): the names the
// readers give the positions.
#define FMWORK_SETUP_POSITIONS(X) X(seconds)
#define FMWORK_REP_POSITIONS(X) X(rep) X(reps) X(t0) X(t1) X(dt)
#define FMWORK_RES_POSITIONS(X) \
  X(t_first) X(t_last) X(model_name) X(model_class) X(input) X(batch) X(latency_ms) X(throughput)

// The keys that make two results different experiments (report/compare.hpp's significant_meta_keys), beyond the
// META rows marked compared(rank): X(key, rank, where its value comes from). model is RES's model_name (normalised
// by model_key): every result states it on its own line, so it is no META row, and a META model= would be
// another writer's key, not this one. The third column is checked to name a key, no more: where the value is
// read is report/compare.cpp's meta_value, which names model itself.
#define FMWORK_COMPARED_KEYS(X) X(model, 6, res_position::model_name)

// The keys as names: code that reads a field back names it by its line's constant (meta_key::dtype,
// stat_key::p50_ms, res_position::model_name, ...), made from the rows above, so that a key renamed or removed
// in a list no longer compiles where it is read. A key read by a string literal is a key no build checks.
#define FMWORK_KEY_CONSTANT(type, key, rule) inline constexpr std::string_view key = #key;
#define FMWORK_POSITION_CONSTANT(name) inline constexpr std::string_view name = #name;
namespace meta_key { FMWORK_META_FIELDS(FMWORK_KEY_CONSTANT) }
namespace stat_key { FMWORK_STAT_FIELDS(FMWORK_KEY_CONSTANT) }
namespace mem_key { FMWORK_MEM_FIELDS(FMWORK_KEY_CONSTANT) }
namespace fail_key { FMWORK_FAIL_FIELDS(FMWORK_KEY_CONSTANT) }
namespace check_key { FMWORK_CHECK_FIELDS(FMWORK_KEY_CONSTANT) }
namespace compile_key { FMWORK_COMPILE_FIELDS(FMWORK_KEY_CONSTANT) }
namespace interrupt_key { FMWORK_INTERRUPT_FIELDS(FMWORK_KEY_CONSTANT) }
namespace note_key { FMWORK_NOTE_FIELDS(FMWORK_KEY_CONSTANT) }
namespace profile_key { FMWORK_PROFILE_FIELDS(FMWORK_KEY_CONSTANT) }
namespace serve_key { FMWORK_SERVE_FIELDS(FMWORK_KEY_CONSTANT) }
namespace capacity_key { FMWORK_CAPACITY_FIELDS(FMWORK_KEY_CONSTANT) }
namespace setup_position { FMWORK_SETUP_POSITIONS(FMWORK_POSITION_CONSTANT) }
namespace rep_position { FMWORK_REP_POSITIONS(FMWORK_POSITION_CONSTANT) }
namespace res_position { FMWORK_RES_POSITIONS(FMWORK_POSITION_CONSTANT) }
#define FMWORK_COMPARED_CONSTANT(key, rank, from) inline constexpr std::string_view key = #key;
namespace compared_key { FMWORK_COMPARED_KEYS(FMWORK_COMPARED_CONSTANT) }
#undef FMWORK_COMPARED_CONSTANT
#undef FMWORK_POSITION_CONSTANT
#undef FMWORK_KEY_CONSTANT
// META's warmup= when STAT keeps every rep as upstream's process does (a value, not a key).
inline constexpr std::string_view kMetaWarmupUpstream = "upstream";

// The keys of FMWORK_COMPARED_KEYS and the META rows marked compared(rank), in rank order; a runtime Error at
// the first call if two share a rank or a rank is missing (tests/log/log_fields_test.cpp calls it).
const std::vector<std::string_view>& compared_keys();

// The lists above as LineSpecs (log_schema.cpp), one function a line (meta_line_spec: META, ...).
const LineSpec& meta_line_spec();
const LineSpec& stat_line_spec();
const LineSpec& mem_line_spec();
const LineSpec& fail_line_spec();
const LineSpec& check_line_spec();
const LineSpec& compile_line_spec();
const LineSpec& interrupt_line_spec();
const LineSpec& note_line_spec();
const LineSpec& profile_line_spec();
const LineSpec& serve_line_spec();
const LineSpec& capacity_line_spec();

// The schema as JSON (what `process --schema` prints; bench/log_schema.json is a copy the build keeps current):
// {"positional": {"SETUP": [names], "REP": [...], "RES": [...]}, "keyed": {"META": {"kinds": {key: "integer" |
// "number" | "text", ... in the line's order}, "required": [keys, input and batch included], "to_end": the
// free-text key or null, "by_suffix": {suffix: kind} or null}, ...}}, indented as Python's json.dumps(indent=4).
std::string log_schema_json();

}  // namespace fmwork
