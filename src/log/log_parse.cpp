// The line parsers: a line of text back into its record (parse_line, see log_format.hpp). Apart from the
// writers (log_format.cpp) because `process` reads what the driver writes and neither needs the other's
// code; both hold to the value rules of log_rules.hpp.
#include "fmwork/log/log_format.hpp"

#include <algorithm>
#include <set>

#include "fmwork/base/error.hpp"
#include "log_rules.hpp"

namespace fmwork {
namespace {

using namespace log_rules;

void expect_field_count(std::string_view word, size_t got, size_t expected) {
  if (got != expected) {
    throw runtime_error("FMWORK " + std::string(word) + " line has " + std::to_string(got) + " fields, expected " +
                        std::to_string(expected));
  }
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
      // Read as the writer writes it (format_line): one line, no control character, whoever wrote the log.
      fields.items.emplace_back(std::string(tail->key), one_line(std::string(rest.substr(pos + tail_prefix.size()))));
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

Fields parse_checked_fields(const LineSpec& spec, std::string_view rest) {
  Fields fields = parse_fields(spec, rest);
  check_fields(spec, fields.items, Side::reader);
  return fields;
}

}  // namespace

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
    return SetupLine{field_double(word, "seconds", parts[2], NumberRange::non_negative)};
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
    res.latency_ms = field_double(word, "latency_ms", parts[8], NumberRange::non_negative);
    res.throughput = field_double(word, "throughput", parts[9], NumberRange::non_negative);
    return res;
  }
  if (word == "META") return MetaLine{parse_checked_fields(meta_line_spec(), rest)};
  if (word == "STAT") return StatLine{parse_checked_fields(stat_line_spec(), rest)};
  if (word == "MEM") return MemLine{parse_checked_fields(mem_line_spec(), rest)};
  if (word == "FAIL") return FailLine{parse_checked_fields(fail_line_spec(), rest)};
  if (word == "CHECK") return CheckLine{parse_checked_fields(check_line_spec(), rest)};
  if (word == "COMPILE") return CompileLine{parse_checked_fields(compile_line_spec(), rest)};
  if (word == "NOTE") return NoteLine{parse_checked_fields(note_line_spec(), rest)};
  if (word == "PROFILE") return ProfileLine{parse_checked_fields(profile_line_spec(), rest)};
  if (word == "SERVE") return ServeLine{parse_checked_fields(serve_line_spec(), rest)};
  if (word == "CAPACITY") return CapacityLine{parse_checked_fields(capacity_line_spec(), rest)};
  if (word == "INTERRUPT") return InterruptLine{parse_checked_fields(interrupt_line_spec(), rest)};
  return std::nullopt;
}

}  // namespace fmwork
