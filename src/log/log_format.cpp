// Every FMWORK line: writers and parsers, one place. See docs/log-lines.md for the formats.
#include "fmwork/log/log_format.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <set>

#include <fmt/format.h>

#include "fmwork/base/error.hpp"

namespace fmwork {

namespace {

constexpr std::string_view kPrefix = "FMWORK ";
constexpr int64_t kNanosPerSecond = 1000000000;

// Python's str.strip() whitespace, ASCII part: \t \n \v \f \r, \x1c-\x1f and space.
bool is_py_space(char c) {
  return c == ' ' || (c >= '\t' && c <= '\r') || (c >= '\x1c' && c <= '\x1f');
}

bool is_control_or_space(char c) {
  auto u = static_cast<unsigned char>(c);
  return u <= 0x20 || u == 0x7f;
}

std::string quote(std::string_view s) { return "'" + std::string(s) + "'"; }

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::vector<std::string_view> split_spaces(std::string_view s) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    size_t pos = s.find(' ', start);
    if (pos == std::string_view::npos) {
      out.push_back(s.substr(start));
      return out;
    }
    out.push_back(s.substr(start, pos - start));
    start = pos + 1;
  }
}

std::optional<int64_t> to_int(std::string_view s) {
  std::string_view digits = s;
  if (!digits.empty() && digits[0] == '-') digits.remove_prefix(1);
  if (!all_digits(digits)) return std::nullopt;
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return value;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

// What Python's float() accepts in practice: a decimal number with optional sign, fraction and
// exponent, or inf / infinity / nan in any case.
std::optional<double> to_double(std::string_view s) {
  std::string_view body = s;
  bool negative = false;
  if (!body.empty() && (body[0] == '+' || body[0] == '-')) {
    negative = body[0] == '-';
    body.remove_prefix(1);
  }
  if (iequals(body, "inf") || iequals(body, "infinity")) {
    return negative ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  }
  if (iequals(body, "nan")) return std::numeric_limits<double>::quiet_NaN();
  // digits [. digits] | . digits, then [e[sign]digits]
  size_t i = 0, int_digits = 0, frac_digits = 0;
  while (i < body.size() && body[i] >= '0' && body[i] <= '9') ++i, ++int_digits;
  if (i < body.size() && body[i] == '.') {
    ++i;
    while (i < body.size() && body[i] >= '0' && body[i] <= '9') ++i, ++frac_digits;
  }
  if (int_digits + frac_digits == 0) return std::nullopt;
  if (i < body.size() && (body[i] == 'e' || body[i] == 'E')) {
    ++i;
    if (i < body.size() && (body[i] == '+' || body[i] == '-')) ++i;
    size_t exp_digits = 0;
    while (i < body.size() && body[i] >= '0' && body[i] <= '9') ++i, ++exp_digits;
    if (exp_digits == 0) return std::nullopt;
  }
  if (i != body.size()) return std::nullopt;
  // from_chars does not take a leading '+'; give it the body and apply the sign.
  double value = 0;
  auto [ptr, ec] = std::from_chars(body.data(), body.data() + body.size(), value);
  if (ptr != body.data() + body.size()) return std::nullopt;
  if (ec == std::errc::result_out_of_range) {
    // Python gives inf for overflow and 0 for underflow; from_chars leaves value unchanged. Redo with strtod.
    value = std::strtod(std::string(body).c_str(), nullptr);
  } else if (ec != std::errc()) {
    return std::nullopt;
  }
  return negative ? -value : value;
}

std::string printf_double(double value, int decimals) {
  char buf[512];
  int n = std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  if (n < 0 || static_cast<size_t>(n) >= sizeof buf) {
    // Only for absurd magnitudes; fall back to a dynamically sized buffer.
    std::string out(static_cast<size_t>(std::snprintf(nullptr, 0, "%.*f", decimals, value)) + 1, '\0');
    std::snprintf(out.data(), out.size(), "%.*f", decimals, value);
    out.pop_back();
    return out;
  }
  return std::string(buf, static_cast<size_t>(n));
}

// "<digits>.<9 digits>", the seconds part possibly empty as upstream writes times under one second.
std::optional<Nanos> to_timestamp(std::string_view s) {
  size_t dot = s.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  std::string_view secs = s.substr(0, dot), frac = s.substr(dot + 1);
  if (frac.size() != 9 || !all_digits(frac)) return std::nullopt;
  if (!secs.empty() && !all_digits(secs)) return std::nullopt;
  int64_t sec_value = 0;
  if (!secs.empty()) {
    auto [ptr, ec] = std::from_chars(secs.data(), secs.data() + secs.size(), sec_value);
    if (ec != std::errc() || ptr != secs.data() + secs.size()) return std::nullopt;
  }
  int64_t frac_value = 0;
  std::from_chars(frac.data(), frac.data() + frac.size(), frac_value);
  if (sec_value > (std::numeric_limits<int64_t>::max() - frac_value) / kNanosPerSecond) return std::nullopt;
  return sec_value * kNanosPerSecond + frac_value;
}

// "[-]<digits>.<9 digits>"
bool is_duration(std::string_view s) {
  if (!s.empty() && s[0] == '-') s.remove_prefix(1);
  size_t dot = s.find('.');
  if (dot == std::string_view::npos) return false;
  return all_digits(s.substr(0, dot)) && s.size() - dot - 1 == 9 && all_digits(s.substr(dot + 1));
}

bool is_key(std::string_view key) {
  return !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
           c == '-';
  });
}

// ---- parsers ----

Error line_error(std::string_view word, const std::string& what) {
  return runtime_error("FMWORK " + std::string(word) + " " + what);
}

void expect_field_count(std::string_view word, size_t got, size_t expected) {
  if (got != expected) {
    throw runtime_error("FMWORK " + std::string(word) + " line has " + std::to_string(got) + " fields, expected " +
                        std::to_string(expected));
  }
}

int64_t field_int(std::string_view word, std::string_view name, std::string_view text, int64_t min_value) {
  auto v = to_int(text);
  if (!v) throw line_error(word, std::string(name) + " must be an integer, got " + quote(text));
  if (*v < min_value) {
    throw line_error(word, std::string(name) + " must be at least " + std::to_string(min_value) + ", got " +
                               quote(text));
  }
  return *v;
}

double field_double(std::string_view word, std::string_view name, std::string_view text) {
  auto v = to_double(text);
  if (!v) throw line_error(word, std::string(name) + " must be a number, got " + quote(text));
  return *v;
}

Nanos field_timestamp(std::string_view word, std::string_view name, std::string_view text) {
  auto v = to_timestamp(text);
  if (!v) {
    throw line_error(word, std::string(name) + " must be a timestamp <seconds>.<9 digits>, got " + quote(text));
  }
  return *v;
}

std::string field_token(std::string_view word, std::string_view name, std::string_view text) {
  if (text.empty()) throw line_error(word, std::string(name) + " is empty");
  if (!is_log_token(text)) throw line_error(word, std::string(name) + " holds a control character");
  return std::string(text);
}

// The field that runs to the end of the line (FAIL's error=), or nullptr.
const FieldSpec* to_end_field(const LineSpec& spec) {
  for (const FieldSpec& f : spec.fields) {
    if (f.to_end) return &f;
  }
  return nullptr;
}

// key=value fields; the spec's to_end field (FAIL's "error=") takes the rest of the line.
Fields parse_fields(const LineSpec& spec, std::string_view rest) {
  const std::string_view word = spec.word;
  const FieldSpec* tail = to_end_field(spec);
  const std::string tail_prefix = tail ? std::string(tail->key) + "=" : std::string();
  Fields fields;
  std::set<std::string, std::less<>> seen;
  if (rest.empty()) return fields;
  size_t pos = 0;
  while (true) {
    if (tail && rest.substr(pos, tail_prefix.size()) == tail_prefix) {
      if (seen.count(tail->key)) throw line_error(word, "has the key " + quote(tail->key) + " twice");
      fields.items.emplace_back(std::string(tail->key), std::string(rest.substr(pos + tail_prefix.size())));
      return fields;
    }
    size_t end = std::min(rest.find(' ', pos), rest.size());
    std::string_view token = rest.substr(pos, end - pos);
    if (token.empty()) throw line_error(word, "has an empty field (two spaces in a row?)");
    size_t eq = token.find('=');
    if (eq == std::string_view::npos) throw line_error(word, "field " + quote(token) + " is not key=value");
    std::string_view key = token.substr(0, eq), value = token.substr(eq + 1);
    if (!is_key(key)) throw line_error(word, "field " + quote(token) + " has a bad key (expected [A-Za-z0-9_.-]+)");
    for (char c : value) {
      if (is_control_or_space(c)) throw line_error(word, "value of " + quote(key) + " holds a control character");
    }
    if (!seen.insert(std::string(key)).second) throw line_error(word, "has the key " + quote(key) + " twice");
    fields.items.emplace_back(std::string(key), std::string(value));
    if (end == rest.size()) break;
    pos = end + 1;
  }
  return fields;
}

// "pass|fail" -> "pass or fail"
std::string choices_text(std::string_view choices) {
  std::string out;
  for (char c : choices) out += c == '|' ? std::string(" or ") : std::string(1, c);
  return out;
}

bool is_choice(std::string_view choices, std::string_view value) {
  size_t start = 0;
  while (true) {
    size_t bar = std::min(choices.find('|', start), choices.size());
    if (choices.substr(start, bar - start) == value) return true;
    if (bar == choices.size()) return false;
    start = bar + 1;
  }
}

void check_value(std::string_view word, const FieldSpec& spec, std::string_view key, std::string_view value) {
  switch (spec.kind) {
    case FieldKind::integer: field_int(word, key, value, spec.min); break;
    case FieldKind::number: field_double(word, key, value); break;
    case FieldKind::text:
      if (!spec.choices.empty() && !is_choice(spec.choices, value)) {
        throw line_error(word, std::string(key) + " must be " + choices_text(spec.choices) + ", got " + quote(value));
      }
      break;
  }
}

// Typed checks shared by parse and format, in the order of their errors: the key fields (input, batch),
// then each field's type in line order, then the other required fields.
void check_fields(const LineSpec& spec, const Fields& fields) {
  const std::string_view word = spec.word;
  for (const FieldSpec& f : spec.fields) {
    if (f.need != FieldNeed::key) continue;
    const std::string* v = fields.find(f.key);
    if (!v) throw line_error(word, "has no " + std::string(f.key) + "= field");
    check_value(word, f, f.key, *v);
  }
  for (const auto& [key, value] : fields.items) {
    if (const FieldSpec* f = spec.find(key)) check_value(word, *f, key, value);
  }
  for (const FieldSpec& f : spec.fields) {
    if (f.to_end) {
      if (fields.items.empty() || fields.items.back().first != f.key) {
        throw line_error(word, "must end with an " + std::string(f.key) + "= field");
      }
    } else if (f.need == FieldNeed::required && !fields.find(f.key)) {
      throw line_error(word, "has no " + std::string(f.key) + "= field");
    }
  }
}

Fields parse_checked_fields(const LineSpec& spec, std::string_view rest) {
  Fields fields = parse_fields(spec, rest);
  check_fields(spec, fields);
  return fields;
}

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
  check_fields(spec, fields);
  return out;
}

std::string name_token(std::string_view what, const std::string& value) {
  if (!is_log_token(value)) {
    throw runtime_error("FMWORK RES " + std::string(what) + " must be non-empty without spaces, got " + quote(value));
  }
  return value;
}

struct Formatter {
  std::string operator()(const ArgLine& l) const {
    for (char c : l.text) {
      if (c == '\n' || c == '\r') throw runtime_error("FMWORK ARG text holds a line break");
    }
    return l.text.empty() ? "FMWORK ARG" : "FMWORK ARG " + l.text;
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

void flush_or_throw(std::ostream& out, const std::string& what) {
  errno = 0;
  out.flush();
  if (out) return;
  const int error = errno;
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

ResLine make_res_line(Nanos t_first, Nanos t_last, const std::string& model_name, const std::string& model_class,
                      int64_t input, int64_t batch, double latency_ms, double throughput) {
  return ResLine{t_first, t_last, model_name, model_class, input, batch, latency_ms, throughput};
}

StatLine make_stat_line(int64_t input, int64_t batch, const StatValues& v) {
  return StatLine{make_fields(stat_line_spec(), {input, batch, v.reps, v.dropped, v.mean_ms, v.stddev_ms, v.min_ms,
                                                 v.p50_ms, v.p90_ms, v.p99_ms, v.max_ms})};
}

MemLine make_mem_line(int64_t input, int64_t batch, int64_t allocated_peak_bytes, int64_t reserved_peak_bytes) {
  return MemLine{make_fields(mem_line_spec(), {input, batch, allocated_peak_bytes, reserved_peak_bytes})};
}

CheckLine make_check_line(int64_t input, int64_t batch, const std::vector<std::string>& outputs, double max_abs,
                          double max_rel, double cosine, double atol, double rtol, double min_cosine, bool pass) {
  std::string names;
  for (const auto& n : outputs) names += (names.empty() ? "" : ",") + n;
  return CheckLine{make_fields(check_line_spec(), {input, batch, to_log_token(names), max_abs, max_rel, cosine, atol,
                                                   rtol, min_cosine, std::string_view(pass ? "pass" : "fail")})};
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

std::optional<LogLine> parse_line(std::string_view line) {
  while (!line.empty() && is_py_space(line.back())) line.remove_suffix(1);
  if (line.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  std::string_view after = line.substr(kPrefix.size());
  size_t space = after.find(' ');
  std::string_view word = after.substr(0, space);
  std::string_view rest = space == std::string_view::npos ? std::string_view() : after.substr(space + 1);

  if (word == "ARG") return ArgLine{std::string(rest)};

  if (word == "SETUP") {
    auto parts = split_spaces(line);
    expect_field_count(word, parts.size(), 3);
    return SetupLine{field_double(word, "seconds", parts[2])};
  }
  if (word == "REP") {
    auto parts = split_spaces(line);
    expect_field_count(word, parts.size(), 7);
    RepLine rep;
    rep.rep = field_int(word, "rep", parts[2], 1);
    rep.reps = field_int(word, "reps", parts[3], 1);
    if (rep.rep > rep.reps) {
      throw line_error(word, "rep " + std::string(parts[2]) + " is past reps " + std::string(parts[3]));
    }
    rep.t0 = field_timestamp(word, "t0", parts[4]);
    rep.t1 = field_timestamp(word, "t1", parts[5]);
    if (!is_duration(parts[6])) {
      throw line_error(word, "dt must be seconds with 9 decimals, got " + quote(parts[6]));
    }
    return rep;
  }
  if (word == "RES") {
    auto parts = split_spaces(line);
    expect_field_count(word, parts.size(), 10);
    ResLine res;
    res.t_first = field_timestamp(word, "t_first", parts[2]);
    res.t_last = field_timestamp(word, "t_last", parts[3]);
    res.model_name = field_token(word, "model_name", parts[4]);
    res.model_class = field_token(word, "model_class", parts[5]);
    res.input = field_int(word, "input", parts[6], 1);
    res.batch = field_int(word, "batch", parts[7], 1);
    res.latency_ms = field_double(word, "latency_ms", parts[8]);
    res.throughput = field_double(word, "throughput", parts[9]);
    return res;
  }
  if (word == "META") return MetaLine{parse_checked_fields(meta_line_spec(), rest)};
  if (word == "STAT") return StatLine{parse_checked_fields(stat_line_spec(), rest)};
  if (word == "MEM") return MemLine{parse_checked_fields(mem_line_spec(), rest)};
  if (word == "FAIL") return FailLine{parse_checked_fields(fail_line_spec(), rest)};
  if (word == "CHECK") return CheckLine{parse_checked_fields(check_line_spec(), rest)};
  if (word == "COMPILE") return CompileLine{parse_checked_fields(compile_line_spec(), rest)};
  return std::nullopt;
}

}  // namespace fmwork
