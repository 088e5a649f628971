// over 500 lines: the three formats of the records (JSON, CSV, summary) share their column and verdict code.
// The records of driver logs written out: upstream's JSON, CSV, a summary table. The extension lines'
// columns are read off their field tables (log_format), so that a new field is added in one place.
#include "fmwork/report/formats.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <utility>

#include "fmwork/base/text_format.hpp"
#include "fmwork/log/stats.hpp"

namespace fmwork {

namespace {

std::string fixed(double value, int decimals) {
  char buf[512];
  int n = std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  return n < 0 ? std::string() : std::string(buf, std::min(static_cast<size_t>(n), sizeof buf - 1));
}

// The last "--<name> <value>" ARG text, for rows of FAIL lines (which name no model).
std::string arg_value(const std::vector<std::string>& opts, const std::string& name) {
  const std::string prefix = "--" + name + " ";
  std::string found;
  for (const auto& opt : opts) {
    if (opt.rfind(prefix, 0) == 0) found = opt.substr(prefix.size());
  }
  return found;
}

// Seconds spent in the reps dropped as warm-up: STAT's dropped= where present, else upstream's rule.
nlohmann::ordered_json warmup_seconds(const CombinationRecord& run) {
  if (run.rep_durations.empty()) return nullptr;
  size_t dropped = warmup_reps(run.rep_durations.size());
  if (run.stat) {
    if (auto d = run.stat->fields.get_int(stat_key::dropped)) dropped = static_cast<size_t>(*d);
  }
  dropped = std::min(dropped, run.rep_durations.size());
  // Summed in double: exact (integers below 2^53 ns, 104 days) wherever a log is real, and a hostile log's
  // durations near 2^63 ns cannot overflow the sum.
  double sum = 0;
  for (size_t i = 0; i < dropped; ++i) sum += static_cast<double>(run.rep_durations[i]);
  return sum / 1e9;
}

template <class Line>
const std::string* find_in(const std::optional<Line>& line, std::string_view key) {
  return line ? line->fields.find(key) : nullptr;
}

// Whether `s` is a plain decimal number ("-1.5", "+2", "3e-05"; not "inf", "0x1f" or "-1+2"): what a
// spreadsheet reads as a number, never as a formula.
bool is_decimal_number(const std::string& s) {
  size_t i = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
  auto digits = [&] {
    const size_t from = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return i - from;
  };
  size_t mantissa = digits();
  if (i < s.size() && s[i] == '.') {
    ++i;
    mantissa += digits();
  }
  if (mantissa == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    if (digits() == 0) return false;
  }
  return i == s.size();
}

// A CSV cell, quoted when it holds a comma, quote or line end. Text from a log that a spreadsheet would
// run as a formula (a first character of = + - @, tab or carriage return: OWASP's CSV injection) gets a
// leading single quote, as spreadsheet-safe CSV writers do; a number such as -1.5 stays a number, and so
// does a lone character (the source "-" of standard input): one character holds no formula.
std::string csv_cell(const std::string& text) {
  const bool formula = text.size() > 1 && std::string_view("=+-@\t\r").find(text[0]) != std::string_view::npos &&
                       !is_decimal_number(text);
  const std::string s = formula ? "'" + text : text;
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

// A row-ordered view of a log: its RES and FAIL lines by line number.
struct Row {
  size_t line;
  const CombinationRecord* run;   // null for a failure
  const FailLine* fail;   // null for a result
};

std::vector<Row> rows_of(const ParsedLog& log) {
  std::vector<Row> rows;
  for (const auto& run : log.results) rows.push_back({run.line, &run, nullptr});
  for (size_t i = 0; i < log.failures.size(); ++i) {
    rows.push_back({i < log.failure_lines.size() ? log.failure_lines[i] : 0, nullptr, &log.failures[i]});
  }
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.line < b.line; });
  return rows;
}

// The extension lines of a row, each with its fields (nullptr where the row has none), in the order of
// their CSV columns.
using RowLines = std::vector<std::pair<const LineSpec*, const Fields*>>;

RowLines row_lines(const Row& row, const std::optional<StatLine>& stat, const std::optional<NoteLine>& note) {
  auto fields_of = [](const auto& line) -> const Fields* { return line ? &line->fields : nullptr; };
  return {{&stat_line_spec(), fields_of(stat)},
          {&mem_line_spec(), row.run ? fields_of(row.run->mem) : nullptr},
          {&fail_line_spec(), row.fail ? &row.fail->fields : nullptr},
          {&check_line_spec(), row.run ? fields_of(row.run->check) : nullptr},
          {&note_line_spec(), fields_of(note)}};
}

// The NOTE line of a row's verdict (verdict_of), for its CSV and summary columns.
std::optional<NoteLine> note_of(const Row& row) {
  if (!row.run) return std::nullopt;
  const std::optional<Verdict> verdict = verdict_of(*row.run);
  if (!verdict) return std::nullopt;
  return make_note_line(row.run->res.input, row.run->res.batch, *verdict);
}

// The setup seconds and precision in effect at a line (for FAIL rows).
std::pair<std::optional<double>, std::optional<std::string>> context_at(const ParsedLog& log, size_t line) {
  std::pair<std::optional<double>, std::optional<std::string>> context;
  for (const auto& run : log.results) {
    if (run.line < line) context = {run.setup_seconds, run.precision};
  }
  if (!context.second) {
    for (const auto& meta : log.meta) {
      if (const std::string* dtype = meta.fields.find(meta_key::dtype)) context.second = *dtype;
    }
  }
  return context;
}

// ---- CSV ----
const std::vector<std::string> kCsvResColumns = {"source",  "metadata_id", "line",       "status",  "timestamp",
                                                 "model",   "class",       "input",      "batch",   "latency_ms",
                                                 "throughput", "setup_s",  "precision"};

std::vector<std::string> csv_header() {
  std::vector<std::string> header = kCsvResColumns;
  // A row with no lines still names every line's spec, in column order.
  for (const auto& [spec, fields] : row_lines(Row{}, std::nullopt, std::nullopt)) {
    for (const FieldSpec* f : spec->csv_columns()) header.emplace_back(f->csv.header);
  }
  return header;
}

// RES's columns of a row: from the RES line, or for a FAIL from the ARG lines and what precedes it.
std::vector<std::string> csv_res_cells(const ParsedLog& log, const Row& row) {
  if (row.run) {
    const CombinationRecord& run = *row.run;
    return {"ok",
            run.timestamp,
            run.res.model_name,
            run.res.model_class,
            std::to_string(run.res.input),
            std::to_string(run.res.batch),
            fixed(run.res.latency_ms, 3),
            fixed(run.res.throughput, 1),
            run.setup_seconds ? fixed(*run.setup_seconds, 6) : "",
            run.precision.value_or("")};
  }
  const Fields& f = row.fail->fields;
  const auto [setup, precision] = context_at(log, row.line);
  return {"fail", "", arg_value(log.opts, "model_name"), arg_value(log.opts, "model_class"), *f.find(fail_key::input),
          *f.find(fail_key::batch), "", "", setup ? fixed(*setup, 6) : "", precision.value_or("")};
}

std::string csv_row(const std::vector<std::string>& cells) {
  std::string out;
  for (size_t i = 0; i < cells.size(); ++i) {
    if (i > 0) out += ',';
    out += csv_cell(cells[i]);
  }
  return out + '\n';
}

// ---- summary ----
std::string render(const SummaryTable& table, const std::string& margin) {
  std::vector<std::vector<std::string>> rows{table.header};
  rows.insert(rows.end(), table.rows.begin(), table.rows.end());
  TableLayout layout;
  layout.right = table.right;
  layout.margin = margin;
  return aligned_table(rows, layout);
}

// A field in its summary column: "-" when absent; a number as its column says; other text as written.
std::string summary_cell(const FieldSpec& spec, const Fields* fields) {
  const std::string* value = fields ? fields->find(spec.key) : nullptr;
  if (!value) return "-";
  if (spec.summary.decimals < 0) return *value;
  char* end = nullptr;
  const double d = std::strtod(value->c_str(), &end);
  return end && *end == '\0' ? fixed(d / spec.summary.divisor, spec.summary.decimals) : *value;
}

// The extension lines with summary columns in a log's table: STAT's always (computed from the REP lines
// where a log has no STAT line), MEM's where the log has a MEM line.
std::vector<const LineSpec*> summary_lines(const ParsedLog& log) {
  std::vector<const LineSpec*> lines = {&stat_line_spec()};
  if (std::any_of(log.results.begin(), log.results.end(), [](const CombinationRecord& r) { return r.mem.has_value(); })) {
    lines.push_back(&mem_line_spec());
  }
  lines.push_back(&note_line_spec());
  return lines;
}

SummaryTable summary_columns(const std::vector<const LineSpec*>& lines) {
  SummaryTable table;
  table.header = {"model", "class", "input", "batch", "latency_ms", "throughput"};
  table.right = {false, false, true, true, true, true};
  for (const LineSpec* spec : lines) {
    for (const FieldSpec* f : spec->summary_columns()) {
      table.header.emplace_back(f->summary.header);
      table.right.push_back(true);
    }
  }
  table.header.push_back("status");
  table.right.push_back(false);
  return table;
}

std::vector<std::string> summary_cells(const ParsedLog& log, const Row& row, const std::vector<const LineSpec*>& lines) {
  if (!row.run) {
    const Fields& f = row.fail->fields;
    const std::string model = arg_value(log.opts, "model_name"), cls = arg_value(log.opts, "model_class");
    std::vector<std::string> cells = {model.empty() ? "-" : model, cls.empty() ? "-" : cls, *f.find(fail_key::input),
                                      *f.find(fail_key::batch), "-", "-"};
    for (const LineSpec* spec : lines) cells.resize(cells.size() + spec->summary_columns().size(), "-");
    const std::string* error = f.find(fail_key::error);
    cells.push_back("FAIL: " + (error ? *error : std::string()));
    return cells;
  }
  const CombinationRecord& run = *row.run;
  const std::optional<StatLine> stat = stat_of(run);
  std::vector<std::string> cells = {run.res.model_name,           run.res.model_class,
                                    std::to_string(run.res.input), std::to_string(run.res.batch),
                                    fixed(run.res.latency_ms, 3), fixed(run.res.throughput, 1)};
  const std::optional<NoteLine> note = note_of(row);  // outlives the loop: row_lines points into it
  for (const auto& [spec, fields] : row_lines(row, stat, note)) {
    if (std::find(lines.begin(), lines.end(), spec) == lines.end()) continue;
    for (const FieldSpec* f : spec->summary_columns()) cells.push_back(summary_cell(*f, fields));
  }
  cells.push_back(check_status(run));
  return cells;
}

// What a log holds, for its heading: "2 results, 0 failures" for a sweep's; a serve log's levels and searches
// ("4 serve levels, 1 capacity search"; it said "0 results, 0 failures"), with its failures where it has some;
// both for a log that holds both.
std::string contents_text(const ParsedLog& log) {
  const bool serving = !log.serve.empty() || !log.capacity.empty();
  std::vector<std::string> parts;
  if (!log.results.empty() || !serving) parts.push_back(plural(log.results.size(), "result"));
  // A sweep stopped by Ctrl-C said "0 failures", as if it had ended: where it stopped instead.
  if (!log.failures.empty() || (log.interrupts.empty() && (!log.results.empty() || !serving)))
    parts.push_back(plural(log.failures.size(), "failure"));
  for (const InterruptLine& stop : log.interrupts) parts.push_back(interrupt_text(stop));
  if (!log.serve.empty()) parts.push_back(plural(log.serve.size(), "serve level"));
  if (!log.capacity.empty())
    parts.push_back(std::to_string(log.capacity.size()) + (log.capacity.size() == 1 ? " capacity search" : " capacity searches"));
  return joined(parts, ", ");
}

// The lines above a log's table: what it holds, META lines, the distinct setup times.
std::string summary_heading(const ParsedLog& log) {
  std::string out = source_name(log.source) + ": " + contents_text(log) + "\n";
  if (!log.labels.empty()) {
    out += "  run:";
    for (const auto& [key, value] : log.labels) out += " " + key + "=" + value;
    out += "\n";
  }
  for (const auto& meta : log.meta) {
    std::string text = "  meta:";
    for (const auto& [key, value] : meta.fields.items) text += " " + key + "=" + value;
    out += text + "\n";
  }
  std::vector<double> setups;
  for (const auto& run : log.results) {
    if (run.setup_seconds && std::find(setups.begin(), setups.end(), *run.setup_seconds) == setups.end()) {
      setups.push_back(*run.setup_seconds);
    }
  }
  for (double s : setups) out += "  setup: " + fixed(s, 6) + " s\n";
  return out;
}

// Under a log's table: each combination whose verdict is not ok, with the reason, for the reader to act on.
std::string verdict_notes(const ParsedLog& log) {
  std::string out;
  for (const CombinationRecord& run : log.results) {
    const std::optional<Verdict> verdict = verdict_of(run);
    if (!verdict || verdict->word == VerdictWord::ok) continue;
    out += "  " + std::string(verdict_text(verdict->word)) + ": input " + std::to_string(run.res.input) + " batch " +
           std::to_string(run.res.batch) + ": " + verdict->explained() + "\n";
  }
  return out;
}

}  // namespace

nlohmann::ordered_json to_upstream_json(const std::vector<ParsedLog>& logs,
                                        const std::optional<std::string>& metadata_id, bool upstream_only) {
  using J = nlohmann::ordered_json;
  J hits = J::array();
  for (const ParsedLog& log : logs) {
    const std::string engine = upstream_only ? "fmwork/embed/tf" : engine_name(log);
    for (const CombinationRecord& run : log.results) {
      J hit = J::object();
      hit["timestamp"] = run.timestamp;
      hit["metadata_id"] = metadata_id ? J(*metadata_id) : J(nullptr);
      hit["engine"] = engine;
      hit["model"] = run.res.model_name;
      hit["precision"] = (!upstream_only && run.precision) ? J(*run.precision) : J(nullptr);
      hit["input"] = run.res.input;
      hit["output"] = 1;
      hit["batch"] = run.res.batch;
      hit["tp"] = 1;
      hit["opts"] = log.opts;  // the file's whole list in every record, as upstream prints it
      hit["warmup"] = upstream_only ? J(nullptr) : warmup_seconds(run);
      hit["setup"] = (!upstream_only && run.setup_seconds) ? J(*run.setup_seconds) : J(nullptr);
      hit["ttft"] = nullptr;
      hit["itl"] = run.res.latency_ms;
      hit["thp"] = run.res.throughput;
      if (!upstream_only && !log.labels.empty()) {
        J labels = J::object();
        for (const auto& [k, v] : log.labels) labels[k] = v;
        hit["labels"] = labels;
      }
      hits.push_back(std::move(hit));
    }
  }
  return hits;
}

std::optional<StatLine> stat_of(const CombinationRecord& run) {
  if (run.stat) {
    StatLine stat = *run.stat;
    const std::optional<double> p50 = stat.fields.get_double(stat_key::p50_ms);
    if (p50 && !stat.fields.find(stat_key::tokens_per_s))
      stat.fields.add(std::string(stat_key::tokens_per_s), tokens_per_s(run.res.input, run.res.batch, *p50), 3);
    return stat;
  }
  if (run.rep_durations.size() < 2) return std::nullopt;
  std::vector<double> seconds;
  seconds.reserve(run.rep_durations.size());
  for (Nanos d : run.rep_durations) seconds.push_back(static_cast<double>(d) / 1e9);
  return make_stat_line(run.res.input, run.res.batch, stat_values(summarize(seconds)));
}

double precise_latency_ms(const CombinationRecord& run) {
  const std::optional<StatLine> stat = stat_of(run);
  const std::optional<double> p50 = stat ? stat->fields.get_double(stat_key::p50_ms) : std::nullopt;
  // A p50 that does not round to RES's latency is not the same median (a hand-made or spliced log): RES wins.
  return p50 && std::fabs(*p50 - run.res.latency_ms) <= 0.0005 + 1e-9 ? *p50 : run.res.latency_ms;
}

std::string check_status(const CombinationRecord& run) {
  auto value = [&](std::string_view key) {
    const std::string* v = find_in(run.check, key);
    return v ? *v : std::string();
  };
  const std::string result = value(check_key::result);
  if (result.empty()) return "ok";
  if (result == "pass") return "ok, check pass";
  return "CHECK FAIL: max_abs=" + value(check_key::max_abs) + " cosine=" + value(check_key::cosine);
}

bool check_failed(const CombinationRecord& run) {
  const std::string* result = find_in(run.check, check_key::result);
  return result && *result != "pass";
}

std::vector<double> kept_durations_ms(const CombinationRecord& run) {
  const std::optional<int64_t> dropped = run.stat ? run.stat->fields.get_int(stat_key::dropped) : std::nullopt;
  const size_t all = run.rep_durations.size();
  const size_t drop = std::min(dropped && *dropped >= 0 ? static_cast<size_t>(*dropped) : warmup_reps(all), all);
  std::vector<double> kept;
  kept.reserve(all - drop);
  for (size_t i = drop; i < all; ++i) kept.push_back(static_cast<double>(run.rep_durations[i]) / 1e6);
  return kept;
}

std::optional<LatencyRange> latency_range(const CombinationRecord& run) {
  const std::vector<double> kept = kept_durations_ms(run);
  if (kept.size() >= 2) return LatencyRange{percentile(kept, 10), percentile(kept, 90), "p10-p90"};
  const std::optional<StatLine> stat = stat_of(run);
  if (!stat) return std::nullopt;
  const auto lo = stat->fields.get_double(stat_key::min_ms), hi = stat->fields.get_double(stat_key::max_ms);
  if (!lo || !hi) return std::nullopt;
  return LatencyRange{*lo, *hi, "min-max"};
}

std::optional<Verdict> verdict_of(const CombinationRecord& run) {
  const std::optional<int64_t> dropped = run.stat ? run.stat->fields.get_int(stat_key::dropped) : std::nullopt;
  // The CPU the process got is STAT's alone (the REP lines cannot say): the same verdict as the driver's NOTE.
  const std::optional<CpuUse> cpu = run.stat ? cpu_use_of(run.stat->fields) : std::nullopt;
  // Mixed lengths: each rep drew other lengths, so the REP lines' spread is the draws' as much as the machine's;
  // the driver wrote the spread at equal work (it knew each rep's lengths), and its NOTE judged that.
  if (run.stat)
    if (const std::optional<Spread> equal_work = equal_work_spread_of_stat(run.stat->fields))
      return judge(*equal_work, cpu, run.implausible);
  if (!run.rep_durations.empty()) return judge(spread_of_kept(kept_durations_ms(run)), cpu, run.implausible);
  if (!run.stat) return std::nullopt;
  const Fields& f = run.stat->fields;
  StatValues v;
  v.reps = f.get_int(stat_key::reps).value_or(0);
  v.dropped = dropped.value_or(0);
  v.mean_ms = f.get_double(stat_key::mean_ms).value_or(0);
  v.stddev_ms = f.get_double(stat_key::stddev_ms).value_or(0);
  v.p50_ms = f.get_double(stat_key::p50_ms).value_or(0);
  v.p90_ms = f.get_double(stat_key::p90_ms).value_or(0);
  return judge(spread_of_stat(v), cpu, run.implausible);
}

// Leaves out the columns marked when_present (STAT's gflops and of_peak) where no row has a value: a log of a
// model whose FLOPs are unknown shows no column of dashes.
void drop_absent_columns(SummaryTable& table, const std::vector<const LineSpec*>& lines) {
  std::vector<size_t> drop;
  size_t column = 6;  // after model, class, input, batch, latency_ms, throughput (summary_columns)
  for (const LineSpec* spec : lines) {
    for (const FieldSpec* f : spec->summary_columns()) {
      const bool absent = std::all_of(table.rows.begin(), table.rows.end(),
                                      [&](const std::vector<std::string>& row) { return row[column] == "-"; });
      if (f->summary.when_present && absent) drop.push_back(column);
      ++column;
    }
  }
  for (auto it = drop.rbegin(); it != drop.rend(); ++it) {
    table.header.erase(table.header.begin() + static_cast<std::ptrdiff_t>(*it));
    table.right.erase(table.right.begin() + static_cast<std::ptrdiff_t>(*it));
    for (auto& row : table.rows) row.erase(row.begin() + static_cast<std::ptrdiff_t>(*it));
  }
}

// Moves the columns named `first` (those the table has, in that order) to its front: the verdict and the CoV
// lead every row, where a wide table's last columns would be off-screen (a report at 1400 px) or far right.
static void lead_with(SummaryTable& table, const std::vector<std::string>& first) {
  std::vector<size_t> order;
  for (const std::string& name : first) {
    const auto it = std::find(table.header.begin(), table.header.end(), name);
    if (it != table.header.end()) order.push_back(static_cast<size_t>(it - table.header.begin()));
  }
  for (size_t c = 0; c < table.header.size(); ++c)
    if (std::find(order.begin(), order.end(), c) == order.end()) order.push_back(c);
  const auto permute = [&](auto& cells) {
    auto copy = cells;
    for (size_t c = 0; c < order.size() && order[c] < copy.size(); ++c) cells[c] = copy[order[c]];
  };
  permute(table.header);
  permute(table.right);
  for (auto& row : table.rows) permute(row);
}

std::string model_short_name(const std::string& model_name) {
  std::vector<std::string> parts;
  for (std::string_view part : split(model_name, '/'))
    if (!part.empty() && part != ".") parts.emplace_back(part);
  if (parts.size() < 2) return model_name;  // a bare name (or a hub id's org alone): as given
  const auto stem = [](std::string part) {
    for (const char* ext : {".pt2", ".pt"}) {
      const std::string e = ext;
      if (part.size() > e.size() && part.compare(part.size() - e.size(), e.size(), e) == 0) return part.substr(0, part.size() - e.size());
    }
    return part;
  };
  const auto generic = [](const std::string& part) {
    if (part == "model" || part == "models" || part == "weights" || part == "snapshots" || part == "..") return true;
    return part.size() >= 7 && part.size() <= 64 && part.find_first_not_of("0123456789abcdef") == std::string::npos;
  };
  size_t i = parts.size() - 1;
  std::string name = stem(parts[i]);
  while (generic(name) && i > 0) name = stem(parts[--i]);
  if (generic(name)) return model_name;  // nothing but generic words: the path says more
  if (name.rfind("models--", 0) == 0) {  // the Hugging Face cache's folder of a hub id
    name = name.substr(8);
    for (size_t at = name.find("--"); at != std::string::npos; at = name.find("--", at + 1)) name.replace(at, 2, "/");
  }
  return name;
}

SummaryTable summary_table(const ParsedLog& log) {
  const std::vector<const LineSpec*> lines = summary_lines(log);
  SummaryTable table = summary_columns(lines);
  for (const Row& row : rows_of(log)) table.rows.push_back(summary_cells(log, row, lines));
  drop_absent_columns(table, lines);
  // NOTE's verdict and CoV first, by the headers their rows give them.
  const std::string verdict(note_line_spec().find(note_key::verdict)->summary.header);
  lead_with(table, {verdict, std::string(note_line_spec().find(note_key::cov)->summary.header)});
  if (!table.header.empty() && table.header[0] == verdict) table.right[0] = false;  // a word, read from the left
  return table;
}

std::vector<std::string> label_columns(const std::vector<ParsedLog>& logs) {
  std::vector<std::string> columns;
  for (const ParsedLog& log : logs)
    for (const auto& label : log.labels)
      if (std::find(columns.begin(), columns.end(), label.first) == columns.end()) columns.push_back(label.first);
  return columns;
}

std::string to_csv(const std::vector<ParsedLog>& logs, const std::optional<std::string>& metadata_id) {
  const std::vector<std::string> labels = label_columns(logs);
  std::string out = csv_header_row(labels);  // then each log's rows, as process writes them log by log
  for (const ParsedLog& log : logs) out += csv_rows(log, metadata_id, labels);
  return out;
}

std::string csv_record(const std::vector<std::string>& cells) { return csv_row(cells); }
std::string csv_header_row(const std::vector<std::string>& label_columns) {
  std::vector<std::string> header = csv_header();
  header.insert(header.end(), label_columns.begin(), label_columns.end());
  return csv_row(header);
}

std::string csv_rows(const ParsedLog& log, const std::optional<std::string>& metadata_id,
                     const std::vector<std::string>& labels) {
  std::string out;
  for (const Row& row : rows_of(log)) {
    std::vector<std::string> cells = {log.source, metadata_id.value_or(""), std::to_string(row.line)};
    for (std::string& cell : csv_res_cells(log, row)) cells.push_back(std::move(cell));
    const std::optional<StatLine> stat = row.run ? stat_of(*row.run) : std::nullopt;
    const std::optional<NoteLine> note = note_of(row);  // outlives the loop: row_lines points into it
    for (const auto& [spec, fields] : row_lines(row, stat, note)) {
      for (const FieldSpec* f : spec->csv_columns()) {
        const std::string* value = fields ? fields->find(f->key) : nullptr;
        cells.push_back(value ? *value : "");
      }
    }
    for (const std::string& column : labels) cells.push_back(label_of(log, column));
    out += csv_row(cells);
  }
  return out;
}

std::string to_summary(const std::vector<ParsedLog>& logs) {
  std::string out;
  for (size_t l = 0; l < logs.size(); ++l) {
    const ParsedLog& log = logs[l];
    if (l > 0) out += "\n";
    out += summary_heading(log);
    const SummaryTable table = summary_table(log);
    // A log of driver serve has no RES line: its levels are serve_report's (process writes them after this).
    const bool serving = log.results.empty() && (!log.serve.empty() || !log.capacity.empty());
    if (!serving) out += table.rows.empty() ? std::string("  (no results)\n") : render(table, "  ");
    out += verdict_notes(log);
  }
  return out;
}

}  // namespace fmwork
