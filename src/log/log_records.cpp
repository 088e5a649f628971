// Driver logs read into records (see log_records.hpp).
#include "fmwork/log/log_records.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <type_traits>
#include <variant>
#include <vector>
#include <utility>

#include "fmwork/base/error.hpp"
#include "fmwork/base/regular_file.hpp"
#include "fmwork/base/text_format.hpp"
#include "fmwork/log/verdicts.hpp"
#include "line_checks.hpp"
#include "log_rules.hpp"

namespace fmwork {

// Named, not anonymous: LogStreamParser::Impl, a class of the header, holds a LogReader.
namespace log_records_detail {

using Key = std::pair<int64_t, int64_t>;  // (input, batch)

// Every line that names a combination names it by RES's names (log_schema.cpp holds them to it).
Key key_of(const Fields& fields) {
  return {fields.get_int(res_position::input).value_or(0), fields.get_int(res_position::batch).value_or(0)};
}
Key key_of(const ResLine& res) { return {res.input, res.batch}; }

// The RES line's t_first field exactly as written (parse_line has already checked the line).
std::string raw_t_first(std::string_view line) {
  std::string_view rest = line.substr(std::string_view("FMWORK RES ").size());
  return std::string(rest.substr(0, rest.find(' ')));
}

// What a kept line costs in memory, for LogLimits::kept_bytes: its structure and its text. An estimate on
// the high side (a short string's bytes are counted though they live inside it).
size_t kept_cost(const std::string& text) { return sizeof(std::string) + text.size(); }
size_t kept_cost(const Fields& fields) {
  size_t bytes = sizeof(Fields);
  for (const auto& [key, value] : fields.items) bytes += kept_cost(key) + kept_cost(value);
  return bytes;
}
size_t kept_cost(const ResLine& res) {
  return sizeof(CombinationRecord) + res.model_name.size() + res.model_class.size() + 32;  // + the timestamp
}

// Reads a log line by line into a ParsedLog, keeping what later lines need: the last SETUP and dtype, the
// REP durations since the last RES, and the STAT / MEM / CHECK lines that came before their RES. Counts
// what it keeps against `kept_limit` (LogLimits::kept_bytes).
class LogReader {
 public:
  LogReader(const std::string& source, size_t kept_limit) : kept_limit_(kept_limit) { log_.source = source; }

  void note(std::string text) { log_.notes.push_back(std::move(text)); }

  void take(LogLine& parsed, std::string_view line, size_t line_number) {
    ++log_.fmwork_lines;
    charge(parsed, line_number);
    check_contradictions(parsed, line, line_number);
    const bool arg_line = std::holds_alternative<ArgLine>(parsed);
    if (arg_line && after_args_) shape_args_.clear();  // a run appended: its ARG section starts afresh
    after_args_ = !arg_line;
    if (auto* arg = std::get_if<ArgLine>(&parsed)) {
      log_.opts.push_back(arg->text);
      for (const char* option : {"--input_lengths ", "--batching ", "--sort_window "})
        if (arg->text.rfind(option, 0) == 0) shape_args_[option] = arg->text.substr(0, kMaxSettingBytes);
      setting_changed_ = true;
    } else if (auto* s = std::get_if<SetupLine>(&parsed)) {
      setup_ = s->seconds;
    } else if (auto* meta = std::get_if<MetaLine>(&parsed)) {
      if (const std::string* dtype = meta->fields.find(meta_key::dtype)) precision_ = *dtype;
      for (const FieldSpec& f : meta_line_spec().fields)
        if (const std::string* value = f.alike ? meta->fields.find(f.key) : nullptr)
          like_meta_[std::string(f.key)] = value->substr(0, kMaxSettingBytes);
      setting_changed_ = true;
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
    } else if (auto* serve = std::get_if<ServeLine>(&parsed)) {
      log_.serve.push_back(std::move(*serve));
    } else if (auto* capacity = std::get_if<CapacityLine>(&parsed)) {
      log_.capacity.push_back(std::move(*capacity));
    } else if (auto* interrupt = std::get_if<InterruptLine>(&parsed)) {
      log_.interrupts.push_back(std::move(*interrupt));
    } else if (const auto* verdict = std::get_if<NoteLine>(&parsed)) {
      tell_unknown_verdict(*verdict, line_number);
    }
  }

  ParsedLog finish() {
    judge_plausibility();
    return std::move(log_);
  }

 private:
  static constexpr size_t kNone = static_cast<size_t>(-1);

  // A NOTE verdict this process does not know (a newer driver's word) is read as unknown and said once per
  // word, not refused with the whole log: process judges each combination from its timings itself.
  void tell_unknown_verdict(const NoteLine& line, size_t line_number) {
    static constexpr size_t kMostWordsTold = 8;
    const std::string_view known = note_line_spec().find(note_key::verdict)->choices;
    const std::string* word = line.fields.find(note_key::verdict);
    if (!word || log_rules::is_choice(known, *word) || told_verdicts_.size() >= kMostWordsTold ||
        !told_verdicts_.insert(word->substr(0, 64)).second)
      return;
    std::string words(known);
    std::replace(words.begin(), words.end(), '|', ' ');
    note(source_name(log_.source) + ":" + std::to_string(line_number) + ": FMWORK NOTE verdict '" + excerpt(*word, 64) +
         "' is none this process knows (" + words + "): read as unknown (a newer driver's word?); its "
         "combination is judged from its timings as the others are");
  }
  std::set<std::string> told_verdicts_;  // the unknown verdict words told so far

  // Adds what `parsed` will keep to the count, the REP durations held for the next RES included; throws
  // when the count passes the limit, naming the line that did it.
  void charge(const LogLine& parsed, size_t line_number) {
    std::visit(
        [&](const auto& l) {
          using L = std::decay_t<decltype(l)>;
          if constexpr (std::is_same_v<L, ArgLine>) kept_ += kept_cost(l.text);
          else if constexpr (std::is_same_v<L, ResLine>) kept_ += kept_cost(l);
          else if constexpr (std::is_same_v<L, FailLine>) kept_ += kept_cost(l.fields) + sizeof(size_t);
          else if constexpr (std::is_same_v<L, MetaLine> || std::is_same_v<L, StatLine> || std::is_same_v<L, MemLine> ||
                             std::is_same_v<L, CheckLine> || std::is_same_v<L, ProfileLine> ||
                             std::is_same_v<L, ServeLine> || std::is_same_v<L, CapacityLine> ||
                             std::is_same_v<L, InterruptLine>)
            kept_ += kept_cost(l.fields);
        },
        parsed);
    const size_t reps = sizeof(Nanos) * (block_.size() + 1);
    if (kept_ + reps <= kept_limit_) return;
    throw runtime_error(kept_error(line_number));
  }

  // A line whose fields contradict each other is no driver's (hostile rounds six and seven: contended_levels=9
  // with steps=3, a p50 above the p99, an interrupt at combination 10 of 2, were read as written).
  void check_contradictions(const LogLine& parsed, std::string_view line, size_t line_number) const {
    const std::string why = line_checks::contradiction(parsed);
    if (why.empty()) return;
    const std::string_view rest = line.substr(log_rules::kPrefix.size());
    throw runtime_error(source_name(log_.source) + ":" + std::to_string(line_number) + ": FMWORK " +
                        std::string(rest.substr(0, rest.find(' '))) + " " + why);
  }

  std::string kept_error(size_t line_number) const {
    size_t durations = block_.size();
    for (const CombinationRecord& run : log_.results) durations += run.rep_durations.size();
    return source_name(log_.source) + ":" + std::to_string(line_number) + ": the log's records take more than " +
           bytes_text(kept_limit_, 0) + " of memory here (" + std::to_string(log_.results.size()) +
           " combinations, " + std::to_string(log_.failures.size()) + " failures, " + std::to_string(durations) +
           " REP durations so far); process reads at most that from one log: split it into several logs";
  }

  // Each combination against the earlier ones of its model run alike (a log may hold several runs, appended),
  // as the driver judged it when it wrote the NOTE line (there with only its own run's combinations before
  // it). Alike: the same model, class and precision, and the same META facts that change the rate (threads,
  // platform, device, compile, ...) and length options; a 1-thread run appended after a 4-thread one was
  // "implausible" against it.
  void judge_plausibility() {
    std::map<std::string, std::vector<RunPoint>> earlier;  // by model, class, precision and setting
    for (size_t i = 0; i < log_.results.size(); ++i) {
      CombinationRecord& run = log_.results[i];
      if (!run.stat) continue;
      const std::string model = run.res.model_name + '\n' + run.res.model_class + '\n' +
                                run.precision.value_or("") + '\n' + std::to_string(setting_of_[i]);
      const RunPoint point = run_point_of(run.res.input, run.res.batch, run.stat->fields);
      std::vector<RunPoint>& before = earlier[model];
      run.implausible = implausible_reason(point, before);
      before.push_back(point);
    }
  }

  // Each value is cut to this many bytes: a setting is facts a few words long, and a hostile log's megabyte
  // values must not be copied into every setting it makes.
  static constexpr size_t kMaxSettingBytes = 256;

  // The number of the setting (META facts and length options) of the run now being read, once a META or ARG
  // line has changed it; a new one is counted against the limit on what the log keeps.
  size_t current_setting(size_t line_number) {
    if (!setting_changed_) return setting_;
    setting_changed_ = false;
    std::string text;
    for (const auto& [key, value] : like_meta_) text += key + "=" + value + '\n';
    for (const auto& [option, arg] : shape_args_) text += arg + '\n';
    const auto [at, added] = settings_.emplace(std::move(text), settings_.size());
    if (added) {
      kept_ += kept_cost(at->first) + 2 * sizeof(size_t);
      if (kept_ > kept_limit_) throw runtime_error(kept_error(line_number));
    }
    return setting_ = at->second;
  }

  void take_res(ResLine res, std::string_view line, size_t line_number) {
    CombinationRecord run;
    run.res = std::move(res);
    run.line = line_number;
    run.timestamp = raw_t_first(line);
    run.setup_seconds = setup_;
    run.precision = precision_;
    // A copy of the exact size: the block keeps its capacity for the next combination, and no record holds
    // the slack of a vector grown by doubling.
    run.rep_durations.assign(block_.begin(), block_.end());
    kept_ += sizeof(Nanos) * block_.size();
    block_.clear();
    const Key key = key_of(run.res);
    take_pending(run, key, &CombinationRecord::stat, pending_stat_);
    take_pending(run, key, &CombinationRecord::mem, pending_mem_);
    take_pending(run, key, &CombinationRecord::check, pending_check_);
    log_.results.push_back(std::move(run));
    setting_of_.push_back(current_setting(line_number));
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
  const size_t kept_limit_;
  size_t kept_ = 0;  // what the kept lines cost (kept_cost), the REP durations of the records included
  std::optional<double> setup_;
  std::optional<std::string> precision_;
  std::vector<Nanos> block_;  // REP durations since the last RES / FAIL
  size_t open_res_ = kNone;   // index of the last RES while no REP / FAIL has followed it
  std::map<Key, StatLine> pending_stat_;
  std::map<Key, MemLine> pending_mem_;
  std::map<Key, CheckLine> pending_check_;
  // What makes runs alike (judge_plausibility): the last META's alike facts (log_schema.hpp), the length options
  // of the run's ARG section, the distinct settings seen and each result's among them.
  std::map<std::string, std::string> like_meta_;
  std::map<std::string, std::string> shape_args_;
  bool after_args_ = false;       // a line other than ARG came since the last ARG line
  bool setting_changed_ = true;   // a META or ARG line came since setting_ was found
  size_t setting_ = 0;
  std::map<std::string, size_t> settings_;  // each setting's text and number
  std::vector<size_t> setting_of_;          // each result's setting
};

}  // namespace log_records_detail

// Cuts the pieces into lines (universal newlines) and hands each to the LogReader; holds the line being
// read, and of a line that is not an FMWORK line only whether it is one (its bytes are dropped as they come).
class LogStreamParser::Impl {
 public:
  Impl(const std::string& source, LogLimits limits)
      : where_(source_name(source)), limits_(limits), reader_(source, limits.kept_bytes) {}

  void feed(std::string_view piece) {
    size_t pos = 0;
    if (after_cr_ && !piece.empty()) {  // "\r" ended the last piece: a "\n" now is the same line end
      after_cr_ = false;
      if (piece[0] == '\n') pos = 1;
    }
    while (pos < piece.size()) {
      const size_t end = piece.find_first_of("\r\n", pos);
      check_gap(piece.substr(pos, (end == std::string_view::npos ? piece.size() : end + 1) - pos));
      append(piece.substr(pos, (end == std::string_view::npos ? piece.size() : end) - pos));
      if (end == std::string_view::npos) return;
      end_line(true);
      pos = end + 1;
      if (piece[end] == '\r') {
        if (pos == piece.size()) after_cr_ = true;
        else if (piece[pos] == '\n') ++pos;
      }
    }
  }

  ParsedLog finish() {
    if (skipping_ || !line_.empty()) end_line(false);
    return reader_.finish();
  }

 private:
  static constexpr std::string_view kPrefix = log_rules::kPrefix;

  // Counts the bytes of `piece` (a line or a part of one, with its line end) against the bound on bytes without an FMWORK line (kMaxLogGapBytes), and
  // refuses a NUL byte before the first FMWORK line: either way, what is read cannot be a driver log.
  void check_gap(std::string_view piece) {
    if (taken_ == 0 && piece.find('\0') != std::string_view::npos)
      throw runtime_error(where_ + ":" + std::to_string(line_number_ + 1) +
                          ": binary data (a NUL byte) before any FMWORK line; a driver log is text: is this a driver log?");
    gap_ += piece.size();
    if (gap_ <= limits_.gap_bytes) return;
    throw runtime_error(where_ + ":" + std::to_string(line_number_ + 1) + ": no FMWORK line in the " +
                        bytes_text(limits_.gap_bytes, 0) + " read since " +
                        (taken_ == 0 ? std::string("the start") : "line " + std::to_string(gap_from_)) +
                        "; a driver writes one per rep: is this a driver log, or a stream with no end?");
  }

  void append(std::string_view bytes) {
    if (skipping_ || bytes.empty()) return;
    if (line_.size() < kPrefix.size()) {
      const size_t head = std::min(bytes.size(), kPrefix.size() - line_.size());
      line_.append(bytes.substr(0, head));
      bytes.remove_prefix(head);
      // parse_line reads only lines that start with "FMWORK ": any other is skipped, so not held.
      if (line_.size() == kPrefix.size() && line_ != kPrefix) {
        skipping_ = true;
        line_.clear();
        return;
      }
    }
    if (line_.size() + bytes.size() > limits_.line_bytes)
      throw runtime_error(where_ + ":" + std::to_string(line_number_ + 1) + ": the line is longer than " +
                          bytes_text(limits_.line_bytes, 0) +
                          "; a driver's FMWORK lines are a few KiB at most: is this a driver log?");
    line_.append(bytes);
  }

  // The line read so far is whole: `terminated` when a line end closed it (not the end of the text).
  void end_line(bool terminated) {
    ++line_number_;
    if (!skipping_) take(terminated);
    skipping_ = false;
    line_.clear();
  }

  void take(bool terminated) {
    const std::string at = where_ + ":" + std::to_string(line_number_);
    std::optional<LogLine> parsed;
    try {
      parsed = parse_line(line_);
    } catch (const Error& e) {
      if (terminated) throw with_context(at, e);
      reader_.note(at + ": the last line is cut short (no newline at its end; " + e.what() +
                   "): left out, the lines before it are read");
      return;
    }
    // A line without its newline is no record, even one that parses: a log cut short (a full disk, a
    // killed writer, a copy taken while the run wrote) ends mid-value, and "tokens_per_s=72768.6" cut to
    // "tokens_per_s=72" or a RES throughput 4548.0 cut to 45 reads as a number the run never measured.
    // Only the writer's newline says the line is whole; the lines before it are kept.
    if (!terminated) {
      if (starts_with(line_, kPrefix))  // "FMWOR" may be any text's start; "FMWORK R" was an FMWORK line
        reader_.note(at + ": the last line is cut short (no newline at its end, so its last value may be cut): "
                          "left out, the lines before it are read");
      return;
    }
    if (!parsed) return;
    reader_.take(*parsed, line_, line_number_);
    ++taken_;
    gap_ = 0;
    gap_from_ = line_number_;
  }

  const std::string where_;
  const LogLimits limits_;
  log_records_detail::LogReader reader_;
  std::string line_;       // the line being read, without its end (empty while skipping_)
  bool skipping_ = false;  // the line being read is not an FMWORK line
  bool after_cr_ = false;  // the last piece ended with "\r"
  size_t line_number_ = 0; // lines ended so far
  size_t taken_ = 0;       // FMWORK lines read
  size_t gap_ = 0;         // bytes fed since the last FMWORK line (check_gap)
  size_t gap_from_ = 0;    // the line number of the last FMWORK line
};

LogStreamParser::LogStreamParser(const std::string& source, LogLimits limits)
    : impl_(std::make_unique<Impl>(source, limits)) {}
LogStreamParser::~LogStreamParser() = default;
void LogStreamParser::feed(std::string_view bytes) { impl_->feed(bytes); }
ParsedLog LogStreamParser::finish() { return impl_->finish(); }

ParsedLog parse_log(std::istream& in, const std::string& source, LogLimits limits) {
  LogStreamParser parser(source, limits);
  std::vector<char> buf(size_t{1} << 16);
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    parser.feed(std::string_view(buf.data(), static_cast<size_t>(in.gcount())));
  }
  if (in.bad()) throw runtime_error(source_name(source) + ": cannot read");
  return parser.finish();
}

ParsedLog parse_log_text(std::string_view text, const std::string& source, LogLimits limits) {
  LogStreamParser parser(source, limits);
  parser.feed(text);
  return parser.finish();
}

ParsedLog parse_log_file(const std::string& path, const std::string& name, LogLimits limits) {
  LogStreamParser parser(path, limits);
  read_file_pieces(path, [&](std::string_view piece) { parser.feed(piece); }, name);
  return parser.finish();
}

std::string interrupt_text(const InterruptLine& line) {
  const Fields& f = line.fields;
  const int64_t complete = f.get_int(interrupt_key::complete).value_or(0),
                all = f.get_int(interrupt_key::combinations).value_or(0);
  return "interrupted (" + *f.find(interrupt_key::signal) + ") at combination " + std::to_string(complete + 1) +
         " of " + std::to_string(all) + " (input " + std::to_string(f.get_int(interrupt_key::input).value_or(0)) +
         ", batch " + std::to_string(f.get_int(interrupt_key::batch).value_or(0)) + "), " + std::to_string(complete) +
         " complete";
}

std::string source_name(const std::string& source) { return source == "-" ? "<stdin>" : source; }

std::string label_of(const ParsedLog& log, const std::string& key) {
  for (const auto& kv : log.labels)
    if (kv.first == key) return kv.second;
  return "";
}

std::string engine_name(const ParsedLog& log) {
  for (const auto& meta : log.meta) {
    if (meta.fields.find(meta_key::driver)) return "fmwork-cpp/embed";
  }
  return "fmwork/embed/tf";
}

}  // namespace fmwork
