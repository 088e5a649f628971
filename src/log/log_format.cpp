// The line writers: every FMWORK line's record type made text (format_line and the make_* builders), and
// the Fields and token helpers of log_format.hpp. The parsers are in log_parse.cpp; the value rules both
// hold to are in log_rules.hpp. See docs/log-lines.md for the formats.
#include "fmwork/log/log_format.hpp"

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
    out += ' ' + key + '=' + (free_text ? one_line(value) : value);  // made one line, not refused: a failure is always reported
  }
  check_fields(spec, fields.items);
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
           name_token("model_name", l.model_name) + " " + name_token("model_class", l.model_class) + " " +
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

std::optional<int64_t> Fields::get_int(std::string_view key) const {
  const std::string* v = find(key);
  if (!v) return std::nullopt;
  auto parsed = to_int(*v);
  if (!parsed) throw runtime_error(std::string(key) + "= must be an integer, got " + quote(*v));
  return parsed;
}

std::optional<double> Fields::get_double(std::string_view key) const {
  const std::string* v = find(key);
  if (!v) return std::nullopt;
  auto parsed = to_double(*v);
  if (!parsed) throw runtime_error(std::string(key) + "= must be a number, got " + quote(*v));
  return parsed;
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

Fields make_fields(const LineSpec& spec, const std::vector<FieldValue>& values) {
  if (values.size() != spec.fields.size()) {
    throw runtime_error("FMWORK " + std::string(spec.word) + " has " + std::to_string(spec.fields.size()) +
                        " fields, given " + std::to_string(values.size()) + " values");
  }
  Fields fields;
  for (size_t i = 0; i < values.size(); ++i) {
    fields.add(std::string(spec.fields[i].key), format_value(spec.fields[i], values[i]));
  }
  return fields;
}

Fields make_some_fields(const LineSpec& spec, const std::vector<std::optional<FieldValue>>& values) {
  if (values.size() != spec.fields.size()) {
    throw runtime_error("FMWORK " + std::string(spec.word) + " has " + std::to_string(spec.fields.size()) +
                        " fields, given " + std::to_string(values.size()) + " values");
  }
  Fields fields;
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i]) fields.add(std::string(spec.fields[i].key), format_value(spec.fields[i], *values[i]));
  }
  return fields;
}

ResLine make_res_line(Nanos t_first, Nanos t_last, const std::string& model_name, const std::string& model_class,
                      int64_t input, int64_t batch, double latency_ms, double throughput) {
  return ResLine{t_first, t_last, model_name, model_class, input, batch, latency_ms, throughput};
}

MetaLine make_meta_line(const MetaFacts& f) {
  using V = std::optional<FieldValue>;
  const auto text = [](const std::string& s) { return s.empty() ? V() : V(std::string_view(s)); };
  const bool probed = f.gemm_gflops.has_value();
  return MetaLine{make_some_fields(
      meta_line_spec(), {V(f.driver), V(f.git), V(f.torch), V(f.blas), V(f.onednn), V(f.parallel), V(f.platform),
                         V(f.device), V(f.threads), V(f.interop_threads), V(f.dtype), V(f.parameters), V(f.weights),
                         V(f.seed), V(f.grad), V(f.eval), V(f.compile), text(f.cpu), text(f.isa),
                         probed ? V(*f.gemm_gflops) : V(), probed ? text(f.gemm_probe) : V(), text(f.warmup),
                         text(f.batching), text(f.lengths)})};
}

double tokens_per_s(int64_t input, int64_t batch, double latency_ms) {
  return static_cast<double>(batch) * static_cast<double>(input) * 1000.0 / latency_ms;
}

StatLine make_stat_line(int64_t input, int64_t batch, const StatValues& v, const StatExtras& extras) {
  const std::optional<WorkFacts>& work = extras.work;
  const std::optional<CpuUse>& cpu = extras.cpu;
  const std::optional<TokenRates>& tokens = extras.tokens;
  using V = std::optional<FieldValue>;
  const V rate = tokens ? V(tokens->real_per_s) : v.p50_ms > 0 ? V(tokens_per_s(input, batch, v.p50_ms)) : V();
  std::vector<V> values{V(input),    V(batch),    V(v.reps),   V(v.dropped), V(v.mean_ms), V(v.stddev_ms),
                        V(v.min_ms), V(v.p50_ms), V(v.p90_ms), V(v.p99_ms),  V(v.max_ms),
                        rate};  // never inf
  V flops, from, gflops, of_peak;
  if (work && work->flops > 0 && v.p50_ms > 0) {
    const double rate = work->flops / (v.p50_ms / 1000.0) / 1e9;
    flops = work->flops;
    from = std::string_view(work->flops_from);
    gflops = rate;
    if (work->peak_gflops && *work->peak_gflops > 0) of_peak = rate / *work->peak_gflops;
  }
  for (V* x : {&flops, &from, &gflops, &of_peak}) values.push_back(*x);
  const auto share = [](const std::optional<double>& x) { return x ? V(*x) : V(); };
  values.push_back(cpu ? share(cpu->cpu_share) : V());
  values.push_back(cpu ? share(cpu->wait_share) : V());
  values.push_back(cpu ? share(cpu->pressure) : V());
  values.push_back(cpu ? share(cpu->steal_share) : V());
  V per_rep, per_1000, watts, window_s;
  if (extras.energy && batch > 0) {
    per_rep = extras.energy->joules_per_run();
    per_1000 = extras.energy->joules_per_run() / static_cast<double>(batch) * 1000.0;
    watts = extras.energy->watts();
    window_s = extras.energy->seconds;
  }
  for (V* x : {&per_rep, &per_1000, &watts, &window_s}) values.push_back(*x);
  values.push_back(extras.profile_ms ? V(*extras.profile_ms) : V());
  const bool counted = tokens && tokens->padded_tokens > 0;
  values.push_back(counted ? V(tokens->real_tokens) : V());
  values.push_back(counted ? V(tokens->padded_tokens) : V());
  values.push_back(counted ? V(1.0 - tokens->real_tokens / tokens->padded_tokens) : V());
  values.push_back(counted ? V(tokens->padded_per_s) : V());
  return StatLine{make_some_fields(stat_line_spec(), values)};
}

ProfileLine make_profile_line(int64_t input, int64_t batch, const ProfiledOp& op, const std::string& trace) {
  constexpr size_t kMaxName = 160;  // a CUDA kernel's templated name runs to thousands of characters
  std::string name = to_log_token(op.op);
  if (name.size() > kMaxName) name = name.substr(0, kMaxName - 3) + "...";
  const std::string on = to_log_token(op.on), file = to_log_token(trace);
  return ProfileLine{make_fields(profile_line_spec(), {input, batch, op.rank, std::string_view(name),
                                                       std::string_view(on), op.calls, op.self_ms, op.total_ms,
                                                       op.self_share, op.flops, std::string_view(file)})};
}

MemLine make_mem_line(int64_t input, int64_t batch, int64_t allocated_peak_bytes, int64_t reserved_peak_bytes) {
  MemFacts facts;
  facts.allocated_peak_bytes = allocated_peak_bytes;
  facts.reserved_peak_bytes = reserved_peak_bytes;
  return make_mem_line(input, batch, facts);
}

MemLine make_mem_line(int64_t input, int64_t batch, const MemFacts& f) {
  using V = std::optional<FieldValue>;
  const auto bytes = [](const std::optional<int64_t>& x) { return x ? V(*x) : V(); };
  V activations;
  if (f.weights_bytes && f.allocated_peak_bytes)
    activations = std::max<int64_t>(*f.allocated_peak_bytes - *f.weights_bytes, 0);
  return MemLine{make_some_fields(mem_line_spec(),
                                  {V(input), V(batch), bytes(f.allocated_peak_bytes), bytes(f.reserved_peak_bytes),
                                   f.allocated_peak_bytes ? bytes(f.weights_bytes) : V(), activations,
                                   bytes(f.host_rss_peak_bytes),
                                   f.host_rss_peak_bytes ? V(std::string_view(f.host_rss_of_reps ? "reps" : "process"))
                                                         : V()})};
}

CheckLine make_check_line(int64_t input, int64_t batch, const CheckFacts& f) {
  // A NaN or inf in the outputs or the reference makes a measured figure NaN (and the check fail); no FMWORK
  // line carries one, and writing it was an internal error in place of the CHECK line. It is left out.
  using V = std::optional<FieldValue>;
  const auto measured = [](double x) { return std::isfinite(x) ? V(x) : V(); };
  const std::string outputs = to_log_token(joined(f.outputs, ","));
  const bool finite = std::isfinite(f.max_abs) && std::isfinite(f.max_rel) && std::isfinite(f.cosine);
  return CheckLine{make_some_fields(check_line_spec(),
                                    {V(input), V(batch), V(std::string_view(outputs)), measured(f.max_abs),
                                     measured(f.max_rel), measured(f.cosine), V(f.atol), V(f.rtol), V(f.min_cosine),
                                     V(std::string_view(f.pass && finite ? "pass" : "fail"))})};
}

CompileLine make_compile_line(const CompileFacts& f) {
  CompileLine line{make_fields(compile_line_spec(),
                               {f.backend, f.shape, std::string_view(f.cache_hit ? "hit" : "built"), f.build_seconds,
                                f.ready_seconds, f.key.empty() ? "-" : f.key, f.vec_isa.empty() ? "-" : f.vec_isa,
                                f.batch_range.empty() ? "-" : f.batch_range,
                                f.input_range.empty() ? "-" : f.input_range})};
  return line;
}

FailLine make_fail_line(int64_t input, int64_t batch, std::string_view error) {
  std::string text;
  for (char c : error) {
    auto u = static_cast<unsigned char>(c);
    text += (u < 0x20 || u == 0x7f) ? ' ' : c;
  }
  size_t b = text.find_first_not_of(' ');
  size_t e = text.find_last_not_of(' ');
  text = b == std::string::npos ? std::string() : text.substr(b, e - b + 1);
  return FailLine{make_fields(fail_line_spec(), {input, batch, std::string_view(text)})};
}

std::string format_line(const LogLine& line) { return std::visit(Formatter{}, line); }

std::string combination_failure(int64_t input, int64_t batch, std::string_view error) {
  return fmt::format("combination input {} / batch {} failed: {}; the sweep goes on", input, batch, error);
}

}  // namespace fmwork
