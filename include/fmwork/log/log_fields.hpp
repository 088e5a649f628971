// The fields of our key=value log lines (META, STAT, MEM, FAIL, CHECK, COMPILE, NOTE, PROFILE, SERVE, CAPACITY, INTERRUPT), each defined once as a table: its
// keys, their kinds and formats, which are required, and the columns `process` shows them in. log_format
// writes and checks the lines from these tables, formats makes its CSV and summary columns of them.
// Data only: no parsing or formatting here.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace fmwork {

enum class FieldKind { integer, number, text };
// key: names the combination (input, batch), checked before any other field so that an error is about
// the line's identity first; required: must be present; optional: checked where present.
enum class FieldNeed { optional, required, key };

// A column `process` shows a field in. An empty header: the field has no such column.
struct ReportColumn {
  std::string_view header;
  int rank = 0;          // order among the line's columns, lowest first; a tie keeps the table's order
  double divisor = 1;    // the summary shows value / divisor with `decimals` decimals ...
  int decimals = -1;     // ... or, at -1, the value as written (so is a value that is not a number)
  bool when_present = false;  // the summary leaves the column out of a table where no row has the field
};

// One known field of an extension line.
struct FieldSpec {
  std::string_view key;
  FieldKind kind = FieldKind::text;
  FieldNeed need = FieldNeed::optional;
  int64_t min = 0;               // integer: the smallest value accepted
  bool non_negative = false;     // number: below 0 is refused (a latency, a rate, a share), as nan and inf are
  bool fraction = false;         // number: a part of a whole (SERVE's busy, STAT's padding): above 1 refused too
  int precision = 0;             // number, written "%.<precision>f", or "%.<precision>g" when significant
  bool significant = false;
  std::string_view choices;      // text: the accepted values, '|' between them ("pass|fail"); empty: any
  bool open_choices = false;     // text: `choices` are the words known now: a reader takes another (a newer
                                 // writer's) as unknown instead of refusing the log; a writer still refuses it
  bool to_end = false;           // text: free text to the end of the line (the field must come last)
  ReportColumn csv;              // its column in `process --format csv`
  ReportColumn summary;          // its column in `process --format summary`
};

// The fields of one extension line, in the order the writer puts them. Keys not listed are allowed
// (readers skip them) and unchecked, except those ending with by_suffix->key, checked as by_suffix says
// (STAT's "*_ms" numbers, MEM's "*_bytes" integers).
struct LineSpec {
  std::string_view word;
  std::vector<FieldSpec> fields;
  std::optional<FieldSpec> by_suffix;
  // The spec a key is checked against: its listed field, else the suffix rule; nullptr for neither.
  const FieldSpec* find(std::string_view key) const;
  // The fields with a CSV / summary column, in column order.
  std::vector<const FieldSpec*> csv_columns() const;
  std::vector<const FieldSpec*> summary_columns() const;
};

// FMWORK META driver= git= torch= blas= onednn= parallel= platform= device= threads= interop_threads= dtype=
// parameters= weights= seed= grad= eval= compile= cpu= isa= gemm_gflops= gemm_probe= warmup=: run metadata, in that
// order from our driver; none required, other keys allowed (other writers add their own); threads,
// interop_threads and parameters are integers, gemm_gflops a number (1 decimal). cpu is the CPU's model
// name, isa its vector instructions ("avx2", "avx512+avx512_bf16+amx"); gemm_gflops the machine's GEMM rate
// in the run's dtype, device and threads and gemm_probe how it was measured (sweep/gemm_probe.hpp).
// warmup is how many of each combination's first reps STAT leaves out: a count (--warmup N) or "upstream"
// (max(int(0.2*reps),1), upstream's rule, which RES always follows). batching= and lengths= (mixed lengths),
// attention= (sdpa, eager) and gelu_epilogue= (true, false) where the model says (the native encoders): the
// computation that ran, which --compare holds a pair to.
// `process` reads dtype= (the JSON precision) and driver= (present: our driver wrote the log).
inline constexpr std::string_view kMetaDriver = "driver";
inline constexpr std::string_view kMetaWarmup = "warmup";
inline constexpr std::string_view kMetaWarmupUpstream = "upstream";
inline constexpr std::string_view kMetaDtype = "dtype";
const LineSpec& meta_line_spec();
// FMWORK STAT input=I batch=B reps=N dropped=D mean_ms= stddev_ms= min_ms= p50_ms= p90_ms= p99_ms= max_ms=
// tokens_per_s= [flops= flops_from=formula|profiler gflops= of_peak=]: input and batch are required (integers
// >= 1); reps, dropped are integers >= 0, *_ms keys numbers (written with 6 decimals) and tokens_per_s (batch
// x input / p50, 3 decimals) a number where present. Where the FLOPs of a forward pass are known: flops (6
// significant digits) and where they come from (the native encoders' formula, or the profiler's FLOP counter
// on the --profile rep), gflops = flops / p50 (3 decimals) and, where the machine's GEMM rate was measured,
// of_peak = gflops / META's gemm_gflops (a fraction, 4 decimals). Where the driver measured what CPU the
// process got over the timed reps (base/cpu_use.hpp; 4 decimals each, any may be left out): cpu_share (CPU
// time over wall x threads), wait_share (run-queue wait over wall x threads), cpu_pressure (PSI "some" over
// wall), steal_share (steal over the machine's CPU time). Under a length distribution: real_tokens=
// padded_tokens= padding= padded_tokens_per_s= and, where the kept reps' work varied, the spread of their
// durations at equal work (verdicts.hpp's equal_work_spread): work_cov= work_p90_p50= work_drift= and
// work_explained= (the share of the durations' variance the work explains), 4 decimals each.
inline constexpr std::string_view kStatWorkCov = "work_cov";
inline constexpr std::string_view kStatWorkTail = "work_p90_p50";
inline constexpr std::string_view kStatWorkDrift = "work_drift";
const LineSpec& stat_line_spec();
// FMWORK MEM input=I batch=B allocated_peak_bytes= reserved_peak_bytes= host_rss_peak_bytes= host_rss_peak_of=
// input and batch required; *_bytes keys are integers >= 0 where present. allocated / reserved are the
// device allocator's peaks (where the platform reports them); host_rss_peak_bytes the process's peak
// resident memory, host_rss_peak_of what it covers: "reps" (the peak was reset before the combination's
// reps) or "process" (the kernel refused the reset: the process's peak since it started).

const LineSpec& mem_line_spec();
// FMWORK FAIL input=I batch=B error=<free text to the end of the line>
// input, batch and error required; error last.
const LineSpec& fail_line_spec();
// FMWORK CHECK input=I batch=B reference=cpu rows=R outputs=a,b max_abs= max_rel= cosine= atol= rtol= min_cosine=
// result=pass|fail: the outputs of the combination's last rep against a saved file (--check_outputs; no reference=
// nor rows=) or, with reference=cpu, the first R rows of them against the same model eager on the CPU
// (sweep/cpu_reference.hpp); sweep/saved_outputs.hpp says how each number is computed. input, batch and result
// required; the numbers (6 significant digits) are numbers where present.
const LineSpec& check_line_spec();
// FMWORK COMPILE backend=inductor shape=8x128|dynamic cache=hit|built build_seconds= ready_seconds= key=
// vec_isa= batch_range= input_range=: one line per compiled artifact (an AOTInductor package), printed
// before the reps it serves. build_seconds is what building it took (when it was built, in the run that
// built it); ready_seconds what this run spent to have it loaded (lookup, build if needed, load).
// backend, shape and cache required.
const LineSpec& compile_line_spec();
// FMWORK INTERRUPT input=I batch=B signal=SIGINT|SIGTERM complete= combinations=: the sweep stopped by a signal
// (Ctrl-C, kill) before its end: the combination it was at (running, or about to run), how many of its
// combinations had their RES or FAIL line, and how many it had. All required; the log's last FMWORK line.
const LineSpec& interrupt_line_spec();
// FMWORK NOTE input=I batch=B verdict=ok|noisy|unstable|too-few-reps|contended|implausible kept= cov= p90_p50= drift=
// [spread_of=equal_work] reason=<text>:
// the noise and validity verdict of one combination (verdicts.hpp computes it). input, batch, verdict and
// reason required, reason last; kept an integer >= 0; cov, p90_p50 and drift numbers (4 decimals) where
// present; spread_of=equal_work where they are the spread of the durations at equal work (mixed lengths). Its CSV columns (verdict, cov, p90_p50, drift, verdict_reason) and summary columns (cov_%,
// verdict) are what `process` computes from the REP / STAT lines.
const LineSpec& note_line_spec();
// FMWORK PROFILE input=I batch=B rank=R op=<name> on=cpu|cuda|... calls= self_ms= total_ms= self_share= flops=
// trace=<file>: one line per operator of the --profile rep, the top ones by self time (rank 1 the largest).
// op is the operator's name made a token (aten::addmm; a kernel's name cut to 160 characters); on where it
// ran (cpu for operators, the device for its kernels); self_ms its time less its children's, total_ms with
// them (3 decimals), self_share its part of all self time on the same side (4 decimals), flops what the
// profiler's FLOP counter gave it (6 significant digits); trace the Chrome trace file in the --profile
// folder. input, batch, rank and op required.
const LineSpec& profile_line_spec();

// FMWORK SERVE level=N phase=levels|search arrival=poisson|closed rate= users= lengths= batching= max_batch=
// max_wait_ms= max_tokens= queries= warmup_queries= unanswered= window_s= offered_qps= achieved_qps= tokens_per_s=
// p50_ms= p90_ms= p99_ms= p999_ms= max_ms= mean_ms= queue_p50_ms= service_p50_ms= batches= mean_batch= batch_hist=
// busy= bound= bound_ms=
// verdict=VALID|INVALID reason=<text>: one load level of `driver serve` (workload/serve_loop.hpp says what each
// number is). level (>= 1, the level's order in the run), phase, arrival, verdict and reason are required, reason
// last. rate is the open loop's target (queries/s), users the closed loop's; lengths the queries' length
// ("fixed:128", a distribution); batching how batches run (padded); max_tokens 0 for none; batch_hist
// "size:batches,...". queue_p50_ms is the median wait from a query's scheduled arrival to its batch's dispatch,
// service_p50_ms the median batch time (dispatch to synchronised answer). Latencies run from each query's scheduled arrival to its batch's synchronised answer.
// bound and bound_ms (the bound's percentile here) where a --latency_bound was given.
const LineSpec& serve_line_spec();
// FMWORK CAPACITY bound=p99:50 result=found|none capacity_qps= bound_ms= achieved_qps= lowest_failed_qps= steps=
// tried= price_per_hour= usd_per_million= reason=<text>: the capacity search's answer: the highest rate tried whose
// level was VALID (its percentile bound_ms and achieved rate), the lowest that failed, the levels run and each
// rate tried ("20:pass:12.345,40:fail:80.100": rate, outcome, the bound's percentile in ms); with a price per
// hour, the cost of a million queries at the capacity. bound, result and reason required, reason last.
const LineSpec& capacity_line_spec();

}  // namespace fmwork
