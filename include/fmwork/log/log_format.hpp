// Every FMWORK line the driver writes and `process` reads, defined once: a record type, its writer and
// its parser. Upstream's lines (ARG, SETUP, REP, RES) keep upstream's exact layout; ours (META, STAT,
// MEM, FAIL, CHECK, COMPILE, NOTE, PROFILE, SERVE, CAPACITY, INTERRUPT) are `FMWORK <WORD> key=value ...` lines upstream's tools ignore, each described by one
// list of log_schema.hpp, made a field table (log_fields.hpp) that the writer, the parser and process's CSV and
// summary columns all read. docs/log-lines.md shows
// each with an example.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "fmwork/base/cpu_use.hpp"
#include "fmwork/base/energy_window.hpp"
#include "fmwork/log/log_schema.hpp"
#include "fmwork/log/log_values.hpp"
#include "fmwork/log/stat_values.hpp"
#include "fmwork/domain/compile_facts.hpp"

namespace fmwork {

// A point in time as integer nanoseconds; written "seconds.nanoseconds" with exactly 9 digits, as
// upstream's time_format does (under one second we write "0.000000005" where upstream writes
// ".000000005"; the parser reads both). A negative timestamp throws a runtime Error.
using Nanos = int64_t;
std::string format_timestamp(Nanos t);        // 1108911088153850 -> "1108911.088153850"
// '%.9f' % (dt / 1e9), written exactly from the integer: 3702621 -> "0.003702621", -5 -> "-0.000000005".
std::string format_duration_seconds(Nanos dt);

// Flushes `out` and throws a one-line runtime Error naming `what` and the system's reason when anything
// written to it was lost (a full disk, a closed standard output): a run that cannot write its log must
// not go on and exit 0.
void flush_or_throw(std::ostream& out, const std::string& what);
// Records the reason (errno) when a write to `out` has just failed, for flush_or_throw's message: a stream
// that failed while it filled its buffer (a full disk in the middle of REP lines) keeps no reason of its
// own by the time it is flushed. Only the first reason is kept.
void note_write_error(const std::ostream& out);

// The banner upstream prints: "\n" + 80 '-' + "\n" + title + "\n" + 80 '-' + "\n\n".
std::string banner(const std::string& title);

// Free text made safe for a log: the one way the lines between FMWORK lines (RUNTIME, MODEL, their notes)
// are written, whatever they quote (a config.json's strings, safetensors names, a tokenizer's or a
// package's metadata, a plugin's description, a path). Each line of `text` ('\n' separates them and is
// kept) has its other control characters written out (escape_controls: a lone '\r' ends a line for
// `process` and upstream's script, ESC moves a terminal's cursor) and each "FMWORK" written "\x46MWORK",
// so that no text from a file can write a line tools read, nor one `grep "FMWORK RES"` takes. FMWORK lines
// are format_line's alone.
std::string log_text(std::string_view text);

// FMWORK ARG <text>: one option as typed ("--reps 100", "--compile"). The text runs to the end of the
// line (trailing whitespace is not kept, as upstream's strip() drops it).
struct ArgLine { std::string text; };
// FMWORK SETUP 1.234567: seconds from the start of loading to the model being ready.
struct SetupLine { double seconds = 0; };
// FMWORK REP <rep> <reps> <t0> <t1> <dt>: dt is written as t1 - t0; read, it is checked for form only.
struct RepLine { int64_t rep = 0, reps = 0; Nanos t0 = 0, t1 = 0; };
// FMWORK RES <t_first> <t_last> <model_name> <model_class> <input> <batch> <latency_ms %.3f> <thp %.1f>
struct ResLine {
  Nanos t_first = 0, t_last = 0;
  std::string model_name, model_class;
  int64_t input = 0, batch = 0;
  double latency_ms = 0, throughput = 0;
};

// Our extension lines' fields (Fields) and the records they are written from: log_values.hpp.
// A token of a log line: non-empty, no whitespace or control characters. Names written into RES and
// values of key=value fields must be tokens; the CLI can check names up front with this.
bool is_log_token(std::string_view text);
// Makes a token of free text for a META value: each run of whitespace or control characters becomes
// one '_', leading/trailing ones are dropped; empty text gives "-". "NVIDIA H100 80GB" -> "NVIDIA_H100_80GB".
std::string to_log_token(std::string_view text);

// The extension lines as read or to be written: their fields as text, in line order (the specs above say
// what each holds).
struct MetaLine { Fields fields; };
struct StatLine { Fields fields; };
struct MemLine { Fields fields; };
struct FailLine { Fields fields; };
struct CheckLine { Fields fields; };
struct CompileLine { Fields fields; };
struct NoteLine { Fields fields; };  // made by verdicts.hpp's make_note_line
struct ProfileLine { Fields fields; };
struct ServeLine { Fields fields; };     // made by workload/serve_lines.hpp
struct CapacityLine { Fields fields; };  // made by workload/serve_lines.hpp
struct InterruptLine { Fields fields; };

// Builders for the sweep, so that every number is formatted in one place, each filling its line's record
// (log_values.hpp) by name. They format the numbers they
// are given; stats.hpp computes them (latency_ms, throughput, stat_values).
ResLine make_res_line(Nanos t_first, Nanos t_last, const std::string& model_name, const std::string& model_class,
                      int64_t input, int64_t batch, double latency_ms, double throughput);
// What STAT says of the work a forward pass does, where it is known: its FLOPs, where the count comes from
// ("formula" or "profiler") and the machine's GEMM rate in GFLOP/s when it was measured.
struct WorkFacts {
  double flops = 0;
  std::string flops_from;
  std::optional<double> peak_gflops;
};
// Under a length distribution (--input_lengths) or a batching mode: the real tokens of a kept rep (mean),
// the tokens the model computed on (padded and sorted: batch x the padded length; unpadded: the real ones),
// and each per second over the kept reps' summed durations.
struct TokenRates {
  double real_tokens = 0, padded_tokens = 0;
  double real_per_s = 0, padded_per_s = 0;
  // The kept reps' durations at equal work (verdicts.hpp's equal_work_spread), where their work varied: the
  // STAT fields work_cov, work_p90_p50, work_drift and work_explained.
  std::optional<double> work_cov, work_tail, work_drift, work_explained;
};
// What a STAT line may carry beyond the timing statistics, each where known.
struct StatExtras {
  std::optional<WorkFacts> work;
  std::optional<CpuUse> cpu;
  std::optional<EnergyWindow> energy;    // the device's energy a run takes (base/energy_window.hpp)
  std::optional<double> profile_ms;      // the --profile rep's wall time, under the profiler
  std::optional<TokenRates> tokens;      // under --input_lengths or a --batching mode
};
// STAT: the values as they are, then tokens_per_s = batch * input / (p50_ms / 1000) (tokens_per_s() below);
// with `work`, flops and flops_from, gflops = flops / p50 and (with a peak) of_peak = gflops / peak; with
// `cpu`, its shares (those it has); with `energy`, joules_per_rep (its joules_per_run()),
// joules_per_1000_seq = joules_per_rep / batch * 1000, watts and energy_window_s; with `profile_ms`, profile_ms. With `tokens`, tokens_per_s is
// tokens->real_per_s (real tokens, not batch x input), and STAT adds real_tokens, padded_tokens, padding =
// 1 - real / padded and padded_tokens_per_s.
StatLine make_stat_line(int64_t input, int64_t batch, const StatValues& values, const StatExtras& extras = {});
// Tokens per second of a combination whose median latency is `latency_ms`: batch * input * 1000 / latency_ms,
// in double (no overflow); infinity for a latency of 0, as the division gives.
double tokens_per_s(int64_t input, int64_t batch, double latency_ms);
MemLine make_mem_line(int64_t input, int64_t batch, int64_t allocated_peak_bytes, int64_t reserved_peak_bytes);
// MEM with what is known: the device's peaks where the platform reports them; `weights_bytes`, what was
// allocated on the device when the peaks were reset (the weights and what stays across the reps), which adds
// activation_peak_bytes = allocated_peak_bytes - weights_bytes; the host's peak resident memory and whether it
// covers the reps alone (host_rss_of_reps) or the whole process.
struct MemFacts {
  std::optional<int64_t> allocated_peak_bytes, reserved_peak_bytes, weights_bytes, host_rss_peak_bytes;
  bool host_rss_of_reps = true;
};
MemLine make_mem_line(int64_t input, int64_t batch, const MemFacts& facts);
// FAIL: the error text is made one line (newlines, tabs and other control characters become spaces;
// leading and trailing spaces are dropped; "FMWORK" in it is written "\x46MWORK", as log_text writes it),
// so any exception message can be passed as is.
FailLine make_fail_line(int64_t input, int64_t batch, std::string_view error);
// INTERRUPT: the sweep stopped by `signal` ("SIGINT", "SIGTERM") at combination batch x input, `complete` of
// its `combinations` having their RES or FAIL line.
InterruptLine make_interrupt_line(int64_t input, int64_t batch, const std::string& signal, int64_t complete,
                                  int64_t combinations);
// The FAIL line's companion on stderr, for the person watching: "combination input 512 / batch 256 failed:
// <error>; the sweep goes on". One wording for the sweep and for --isolate's parent.
std::string combination_failure(int64_t input, int64_t batch, std::string_view error);
// CHECK: what an output check measured (the worst over the compared outputs) against its tolerances.
struct CheckFacts {
  std::string reference;                       // "cpu" for the CPU eager model; "": the --check_outputs file
  int64_t rows = 0;                            // the batch's rows compared; 0: every row
  std::vector<std::string> outputs;            // the outputs compared, by name
  double max_abs = 0, max_rel = 0, cosine = 0;  // measured
  double atol = 0, rtol = 0, min_cosine = 0;    // allowed
  bool pass = false;
};
// A measured figure that is not finite (NaN or inf in the outputs or the reference) is left out of the line,
// and its result is fail.
CheckLine make_check_line(int64_t input, int64_t batch, const CheckFacts& facts);

// META: what meta_line_spec() lists, in its order (text fields already log tokens: to_log_token).
struct MetaFacts {
  std::string driver, git, torch, blas, onednn, parallel, platform, device;
  int64_t threads = 0, interop_threads = 0;
  std::string dtype;
  int64_t parameters = 0;
  std::string weights, seed, grad, eval, compile;
  std::string cpu, isa;                // left out when empty
  std::optional<double> gemm_gflops;   // with gemm_probe: the machine's GEMM rate and how it was measured
  std::string gemm_probe;
  std::string warmup;                  // the reps STAT leaves out: a count, or kMetaWarmupUpstream; empty: left out
  std::string batching;                // padded, sorted, unpadded; empty: left out (no --input_lengths nor --batching)
  std::string lengths;                 // the length distribution (length_spec_text); empty: left out
  std::string attention;               // sdpa, eager (ModelFacts::attention); empty: left out
  std::string gelu_epilogue;           // true, false (ModelFacts::gelu_epilogue); empty: left out
  std::string runtime;                 // what ran the forward (ModelFacts::runtime, or the compile backend)
};
MetaLine make_meta_line(const MetaFacts& facts);

// COMPILE: what compile_line_spec() lists (domain/compile_facts.hpp).
CompileLine make_compile_line(const CompileFacts& facts);

// PROFILE: one operator of a --profile rep (profile_line_spec() says what each field holds). `op` is made a
// token (to_log_token) and cut to 160 characters; `on` likewise; `trace` is the trace file's name.
struct ProfiledOp {
  int64_t rank = 0;
  std::string op, on;
  int64_t calls = 0;
  double self_ms = 0, total_ms = 0, self_share = 0, flops = 0;
};
ProfileLine make_profile_line(int64_t input, int64_t batch, const ProfiledOp& op, const std::string& trace);

using LogLine =
    std::variant<ArgLine, SetupLine, RepLine, ResLine, MetaLine, StatLine, MemLine, FailLine, CheckLine, CompileLine,
                 NoteLine, ProfileLine, ServeLine, CapacityLine, InterruptLine>;

// The line's text without the trailing newline. Throws a runtime Error for what could not be read back:
// a name or value that is not a token, a bad key, a missing or mistyped field, FAIL's error not last, a
// negative timestamp, a line break in an ARG text. FAIL's error text is made one line (control
// characters become spaces, trailing spaces go) rather than refused. The text returned reads back
// (parse_line) to a line that formats to the same text.
std::string format_line(const LogLine& line);

// Parses one line; trailing whitespace ("\n" and "\r\n" included) is ignored, as upstream's strip()
// does. Lines that do not start with "FMWORK " and FMWORK lines of words we do not read (EXP, ENV, GEN,
// ...) give nullopt. A line of a known word that is malformed throws a runtime Error saying which field
// is wrong ("FMWORK RES line has 7 values, expected 8: t_first t_last ...", "FMWORK RES input must be an
// integer, got '12x'"); callers add file and line number. Checks: the values of SETUP (1), REP (5), RES (8), as
// the schema names their positions, split on single spaces as upstream splits; integers (rep, reps, input, batch >= 1; rep <= reps);
// timestamps <digits>.<9 digits>; dt [-]<digits>.<9 digits>; numbers as Python's float() reads them
// (inf and nan included); names non-empty; for the key=value lines what their comments say.
std::optional<LogLine> parse_line(std::string_view line);

}  // namespace fmwork
