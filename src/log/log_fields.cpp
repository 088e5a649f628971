// The field tables of our key=value log lines (see log_fields.hpp).
#include "fmwork/log/log_fields.hpp"

#include <algorithm>
#include "fmwork/base/text_format.hpp"

namespace fmwork {

const FieldSpec* LineSpec::find(std::string_view key) const {
  for (const FieldSpec& f : fields) {
    if (f.key == key) return &f;
  }
  if (by_suffix && ends_with(key, by_suffix->key)) return &*by_suffix;
  return nullptr;
}

namespace {

std::vector<const FieldSpec*> columns(const LineSpec& spec, ReportColumn FieldSpec::*column) {
  std::vector<const FieldSpec*> out;
  for (const FieldSpec& f : spec.fields) {
    if (!(f.*column).header.empty()) out.push_back(&f);
  }
  std::stable_sort(out.begin(), out.end(),
                   [column](const FieldSpec* a, const FieldSpec* b) { return (a->*column).rank < (b->*column).rank; });
  return out;
}

FieldSpec field(std::string_view key, FieldKind kind, FieldNeed need = FieldNeed::optional) {
  FieldSpec f;
  f.key = key;
  f.kind = kind;
  f.need = need;
  return f;
}

// A number that cannot be below 0: a time, a rate, a count of FLOPs or joules, a share, a ratio of two such.
FieldSpec non_negative(FieldSpec f) {
  f.non_negative = true;
  return f;
}

// A part of a whole, from 0 to 1: a log that says a device was busy 7.5 of the time is no driver's.
FieldSpec fraction_of_one(FieldSpec f) {
  f.non_negative = true;
  f.fraction = true;
  return f;
}

// The fields every per-combination line starts with.
FieldSpec key_field(std::string_view key) {
  FieldSpec f = field(key, FieldKind::integer, FieldNeed::key);
  f.min = 1;
  return f;
}

// A count or statistic of STAT, a CSV column under its key in table order.
FieldSpec count_field(std::string_view key, int summary_rank) {
  FieldSpec f = field(key, FieldKind::integer);
  f.csv = {key};
  f.summary = {key, summary_rank};
  return f;
}

// 6 decimals: nanosecond resolution. In the summary (with 3) where summary_rank >= 0.
FieldSpec ms_field(std::string_view key, int summary_rank = -1) {
  FieldSpec f = non_negative(field(key, FieldKind::number));
  f.precision = 6;
  f.csv = {key};
  if (summary_rank >= 0) f.summary = {key, summary_rank, 1, 3};
  return f;
}

// STAT's tokens_per_s: batch x input / the median, 3 decimals; first of STAT's summary columns, beside
// RES's throughput.
FieldSpec tokens_field() {
  FieldSpec f = non_negative(field("tokens_per_s", FieldKind::number));
  f.precision = 3;
  f.csv = {f.key};
  f.summary = {f.key, -1, 1, 1};
  return f;
}

// An optional number with a CSV column of its own name, `precision` decimals (or significant digits).
FieldSpec csv_number(std::string_view key, int precision, bool significant = false) {
  FieldSpec f = non_negative(field(key, FieldKind::number));
  f.precision = precision;
  f.significant = significant;
  f.csv = {f.key};
  return f;
}

// STAT's work fields (--profile and the native encoders' FLOP formula, see hf/forward_flops.hpp): the
// FLOPs of one forward pass and where the count comes from, the achieved rate over the median latency and
// its fraction of the machine's GEMM rate (META's gemm_gflops). Last of STAT, all optional.
std::vector<FieldSpec> work_fields() {
  FieldSpec flops = csv_number("flops", 6, true);
  FieldSpec from = field("flops_from", FieldKind::text);
  from.choices = "formula|profiler";
  from.csv = {from.key};
  FieldSpec gflops = csv_number("gflops", 3);
  gflops.summary = {gflops.key, 6, 1, 1, true};
  FieldSpec of_peak = csv_number("of_peak", 4);
  of_peak.summary = {"of_peak_%", 7, 0.01, 1, true};  // a percentage for people, the fraction in the CSV
  return {flops, from, gflops, of_peak};
}

// One of the CPU shares over an interval (base/cpu_use.hpp), a fraction with 4 decimals, a CSV column only: the
// verdict (contended) is what people read of them. Optional.
FieldSpec cpu_share_field(std::string_view key) {
  // steal's share of the machine's CPU time cannot pass 1. The others can: cpu_share and wait_share are over wall
  // x the threads asked for, which a runtime's own threads (OpenVINO's TBB) may pass, and PSI's "some" total,
  // which the kernel updates in steps, read 1.0-1.35 of wall over a short combination on a loaded 2-vCPU VM.
  FieldSpec f = key == "steal_share" ? fraction_of_one(field(key, FieldKind::number))
                                     : non_negative(field(key, FieldKind::number));
  f.precision = 4;
  f.csv = {key};
  return f;
}

// STAT's CPU shares over the combination's timed reps, after the work.
std::vector<FieldSpec> cpu_fields() {
  std::vector<FieldSpec> out;
  for (std::string_view key : {"cpu_share", "wait_share", "cpu_pressure", "steal_share"}) out.push_back(cpu_share_field(key));
  return out;
}

// STAT's energy fields (cuda, where NVML has the GPU's energy counter): the device's joules a run of the
// combination's shape takes, measured after the timed reps over a window of at least a second and ten steps of
// the counter (base/energy_window.hpp), per 1000 sequences (/ batch * 1000), the window's mean power and its
// length. Last of STAT, optional.
std::vector<FieldSpec> energy_fields() {
  FieldSpec per_rep = csv_number("joules_per_rep", 6, true);
  FieldSpec per_1000 = csv_number("joules_per_1000_seq", 6, true);
  per_1000.summary = {"J_per_1000_seq", 8, 1, 3, true};
  return {per_rep, per_1000, csv_number("watts", 1), csv_number("energy_window_s", 3)};
}

// STAT's token fields under a length distribution (log_format.hpp's TokenRates): the real tokens of a kept rep
// and those computed on (means, 1 decimal), the padding fraction (4 decimals; a percentage in the summary) and
// the computed tokens per second beside tokens_per_s (then the real ones). Last of STAT, optional.
std::vector<FieldSpec> token_fields() {
  FieldSpec real = csv_number("real_tokens", 1);
  FieldSpec padded = csv_number("padded_tokens", 1);
  FieldSpec padding = fraction_of_one(csv_number("padding", 4));
  padding.summary = {"padding_%", 9, 0.01, 1, true};
  FieldSpec padded_rate = csv_number("padded_tokens_per_s", 3);
  // The kept reps' durations at equal work (verdicts.hpp's equal_work_spread), what the verdict of a run of
  // mixed lengths is made of: written where the work varied. NOTE's cov, p90_p50 and drift columns are these
  // then; work_explained says how much of the durations' spread the draws made.
  FieldSpec cov = csv_number(kStatWorkCov, 4), tail = csv_number(kStatWorkTail, 4);
  cov.csv = tail.csv = {};
  FieldSpec drift = field(kStatWorkDrift, FieldKind::number);
  drift.precision = 4;
  FieldSpec explained = fraction_of_one(csv_number("work_explained", 4));
  return {real, padded, padding, padded_rate, cov, tail, drift, explained};
}

// META's gemm_gflops: the machine's measured GEMM rate (sweep/gemm_probe.hpp), 1 decimal.
FieldSpec gemm_rate_field() {
  FieldSpec f = non_negative(field("gemm_gflops", FieldKind::number));
  f.precision = 1;
  return f;
}

// A CHECK number: 6 significant digits.
FieldSpec check_number(std::string_view key, std::string_view csv_header = {}) {
  FieldSpec f = field(key, FieldKind::number);
  f.precision = 6;
  f.significant = true;
  f.csv = {csv_header};
  return f;
}

}  // namespace

std::vector<const FieldSpec*> LineSpec::csv_columns() const { return columns(*this, &FieldSpec::csv); }
std::vector<const FieldSpec*> LineSpec::summary_columns() const { return columns(*this, &FieldSpec::summary); }

const LineSpec& meta_line_spec() {
  // The run's facts in the order the driver writes them (make_meta_line). Other writers may leave some out and
  // add keys of their own (bench/upstream_driver.py writes engine=, python=): none is required.
  static const LineSpec spec{"META",
                             {field(kMetaDriver, FieldKind::text), field("git", FieldKind::text),
                              field("torch", FieldKind::text), field("blas", FieldKind::text),
                              field("onednn", FieldKind::text), field("parallel", FieldKind::text),
                              field("platform", FieldKind::text), field("device", FieldKind::text),
                              field("threads", FieldKind::integer), field("interop_threads", FieldKind::integer),
                              field(kMetaDtype, FieldKind::text), field("parameters", FieldKind::integer),
                              field("weights", FieldKind::text), field("seed", FieldKind::text),
                              field("grad", FieldKind::text), field("eval", FieldKind::text),
                              field("compile", FieldKind::text), field("cpu", FieldKind::text),
                              field("isa", FieldKind::text), gemm_rate_field(), field("gemm_probe", FieldKind::text),
                              field(kMetaWarmup, FieldKind::text), field("batching", FieldKind::text),
                              field("lengths", FieldKind::text), field("attention", FieldKind::text),
                              field("gelu_epilogue", FieldKind::text), field("runtime", FieldKind::text)},
                             std::nullopt};
  return spec;
}

const LineSpec& stat_line_spec() {
  // The summary shows tokens_per_s, p50, p90, p99, stddev, reps, dropped, in that order.
  static const LineSpec spec = [] {
    std::vector<FieldSpec> fields{key_field("input"), key_field("batch"),   count_field("reps", 4),
                                  count_field("dropped", 5), ms_field("mean_ms"), ms_field("stddev_ms", 3),
                                  ms_field("min_ms"),       ms_field("p50_ms", 0), ms_field("p90_ms", 1),
                                  ms_field("p99_ms", 2),    ms_field("max_ms"),    tokens_field()};
    for (FieldSpec& f : work_fields()) fields.push_back(f);
    for (FieldSpec& f : cpu_fields()) fields.push_back(f);
    for (FieldSpec& f : energy_fields()) fields.push_back(f);
    // The --profile rep's wall time (under the profiler): what the plausibility check holds the timed reps to.
    fields.push_back(csv_number("profile_ms", 3));
    for (FieldSpec& f : token_fields()) fields.push_back(f);
    return LineSpec{"STAT", std::move(fields), non_negative(field("_ms", FieldKind::number))};
  }();
  return spec;
}

const LineSpec& mem_line_spec() {
  static const LineSpec spec = [] {
    FieldSpec allocated = field("allocated_peak_bytes", FieldKind::integer);
    allocated.csv = {allocated.key};
    allocated.summary = {"peak_MiB", 0, 1048576.0, 1, true};  // a CPU run's MEM has the host's peak only
    FieldSpec reserved = field("reserved_peak_bytes", FieldKind::integer);
    reserved.csv = {reserved.key};
    // Where the platform knows what was resident at the reset (cuda): the weights and what stays across the
    // reps, and the combination's own peak above it; allocated_peak_bytes counts both.
    FieldSpec weights = field("weights_bytes", FieldKind::integer);
    weights.csv = {weights.key};
    FieldSpec activations = field("activation_peak_bytes", FieldKind::integer);
    activations.csv = {activations.key};
    activations.summary = {"activation_MiB", 1, 1048576.0, 1, true};
    // The host's: the process's peak resident memory while the reps ran, on every platform, and what the
    // peak covers (the reps, or the whole process where the kernel would not reset it).
    FieldSpec rss = field("host_rss_peak_bytes", FieldKind::integer);
    rss.csv = {rss.key};
    rss.summary = {"rss_MiB", 2, 1048576.0, 1, true};
    FieldSpec since = field("host_rss_peak_of", FieldKind::text);
    since.choices = "reps|process";
    since.csv = {since.key};
    return LineSpec{"MEM", {key_field("input"), key_field("batch"), allocated, reserved, weights, activations, rss, since},
                    field("_bytes", FieldKind::integer)};
  }();
  return spec;
}

const LineSpec& fail_line_spec() {
  static const LineSpec spec = [] {
    FieldSpec error = field("error", FieldKind::text, FieldNeed::required);
    error.to_end = true;
    error.csv = {"error"};
    return LineSpec{"FAIL", {key_field("input"), key_field("batch"), error}, std::nullopt};
  }();
  return spec;
}

namespace {

// A text field that holds one of `choices` ('|' between them).
FieldSpec choice_field(std::string_view key, std::string_view choices, FieldNeed need = FieldNeed::required) {
  FieldSpec f = field(key, FieldKind::text, need);
  f.choices = choices;
  return f;
}

// COMPILE's times: seconds, 3 decimals.
FieldSpec seconds_field(std::string_view key) {
  FieldSpec f = non_negative(field(key, FieldKind::number));
  f.precision = 3;
  return f;
}

// CHECK's reference: cpu (the same model eager on the CPU, sweep/cpu_reference.hpp); absent, the --check_outputs
// file. Open: a newer driver may hold a run to another reference.
FieldSpec check_reference_field() {
  FieldSpec reference = choice_field("reference", "cpu", FieldNeed::optional);
  reference.open_choices = true;
  return reference;
}

// CHECK's rows: how many of the batch's rows were compared (the CPU reference's few); absent, every row.
FieldSpec check_rows_field() {
  FieldSpec rows = field("rows", FieldKind::integer);
  rows.min = 1;
  return rows;
}

// CHECK's outcome: its CSV column comes first, then the numbers behind it.
FieldSpec check_result_field() {
  FieldSpec result = choice_field("result", "pass|fail");
  result.csv = {"check", -1};
  return result;
}

}  // namespace

const LineSpec& compile_line_spec() {
  static const LineSpec spec{"COMPILE",
                             {field("backend", FieldKind::text, FieldNeed::required),
                              field("shape", FieldKind::text, FieldNeed::required), choice_field("cache", "hit|built"),
                              seconds_field("build_seconds"), seconds_field("ready_seconds"),
                              field("key", FieldKind::text), field("vec_isa", FieldKind::text),
                              field("batch_range", FieldKind::text), field("input_range", FieldKind::text)},
                             std::nullopt};
  return spec;
}

const LineSpec& interrupt_line_spec() {
  static const LineSpec spec = [] {
    FieldSpec signal = choice_field("signal", "SIGINT|SIGTERM");
    signal.open_choices = true;  // a newer driver may stop on another signal: not the log's end
    FieldSpec complete = field("complete", FieldKind::integer, FieldNeed::required);
    FieldSpec combinations = field("combinations", FieldKind::integer, FieldNeed::required);
    combinations.min = 1;
    return LineSpec{"INTERRUPT", {key_field("input"), key_field("batch"), signal, complete, combinations},
                    std::nullopt};
  }();
  return spec;
}

const LineSpec& check_line_spec() {
  static const LineSpec spec{"CHECK",
                             {key_field("input"), key_field("batch"), check_reference_field(), check_rows_field(),
                              field("outputs", FieldKind::text), non_negative(check_number("max_abs", "check_max_abs")),
                              non_negative(check_number("max_rel", "check_max_rel")),
                              check_number("cosine", "check_cosine"), non_negative(check_number("atol")),
                              non_negative(check_number("rtol")), non_negative(check_number("min_cosine")),
                              check_result_field()},
                             std::nullopt};
  return spec;
}

const LineSpec& note_line_spec() {
  static const LineSpec spec = [] {
    FieldSpec verdict = field("verdict", FieldKind::text, FieldNeed::required);
    verdict.choices = "ok|noisy|unstable|too-few-reps|contended|implausible";
    verdict.open_choices = true;  // a newer driver may judge by a word this reader has not: not the log's end
    verdict.csv = {"verdict"};
    verdict.summary = {"verdict", 1};
    FieldSpec kept = field("kept", FieldKind::integer);
    FieldSpec cov = non_negative(field("cov", FieldKind::number)),
              tail = non_negative(field("p90_p50", FieldKind::number)),
              drift = field("drift", FieldKind::number);
    cov.precision = tail.precision = drift.precision = 4;
    cov.csv = {"cov"};
    cov.summary = {"cov_%", 0, 0.01, 1};  // a percentage for people, the fraction in the CSV
    tail.csv = {"p90_p50"};
    drift.csv = {"drift"};
    // Where cov, p90_p50 and drift are of the durations at equal work (mixed lengths): equal_work. Left out
    // for the reps' own spread.
    FieldSpec spread_of = field("spread_of", FieldKind::text);
    spread_of.choices = "equal_work";
    spread_of.csv = {"spread_of"};
    FieldSpec reason = field("reason", FieldKind::text, FieldNeed::required);
    reason.to_end = true;
    reason.csv = {"verdict_reason"};
    return LineSpec{"NOTE", {key_field("input"), key_field("batch"), verdict, kept, cov, tail, drift, spread_of, reason},
                    std::nullopt};
  }();
  return spec;
}

const LineSpec& profile_line_spec() {
  static const LineSpec spec = [] {
    FieldSpec rank = field("rank", FieldKind::integer, FieldNeed::required);
    rank.min = 1;
    FieldSpec op = field("op", FieldKind::text, FieldNeed::required);
    FieldSpec calls = field("calls", FieldKind::integer);
    FieldSpec self = field("self_ms", FieldKind::number), total = field("total_ms", FieldKind::number);
    self.precision = total.precision = 3;
    FieldSpec share = field("self_share", FieldKind::number);
    share.precision = 4;
    FieldSpec flops = field("flops", FieldKind::number);
    flops.precision = 6;
    flops.significant = true;
    return LineSpec{"PROFILE",
                    {key_field("input"), key_field("batch"), rank, op, field("on", FieldKind::text), calls, self,
                     total, share, flops, field("trace", FieldKind::text)},
                    std::nullopt};
  }();
  return spec;
}

namespace {

// A SERVE / CAPACITY number with `precision` decimals and a CSV column of its own name; in the summary at
// `summary_rank` (>= 0) with `decimals` there.
FieldSpec serve_number(std::string_view key, int precision, int summary_rank = -1, int decimals = 1) {
  FieldSpec f = csv_number(key, precision);
  if (summary_rank >= 0) f.summary = {key, summary_rank, 1, decimals};
  return f;
}

FieldSpec serve_integer(std::string_view key, int summary_rank = -1) {
  FieldSpec f = field(key, FieldKind::integer);
  f.csv = {key};
  if (summary_rank >= 0) f.summary = {key, summary_rank};
  return f;
}

FieldSpec serve_text(std::string_view key, std::string_view choices = {}, FieldNeed need = FieldNeed::optional,
                     int summary_rank = -1) {
  FieldSpec f = field(key, FieldKind::text, need);
  f.choices = choices;
  f.csv = {key};
  if (summary_rank >= 0) f.summary = {key, summary_rank};
  return f;
}

// SERVE's and CAPACITY's timing=ok|contended (the sweep's verdict word for it): whether other work held the CPU
// while the level (the levels deciding the capacity) ran; absent where the platform has no CPU counters.
FieldSpec timing_field(int summary_rank) { return serve_text("timing", "ok|contended", FieldNeed::optional, summary_rank); }

FieldSpec reason_field() {
  FieldSpec reason = field("reason", FieldKind::text, FieldNeed::required);
  reason.to_end = true;
  reason.csv = {"reason"};
  return reason;
}

}  // namespace

const LineSpec& serve_line_spec() {
  // The summary: the load, what it achieved, the latency percentiles, the batches and the verdict.
  static const LineSpec spec = [] {
    FieldSpec level = field("level", FieldKind::integer, FieldNeed::required);
    level.min = 1;
    level.csv = {"level"};
    level.summary = {"level", 0};
    FieldSpec users = serve_integer("users", 3);
    users.summary.when_present = true;
    return LineSpec{"SERVE",
                    {level, serve_text("phase", "levels|search", FieldNeed::required, 1),
                     serve_text("arrival", "poisson|closed", FieldNeed::required), serve_number("rate", 3, 2, 1), users,
                     serve_text("lengths"), serve_text("batching"), serve_integer("max_batch"),
                     serve_number("max_wait_ms", 3), serve_integer("max_tokens"), serve_integer("queries", 4),
                     serve_integer("warmup_queries"), serve_integer("unanswered"), serve_number("window_s", 3),
                     serve_number("offered_qps", 3, 5), serve_number("achieved_qps", 3, 6),
                     serve_number("tokens_per_s", 1, 7, 0), serve_number("p50_ms", 3, 8, 2),
                     serve_number("p90_ms", 3, 9, 2), serve_number("p99_ms", 3, 10, 2),
                     serve_number("p999_ms", 3, 11, 2), serve_number("max_ms", 3, 12, 2), serve_number("mean_ms", 3),
                     serve_number("queue_p50_ms", 3), serve_number("service_p50_ms", 3),
                     serve_integer("batches"), serve_number("mean_batch", 3, 13, 2), serve_text("batch_hist"),
                     fraction_of_one(serve_number("busy", 4, 14, 3)), serve_number("joules_per_1000_q", 3),
                     serve_number("watts", 1), serve_number("energy_window_s", 3), cpu_share_field("cpu_share"),
                     cpu_share_field("wait_share"), cpu_share_field("cpu_pressure"), cpu_share_field("steal_share"),
                     timing_field(16), serve_text("bound"),
                     serve_number("bound_ms", 3), serve_text("verdict", "VALID|INVALID", FieldNeed::required, 15),
                     reason_field()},
                    std::nullopt};
  }();
  return spec;
}

const LineSpec& capacity_line_spec() {
  static const LineSpec spec = [] {
    return LineSpec{"CAPACITY",
                    {serve_text("bound", {}, FieldNeed::required, 0), serve_text("result", "found|none|partial", FieldNeed::required, 1),
                     serve_number("capacity_qps", 3, 2, 2), serve_number("bound_ms", 3, 3, 2),
                     serve_number("achieved_qps", 3, 4, 2), serve_number("lowest_failed_qps", 3, 5, 2),
                     serve_integer("steps", 6), serve_text("tried"), serve_number("price_per_hour", 4, 7, 2),
                     serve_number("usd_per_million", 6, 8, 4), serve_number("joules_per_1000_q", 3, 9, 1),
                     timing_field(10), serve_integer("contended_levels", 11), reason_field()},
                    std::nullopt};
  }();
  return spec;
}

}  // namespace fmwork
