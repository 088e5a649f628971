// The line parsers: a line of text back into its record (parse_line, see log_format.hpp). Apart from the
// writers (log_format.cpp) because `process` reads what the driver writes and neither needs the other's
// code; both hold to the value rules of log_rules.hpp.
#include "fmwork/log/log_format.hpp"

#include <algorithm>
#include <set>

#include "fmwork/base/error.hpp"
#include "fmwork/log/log_schema.hpp"
#include "log_rules.hpp"

namespace fmwork {
namespace {

using namespace log_rules;

// Upstream's lines, read by position: the values after the word, by the names log_schema.hpp gives the positions.
#define FMWORK_POSITION_NAME(name) #name,
constexpr std::string_view kSetupPositions[] = {FMWORK_SETUP_POSITIONS(FMWORK_POSITION_NAME)};
constexpr std::string_view kRepPositions[] = {FMWORK_REP_POSITIONS(FMWORK_POSITION_NAME)};
constexpr std::string_view kResPositions[] = {FMWORK_RES_POSITIONS(FMWORK_POSITION_NAME)};
#undef FMWORK_POSITION_NAME

// The values of one upstream `line`, each read by its position's name: a runtime Error naming the line's word and
// the field, or, for too many or too few values, every position's name.
class Positions {
 public:
  template <size_t N>
  Positions(std::string_view word, std::string_view line, const std::string_view (&names)[N])
      : word_(word), names_(names, names + N), parts_(split_spaces(line)) {
    if (parts_.size() - 2 == N) return;
    std::string all;
    for (std::string_view name : names_) all += " " + std::string(name);
    throw line_error(word, "line has " + std::to_string(parts_.size() - 2) + " values, expected " +
                               std::to_string(N) + ":" + all);
  }
  std::string_view operator[](std::string_view name) const {
    const auto at = std::find(names_.begin(), names_.end(), name);
    if (at == names_.end()) throw runtime_error("FMWORK " + std::string(word_) + " has no " + std::string(name));
    return parts_[2 + static_cast<size_t>(at - names_.begin())];
  }
  int64_t integer(std::string_view name, int64_t min) const { return field_int(word_, name, (*this)[name], min); }
  double number(std::string_view name) const {
    return field_double(word_, name, (*this)[name], NumberRange::non_negative);
  }
  Nanos timestamp(std::string_view name) const {
    const std::string_view text = (*this)[name];
    const auto v = to_timestamp(text);
    if (!v)
      throw line_error(word_, std::string(name) + " must be a timestamp <seconds>.<9 digits>, got " + quote(text));
    return *v;
  }
  std::string token(std::string_view name) const {
    const std::string_view text = (*this)[name];
    if (text.empty()) throw line_error(word_, std::string(name) + " is empty");
    if (!is_log_token(text)) throw line_error(word_, std::string(name) + " holds a control character");
    return std::string(text);
  }

 private:
  std::string_view word_;
  std::vector<std::string_view> names_, parts_;
};

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

  if (word == "SETUP") return SetupLine{Positions(word, line, kSetupPositions).number(setup_position::seconds)};
  if (word == "REP") {
    namespace at = rep_position;
    const Positions p(word, line, kRepPositions);
    RepLine rep{p.integer(at::rep, 1), p.integer(at::reps, 1), p.timestamp(at::t0), p.timestamp(at::t1)};
    if (rep.rep > rep.reps)
      throw line_error(word, "rep " + std::string(p[at::rep]) + " is past reps " + std::string(p[at::reps]));
    if (!is_duration(p[at::dt])) throw line_error(word, "dt must be seconds with 9 decimals, got " + quote(p[at::dt]));
    return rep;
  }
  if (word == "RES") {
    namespace at = res_position;
    const Positions p(word, line, kResPositions);
    return ResLine{p.timestamp(at::t_first), p.timestamp(at::t_last),      p.token(at::model_name),
                   p.token(at::model_class), p.integer(at::input, 1),     p.integer(at::batch, 1),
                   p.number(at::latency_ms), p.number(at::throughput)};
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
