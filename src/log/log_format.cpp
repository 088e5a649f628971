// The line writers: every FMWORK line's record type made text (format_line and the make_* builders), and
// the Fields and token helpers of log_format.hpp. The parsers are in log_parse.cpp; the value rules both
// hold to are in log_rules.hpp. See docs/log-lines.md for the formats.
#include "fmwork/log/log_format.hpp"
#include "fmwork/log/log_values.hpp"

#include <cmath>

#include "fmwork/base/text_format.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <set>

#include <fmt/format.h>

#include "fmwork/base/error.hpp"
#include "log_rules.hpp"

namespace fmwork {

using namespace log_rules;

namespace {

std::string format_fields(const LineSpec& spec, const Fields& fields) {
  const std::string_view word = spec.word;
  const FieldSpec* tail = to_end_field(spec);
  std::string out = "FMWORK " + std::string(word);
  std::set<std::string, std::less<>> seen;
  for (size_t i = 0; i < fields.items.size(); ++i) {
    const auto& [key, value] = fields.items[i];
    if (!is_key(key)) throw line_error(word, "key " + quote(key) + " is not [A-Za-z0-9_.-]+");
    if (!seen.insert(key).second) throw line_error(word, "has the key " + quote(key) + " twice");
    const bool free_text = tail && key == tail->key;
    if (free_text && i + 1 != fields.items.size()) throw line_error(word, key + "= must be the last field");
    if (!free_text) {
      for (char c : value) {
        if (is_control_or_space(c)) {
          throw line_error(word, "value of " + quote(key) + " must hold no spaces or control characters, got " +
                                     quote(value));
        }
      }
    }
    // Made one line, not refused: a failure is always reported. Its text may quote a model's files.
    out += ' ' + key + '=' + (free_text ? without_record_words(one_line(value)) : value);
  }
  check_fields(spec, fields.items, Side::writer);
  return out;
}

std::string name_token(std::string_view what, const std::string& value) {
  if (!is_log_token(value)) {
    throw runtime_error("FMWORK RES " + std::string(what) + " must be non-empty without spaces, got " + quote(value));
  }
  return value;
}

struct Formatter {
  // A word as typed, its control characters written out (escape_controls): the command line's parsers refuse
  // them first, and a word that got past them still cannot write a line of its own. Escaped rather than
  // refused here: the ARGS echo is written before anything runs and must not stop a run the parser took.
  std::string operator()(const ArgLine& l) const {
    return l.text.empty() ? "FMWORK ARG" : "FMWORK ARG " + escape_controls(l.text);
  }
  std::string operator()(const SetupLine& l) const { return "FMWORK SETUP " + printf_double(l.seconds, 6); }
  std::string operator()(const RepLine& l) const {
    return "FMWORK REP " + std::to_string(l.rep) + " " + std::to_string(l.reps) + " " + format_timestamp(l.t0) + " " +
           format_timestamp(l.t1) + " " + format_duration_seconds(l.t1 - l.t0);
  }
  std::string operator()(const ResLine& l) const {
    return "FMWORK RES " + format_timestamp(l.t_first) + " " + format_timestamp(l.t_last) + " " +
           name_token(res_position::model_name, l.model_name) + " " +
           name_token(res_position::model_class, l.model_class) + " " +
           std::to_string(l.input) + " " + std::to_string(l.batch) + " " + printf_double(l.latency_ms, 3) + " " +
           printf_double(l.throughput, 1);
  }
  std::string operator()(const MetaLine& l) const { return format_fields(meta_line_spec(), l.fields); }
  std::string operator()(const StatLine& l) const { return format_fields(stat_line_spec(), l.fields); }
  std::string operator()(const MemLine& l) const { return format_fields(mem_line_spec(), l.fields); }
  std::string operator()(const FailLine& l) const { return format_fields(fail_line_spec(), l.fields); }
  std::string operator()(const CheckLine& l) const { return format_fields(check_line_spec(), l.fields); }
  std::string operator()(const CompileLine& l) const { return format_fields(compile_line_spec(), l.fields); }
  std::string operator()(const NoteLine& l) const { return format_fields(note_line_spec(), l.fields); }
  std::string operator()(const ProfileLine& l) const { return format_fields(profile_line_spec(), l.fields); }
  std::string operator()(const ServeLine& l) const { return format_fields(serve_line_spec(), l.fields); }
  std::string operator()(const CapacityLine& l) const { return format_fields(capacity_line_spec(), l.fields); }
  std::string operator()(const InterruptLine& l) const { return format_fields(interrupt_line_spec(), l.fields); }
};

}  // namespace

// ---- public ----

std::string format_timestamp(Nanos t) {
  if (t < 0) throw runtime_error("a timestamp cannot be negative: " + std::to_string(t) + " ns");
  std::string frac = std::to_string(t % kNanosPerSecond);
  return std::to_string(t / kNanosPerSecond) + "." + std::string(9 - frac.size(), '0') + frac;
}

std::string format_duration_seconds(Nanos dt) {
  // Written from the integer, exactly: what '%.9f' % ((t1 - t0) / 1e9) prints for any realistic dt.
  bool negative = dt < 0;
  uint64_t magnitude = negative ? 0 - static_cast<uint64_t>(dt) : static_cast<uint64_t>(dt);
  std::string frac = std::to_string(magnitude % kNanosPerSecond);
  return (negative ? "-" : "") + std::to_string(magnitude / kNanosPerSecond) + "." +
         std::string(9 - frac.size(), '0') + frac;
}

namespace {
std::atomic<int> first_write_errno{0};
}  // namespace

void note_write_error(const std::ostream& out) {
  int none = 0;
  if (!out && errno != 0) first_write_errno.compare_exchange_strong(none, errno);
}

void flush_or_throw(std::ostream& out, const std::string& what) {
  errno = 0;
  out.flush();
  if (out) return;
  const int error = errno ? errno : first_write_errno.load();
  throw runtime_error("cannot write " + what + (error ? " (" + std::string(std::strerror(error)) + ")" : std::string()) +
                      ": the disk may be full or the output closed; the run stops");
}

std::string banner(const std::string& title) {
  const std::string rule(80, '-');
  return "\n" + rule + "\n" + title + "\n" + rule + "\n\n";
}

std::string log_text(std::string_view text) {
  std::string out;
  for (std::string_view line : split(text, '\n')) out += without_record_words(escape_controls(line)) + '\n';
  out.pop_back();  // split gives one line at least
  return out;
}

bool is_log_token(std::string_view text) {
  return !text.empty() && std::none_of(text.begin(), text.end(), is_control_or_space);
}

std::string to_log_token(std::string_view text) {
  std::string out;
  bool pending = false;
  for (char c : text) {
    if (is_control_or_space(c)) {
      pending = !out.empty();
    } else {
      if (pending) out += '_';
      pending = false;
      out += c;
    }
  }
  return out.empty() ? "-" : out;
}

ResLine make_res_line(Nanos t_first, Nanos t_last, const std::string& model_name, const std::string& model_class,
                      int64_t input, int64_t batch, double latency_ms, double throughput) {
  return ResLine{t_first, t_last, model_name, model_class, input, batch, latency_ms, throughput};
}

namespace {

// A text fact that is left out of its line when empty.
OptText unless_empty(const std::string& text) { return text.empty() ? OptText() : OptText(text); }

}  // namespace

MetaLine make_meta_line(const MetaFacts& f) {
  MetaLineValues v;
  v.driver = f.driver, v.git = f.git, v.torch = f.torch, v.blas = f.blas, v.onednn = f.onednn;
  v.parallel = f.parallel, v.platform = f.platform, v.device = f.device;
  v.threads = f.threads, v.interop_threads = f.interop_threads, v.dtype = f.dtype, v.parameters = f.parameters;
  v.weights = f.weights, v.seed = f.seed, v.grad = f.grad, v.eval = f.eval, v.compile = f.compile;
  v.cpu = unless_empty(f.cpu), v.isa = unless_empty(f.isa);
  if (f.gemm_gflops) v.gemm_gflops = *f.gemm_gflops, v.gemm_probe = unless_empty(f.gemm_probe);
  v.warmup = unless_empty(f.warmup), v.batching = unless_empty(f.batching), v.lengths = unless_empty(f.lengths);
  v.attention = unless_empty(f.attention), v.gelu_epilogue = unless_empty(f.gelu_epilogue);
  v.runtime = unless_empty(f.runtime);
  return MetaLine{to_fields(v)};
}

double tokens_per_s(int64_t input, int64_t batch, double latency_ms) {
  return static_cast<double>(batch) * static_cast<double>(input) * 1000.0 / latency_ms;
}

namespace {

// STAT's fields past the timing statistics, each where StatExtras has it (make_stat_line says how).
void add_stat_extras(StatLineValues& v, const StatExtras& extras) {
  if (const auto& work = extras.work; work && work->flops > 0 && v.p50_ms > 0) {
    v.flops = work->flops;
    v.flops_from = work->flops_from;
    v.gflops = work->flops / (v.p50_ms / 1000.0) / 1e9;
    if (work->peak_gflops && *work->peak_gflops > 0) v.of_peak = *v.gflops / *work->peak_gflops;
  }
  if (const auto& cpu = extras.cpu) {
    v.cpu_share = cpu->cpu_share, v.wait_share = cpu->wait_share;
    v.cpu_pressure = cpu->pressure, v.steal_share = cpu->steal_share;
  }
  if (const auto& energy = extras.energy; energy && v.batch > 0) {
    v.joules_per_rep = energy->joules_per_run();
    v.joules_per_1000_seq = energy->joules_per_run() / static_cast<double>(v.batch) * 1000.0;
    v.watts = energy->watts();
    v.energy_window_s = energy->seconds;
  }
  v.profile_ms = extras.profile_ms;
  if (const auto& tokens = extras.tokens; tokens && tokens->padded_tokens > 0) {
    v.real_tokens = tokens->real_tokens, v.padded_tokens = tokens->padded_tokens;
    v.padding = 1.0 - tokens->real_tokens / tokens->padded_tokens;
    v.padded_tokens_per_s = tokens->padded_per_s;
    v.work_cov = tokens->work_cov, v.work_p90_p50 = tokens->work_tail, v.work_drift = tokens->work_drift;
    v.work_explained = tokens->work_explained;
  }
}

}  // namespace

StatLine make_stat_line(int64_t input, int64_t batch, const StatValues& s, const StatExtras& extras) {
  StatLineValues v;
  v.input = input, v.batch = batch, v.reps = s.reps, v.dropped = s.dropped;
  v.mean_ms = s.mean_ms, v.stddev_ms = s.stddev_ms, v.min_ms = s.min_ms;
  v.p50_ms = s.p50_ms, v.p90_ms = s.p90_ms, v.p99_ms = s.p99_ms, v.max_ms = s.max_ms;
  if (extras.tokens) {
    v.tokens_per_s = extras.tokens->real_per_s;
  } else if (s.p50_ms > 0) {
    v.tokens_per_s = tokens_per_s(input, batch, s.p50_ms);  // never inf
  }
  add_stat_extras(v, extras);
  return StatLine{to_fields(v)};
}

ProfileLine make_profile_line(int64_t input, int64_t batch, const ProfiledOp& op, const std::string& trace) {
  constexpr size_t kMaxName = 160;  // a CUDA kernel's templated name runs to thousands of characters
  ProfileLineValues v;
  v.input = input, v.batch = batch, v.rank = op.rank;
  v.op = to_log_token(op.op);
  if (v.op.size() > kMaxName) v.op = v.op.substr(0, kMaxName - 3) + "...";
  v.on = to_log_token(op.on), v.calls = op.calls;
  v.self_ms = op.self_ms, v.total_ms = op.total_ms, v.self_share = op.self_share, v.flops = op.flops;
  v.trace = to_log_token(trace);
  return ProfileLine{to_fields(v)};
}

MemLine make_mem_line(int64_t input, int64_t batch, int64_t allocated_peak_bytes, int64_t reserved_peak_bytes) {
  MemFacts facts;
  facts.allocated_peak_bytes = allocated_peak_bytes;
  facts.reserved_peak_bytes = reserved_peak_bytes;
  return make_mem_line(input, batch, facts);
}

MemLine make_mem_line(int64_t input, int64_t batch, const MemFacts& f) {
  MemLineValues v;
  v.input = input, v.batch = batch;
  v.allocated_peak_bytes = f.allocated_peak_bytes, v.reserved_peak_bytes = f.reserved_peak_bytes;
  if (f.allocated_peak_bytes) v.weights_bytes = f.weights_bytes;
  if (f.weights_bytes && f.allocated_peak_bytes)
    v.activation_peak_bytes = std::max<int64_t>(*f.allocated_peak_bytes - *f.weights_bytes, 0);
  v.host_rss_peak_bytes = f.host_rss_peak_bytes;
  if (f.host_rss_peak_bytes) v.host_rss_peak_of = std::string(f.host_rss_of_reps ? "reps" : "process");
  return MemLine{to_fields(v)};
}

CheckLine make_check_line(int64_t input, int64_t batch, const CheckFacts& f) {
  // A NaN or inf in the outputs or the reference makes a measured figure NaN (and the check fail); no FMWORK
  // line carries one, and writing it was an internal error in place of the CHECK line. It is left out.
  const auto measured = [](double x) { return std::isfinite(x) ? OptNumber(x) : OptNumber(); };
  CheckLineValues v;
  v.input = input, v.batch = batch, v.outputs = to_log_token(joined(f.outputs, ","));
  if (!f.reference.empty()) v.reference = f.reference;
  if (f.rows > 0) v.rows = f.rows;
  v.max_abs = measured(f.max_abs), v.max_rel = measured(f.max_rel), v.cosine = measured(f.cosine);
  v.atol = f.atol, v.rtol = f.rtol, v.min_cosine = f.min_cosine;
  const bool finite = v.max_abs && v.max_rel && v.cosine;
  v.result = f.pass && finite ? "pass" : "fail";
  return CheckLine{to_fields(v)};
}

CompileLine make_compile_line(const CompileFacts& f) {
  const auto or_dash = [](const std::string& s) { return s.empty() ? std::string("-") : s; };
  CompileLineValues v;
  v.backend = f.backend, v.shape = f.shape, v.cache = f.cache_hit ? "hit" : "built";
  v.build_seconds = f.build_seconds, v.ready_seconds = f.ready_seconds;
  v.key = or_dash(f.key), v.vec_isa = or_dash(f.vec_isa);
  v.batch_range = or_dash(f.batch_range), v.input_range = or_dash(f.input_range);
  return CompileLine{to_fields(v)};
}

InterruptLine make_interrupt_line(int64_t input, int64_t batch, const std::string& signal, int64_t complete,
                                  int64_t combinations) {
  InterruptLineValues v;
  v.input = input, v.batch = batch, v.signal = signal, v.complete = complete, v.combinations = combinations;
  return InterruptLine{to_fields(v)};
}

FailLine make_fail_line(int64_t input, int64_t batch, std::string_view error) {
  FailLineValues v;
  v.input = input, v.batch = batch;
  for (char c : error) {
    auto u = static_cast<unsigned char>(c);
    v.error += (u < 0x20 || u == 0x7f) ? ' ' : c;
  }
  size_t b = v.error.find_first_not_of(' ');
  size_t e = v.error.find_last_not_of(' ');
  v.error = b == std::string::npos ? std::string() : v.error.substr(b, e - b + 1);
  return FailLine{to_fields(v)};
}

std::string format_line(const LogLine& line) { return std::visit(Formatter{}, line); }

std::string combination_failure(int64_t input, int64_t batch, std::string_view error) {
  return fmt::format("combination input {} / batch {} failed: {}; the sweep goes on", input, batch, error);
}

}  // namespace fmwork
