// Driver logs read into records (see log_records.hpp).
#include "fmwork/log/log_records.hpp"

#include <iterator>
#include <map>
#include <utility>

#include "fmwork/base/error.hpp"

namespace fmwork {

namespace {

using Key = std::pair<int64_t, int64_t>;  // (input, batch)

Key key_of(const Fields& fields) { return {fields.get_int("input").value_or(0), fields.get_int("batch").value_or(0)}; }
Key key_of(const ResLine& res) { return {res.input, res.batch}; }

// The RES line's t_first field exactly as written (parse_line has already checked the line).
std::string raw_t_first(std::string_view line) {
  std::string_view rest = line.substr(std::string_view("FMWORK RES ").size());
  return std::string(rest.substr(0, rest.find(' ')));
}

// Reads a log line by line into a ParsedLog, keeping what later lines need: the last SETUP and dtype, the
// REP durations since the last RES, and the STAT / MEM / CHECK lines that came before their RES.
class LogReader {
 public:
  explicit LogReader(const std::string& source) { log_.source = source; }

  void note(std::string text) { log_.notes.push_back(std::move(text)); }

  void take(LogLine& parsed, std::string_view line, size_t line_number) {
    ++log_.fmwork_lines;
    if (auto* arg = std::get_if<ArgLine>(&parsed)) {
      log_.opts.push_back(arg->text);
    } else if (auto* s = std::get_if<SetupLine>(&parsed)) {
      setup_ = s->seconds;
    } else if (auto* meta = std::get_if<MetaLine>(&parsed)) {
      if (const std::string* dtype = meta->fields.find(kMetaDtype)) precision_ = *dtype;
      log_.meta.push_back(std::move(*meta));
    } else if (auto* rep = std::get_if<RepLine>(&parsed)) {
      if (rep->rep == 1) block_.clear();
      block_.push_back(rep->t1 - rep->t0);
      open_res_ = kNone;
    } else if (auto* res = std::get_if<ResLine>(&parsed)) {
      take_res(std::move(*res), line, line_number);
    } else if (auto* stat = std::get_if<StatLine>(&parsed)) {
      attach(*stat, &CombinationRecord::stat, pending_stat_);
    } else if (auto* mem = std::get_if<MemLine>(&parsed)) {
      attach(*mem, &CombinationRecord::mem, pending_mem_);
    } else if (auto* check = std::get_if<CheckLine>(&parsed)) {
      attach(*check, &CombinationRecord::check, pending_check_);
    } else if (auto* profile = std::get_if<ProfileLine>(&parsed)) {
      take_profile(std::move(*profile));
    } else if (auto* fail = std::get_if<FailLine>(&parsed)) {
      take_fail(std::move(*fail), line_number);
    }
  }

  ParsedLog finish() {
    for (CombinationRecord& run : log_.results) run.opts = log_.opts;
    return std::move(log_);
  }

 private:
  static constexpr size_t kNone = static_cast<size_t>(-1);

  void take_res(ResLine res, std::string_view line, size_t line_number) {
    CombinationRecord run;
    run.res = std::move(res);
    run.line = line_number;
    run.timestamp = raw_t_first(line);
    run.setup_seconds = setup_;
    run.precision = precision_;
    run.rep_durations = std::move(block_);
    block_.clear();
    const Key key = key_of(run.res);
    take_pending(run, key, &CombinationRecord::stat, pending_stat_);
    take_pending(run, key, &CombinationRecord::mem, pending_mem_);
    take_pending(run, key, &CombinationRecord::check, pending_check_);
    log_.results.push_back(std::move(run));
    open_res_ = log_.results.size() - 1;
  }

  void take_fail(FailLine fail, size_t line_number) {
    const Key key = key_of(fail.fields);
    pending_stat_.erase(key);
    pending_mem_.erase(key);
    pending_check_.erase(key);
    block_.clear();
    open_res_ = kNone;
    log_.failures.push_back(std::move(fail));
    log_.failure_lines.push_back(line_number);
  }

  // A PROFILE line belongs to the RES of its (input, batch) before it, as its STAT does; the driver writes
  // them after it. One with no such RES is left out (a combination that failed after its profile).
  void take_profile(ProfileLine line) {
    if (log_.results.empty()) return;
    CombinationRecord& last = log_.results.back();
    if (key_of(last.res) == key_of(line.fields)) last.profile.push_back(std::move(line));
  }

  // A STAT / MEM / CHECK line belongs to the RES of its (input, batch) just before it; one that comes
  // before its RES waits for it.
  template <class Line>
  void attach(Line& line, std::optional<Line> CombinationRecord::*member, std::map<Key, Line>& pending) {
    const Key key = key_of(line.fields);
    if (open_res_ != kNone && key_of(log_.results[open_res_].res) == key && !(log_.results[open_res_].*member)) {
      log_.results[open_res_].*member = std::move(line);
    } else {
      pending[key] = std::move(line);
    }
  }

  template <class Line>
  static void take_pending(CombinationRecord& run, const Key& key, std::optional<Line> CombinationRecord::*member,
                           std::map<Key, Line>& pending) {
    if (auto it = pending.find(key); it != pending.end()) {
      run.*member = std::move(it->second);
      pending.erase(it);
    }
  }

  ParsedLog log_;
  std::optional<double> setup_;
  std::optional<std::string> precision_;
  std::vector<Nanos> block_;  // REP durations since the last RES / FAIL
  size_t open_res_ = kNone;   // index of the last RES while no REP / FAIL has followed it
  std::map<Key, StatLine> pending_stat_;
  std::map<Key, MemLine> pending_mem_;
  std::map<Key, CheckLine> pending_check_;
};

ParsedLog parse_text_impl(std::string_view text, const std::string& source) {
  const std::string where = source_name(source);
  LogReader reader(source);
  size_t pos = 0, line_number = 0;
  while (pos < text.size()) {
    size_t end = text.find_first_of("\r\n", pos);
    size_t next = text.size();
    if (end == std::string_view::npos) {
      end = text.size();
    } else {
      next = end + 1;
      if (text[end] == '\r' && next < text.size() && text[next] == '\n') ++next;
    }
    std::string_view line = text.substr(pos, end - pos);
    pos = next;
    ++line_number;

    std::optional<LogLine> parsed;
    try {
      parsed = parse_line(line);
    } catch (const Error& e) {
      // A last line with no end that does not parse is a log cut short (a full disk, a killed writer): it
      // is left out with a note so that the combinations before it are not lost. Any other is an Error.
      if (end != text.size()) throw with_context(where + ":" + std::to_string(line_number), e);
      reader.note(where + ":" + std::to_string(line_number) + ": the last line is cut short (no newline at its end; " +
                  e.what() + "): left out, the lines before it are read");
    }
    if (parsed) reader.take(*parsed, line, line_number);
  }
  return reader.finish();
}

}  // namespace

ParsedLog parse_log(std::istream& in, const std::string& source) {
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw runtime_error(source_name(source) + ": cannot read");
  return parse_text_impl(text, source);
}

std::string source_name(const std::string& source) { return source == "-" ? "<stdin>" : source; }

std::string label_of(const ParsedLog& log, const std::string& key) {
  for (const auto& kv : log.labels)
    if (kv.first == key) return kv.second;
  return "";
}

std::string engine_name(const ParsedLog& log) {
  for (const auto& meta : log.meta) {
    if (meta.fields.find(kMetaDriver)) return "fmwork-cpp/embed";
  }
  return "fmwork/embed/tf";
}

ParsedLog parse_log_text(std::string_view text, const std::string& source) { return parse_text_impl(text, source); }

}  // namespace fmwork
