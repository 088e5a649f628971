// `driver serve`'s lines in process's outputs (serve_report.hpp).
#include "fmwork/report/serve_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <ostream>

#include <fmt/format.h>

#include "fmwork/base/error.hpp"
#include "fmwork/base/text_format.hpp"
#include "fmwork/log/log_schema.hpp"
#include "fmwork/report/formats.hpp"
#include "fmwork/report/svg_chart.hpp"
#include "html_page.hpp"

namespace fmwork {

namespace {

using report_page::esc;

// SERVE's CSV columns, then CAPACITY's that SERVE has not.
std::vector<std::string> csv_keys() {
  std::vector<std::string> keys;
  for (const FieldSpec* f : serve_line_spec().csv_columns()) keys.emplace_back(f->key);
  for (const FieldSpec* f : capacity_line_spec().csv_columns())
    if (std::find(keys.begin(), keys.end(), f->key) == keys.end()) keys.emplace_back(f->key);
  return keys;
}

// A log's SERVE and CAPACITY lines in log order: SERVE lines come first in a log (the levels, then the
// search's), its CAPACITY line after them.
struct Line {
  const char* word;
  const Fields* fields;
  const LineSpec* spec;
};
std::vector<Line> lines_of(const ParsedLog& log) {
  std::vector<Line> out;
  for (const ServeLine& s : log.serve) out.push_back({"SERVE", &s.fields, &serve_line_spec()});
  for (const CapacityLine& c : log.capacity) out.push_back({"CAPACITY", &c.fields, &capacity_line_spec()});
  return out;
}

std::string cell(const Fields& fields, std::string_view key) {
  const std::string* v = fields.find(key);
  return v ? *v : "";
}

// A summary cell as the column says: value / divisor with its decimals, or as written.
std::string summary_cell(const Fields& fields, const FieldSpec& f) {
  const std::string* v = fields.find(f.key);
  if (!v) return "-";
  if (f.summary.decimals < 0 || f.kind == FieldKind::text) return *v;
  const std::optional<double> d = fields.get_double(f.key);
  return d ? fmt::format("{:.{}f}", *d / f.summary.divisor, f.summary.decimals) : *v;
}

// The milliseconds of a bound as written ("p99:50" -> 50); nullopt for text that is no such bound (a log is
// untrusted: nothing here throws on it).
std::optional<double> bound_ms_of(const std::string& text) {
  const size_t colon = text.find(':');
  if (colon == std::string::npos || colon + 1 >= text.size()) return std::nullopt;
  const std::string ms = text.substr(colon + 1);
  char* end = nullptr;
  const double v = std::strtod(ms.c_str(), &end);
  if (end != ms.c_str() + ms.size() || !(v > 0) || !std::isfinite(v)) return std::nullopt;
  return v;
}

// How a log is named in tables and legends: a campaign run's id (its matrix values beside it), else its path.
std::string log_name(const ParsedLog& log) {
  const std::string run = label_of(log, "run_id");
  return run.empty() ? source_name(log.source) : run;
}

std::optional<double> level_x(const Fields& f) {
  if (const std::optional<double> rate = f.get_double(serve_key::rate)) return rate;
  return f.get_double(serve_key::offered_qps);
}

bool has_serve_lines(const ParsedLog& log) { return !log.serve.empty() || !log.capacity.empty(); }

}  // namespace

bool is_serve_log(const ParsedLog& log) { return has_serve_lines(log) && log.results.empty(); }

void refuse_or_note_serve_logs(const std::string& option, const std::string& does, const std::string& where,
                               size_t serve, size_t logs, std::ostream& err) {
  if (serve == 0) return;
  if (serve == logs)
    throw usage_error(option + " " + does + " (RES lines); the logs of " + where + " are driver serve's (SERVE and "
                      "CAPACITY lines): process --path prints their levels and, for a campaign, its capacities in one "
                      "table");
  err << "note: " << option << ": " << serve << " of the " << logs << " logs of " << where
      << " are driver serve's (SERVE lines), which it has no use for: left out\n";
}

void leave_out_serve_logs(const std::string& option, const std::string& where, std::vector<ParsedLog>& logs,
                          std::ostream& err) {
  const auto serve = std::count_if(logs.begin(), logs.end(), [](const ParsedLog& l) { return is_serve_log(l); });
  refuse_or_note_serve_logs(option, "pairs the sweep's results", where, static_cast<size_t>(serve), logs.size(), err);
  logs.erase(std::remove_if(logs.begin(), logs.end(), [](const ParsedLog& l) { return is_serve_log(l); }), logs.end());
}

void note_serve_lines_left_out(const ParsedLog& log, const std::string& option, const std::string& why,
                               std::ostream& err) {
  if (log.results.empty() || !has_serve_lines(log)) return;
  std::vector<std::string> counts;
  if (!log.serve.empty()) counts.push_back(plural(log.serve.size(), "SERVE line"));
  if (!log.capacity.empty()) counts.push_back(plural(log.capacity.size(), "CAPACITY line"));
  err << "note: " << source_name(log.source) << ": " << option << " leaves out its " << joined(counts, " and ")
      << " beside its RES lines (" << why << ")\n";
}

std::string serve_summary(const ParsedLog& log) {
  if (!has_serve_lines(log)) return "";
  std::string out;
  if (!log.serve.empty()) {
    // The columns shown, decided once: deciding them again for each row read every line per row, and a log of
    // 10k levels took half a minute (bench/report_linear.sh).
    std::vector<const FieldSpec*> columns;
    std::vector<std::vector<std::string>> rows(1);
    TableLayout layout;
    layout.margin = "  ";
    for (const FieldSpec* f : serve_line_spec().summary_columns()) {
      bool any = !f->summary.when_present;
      for (const ServeLine& s : log.serve) any = any || s.fields.find(f->key);
      if (!any) continue;
      columns.push_back(f);
      rows[0].emplace_back(f->summary.header);
      layout.right.push_back(f->kind != FieldKind::text);
    }
    for (const ServeLine& s : log.serve) {
      std::vector<std::string> row;
      for (const FieldSpec* f : columns) row.push_back(summary_cell(s.fields, *f));
      rows.push_back(std::move(row));
    }
    out += "  serving levels:\n" + aligned_table(rows, layout);
    // Each level whose figures need a word: INVALID (its reason), and VALID but run while other work held the CPU
    // (its latency is partly that work's).
    for (const ServeLine& s : log.serve)
      if (cell(s.fields, serve_key::verdict) == "INVALID")
        out += fmt::format("  level {}: INVALID: {}\n", cell(s.fields, serve_key::level), cell(s.fields, serve_key::reason));
      else if (cell(s.fields, serve_key::timing) == "contended")
        out += fmt::format("  level {}: VALID, contended: {}\n", cell(s.fields, serve_key::level), cell(s.fields, serve_key::reason));
  }
  for (const CapacityLine& c : log.capacity)
    out += fmt::format("  CAPACITY {}: {}\n    rates tried (rate:outcome:{}_ms): {}\n", cell(c.fields, capacity_key::bound),
                       cell(c.fields, capacity_key::reason), cell(c.fields, capacity_key::bound).substr(0, cell(c.fields, capacity_key::bound).find(':')),
                       cell(c.fields, capacity_key::tried));
  return out;
}

std::string serve_csv_header(const std::vector<std::string>& labels) {
  std::vector<std::string> header = {"source", "line"};
  for (std::string& k : csv_keys()) header.push_back(std::move(k));
  // A matrix column named as a field (a matrix over --batching or --users) would give the CSV two columns of
  // one name: it is told apart as matrix.<name>.
  const std::vector<std::string> fields = header;
  for (const std::string& label : labels)
    header.push_back(std::find(fields.begin(), fields.end(), label) == fields.end() ? label : "matrix." + label);
  return csv_record(header);
}

std::string serve_csv_rows(const ParsedLog& log, const std::vector<std::string>& labels) {
  const std::vector<std::string> keys = csv_keys();
  std::string out;
  for (const Line& l : lines_of(log)) {
    std::vector<std::string> cells = {log.source, l.word};
    for (const std::string& k : keys) cells.push_back(cell(*l.fields, k));
    for (const std::string& k : labels) cells.push_back(label_of(log, k));
    out += csv_record(cells);
  }
  return out;
}

std::string serve_capacity_table(const std::vector<ParsedLog>& logs) {
  size_t answers = 0;
  for (const ParsedLog& log : logs) answers += log.capacity.size();
  if (answers < 2) return "";
  std::vector<std::string> labels = label_columns(logs);  // the matrix columns: run_id leads each row, run is in it
  const auto named = [](const std::string& k) { return k == "run_id" || k == "run"; };
  labels.erase(std::remove_if(labels.begin(), labels.end(), named), labels.end());
  std::vector<std::vector<std::string>> rows = {{"run_id"}};
  rows[0].insert(rows[0].end(), labels.begin(), labels.end());
  for (const char* h : {"bound", "result", "timing", "capacity q/s", "achieved q/s", "USD/M"}) rows[0].emplace_back(h);
  TableLayout layout;
  layout.margin = "  ";
  layout.right.assign(rows[0].size(), false);
  for (size_t i = rows[0].size() - 3; i < rows[0].size(); ++i) layout.right[i] = true;
  for (const ParsedLog& log : logs)
    for (const CapacityLine& c : log.capacity) {
      std::vector<std::string> row = {log_name(log)};
      for (const std::string& k : labels) row.push_back(label_of(log, k));
      for (const std::string_view k : {capacity_key::bound, capacity_key::result, capacity_key::timing,
                                       capacity_key::capacity_qps, capacity_key::achieved_qps,
                                       capacity_key::usd_per_million}) {
        const std::string v = cell(c.fields, k);
        row.push_back(v.empty() ? "-" : v);
      }
      rows.push_back(std::move(row));
    }
  return "capacity at the latency bound, one row per search:\n" + aligned_table(rows, layout);
}

nlohmann::ordered_json serve_json(const ParsedLog& log) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const Line& l : lines_of(log)) {
    nlohmann::ordered_json o;
    o["source"] = log.source;
    o["line"] = l.word;
    if (!log.labels.empty()) {  // a campaign's run: its id and matrix values, as the sweep's records carry them
      nlohmann::ordered_json labels = nlohmann::ordered_json::object();
      for (const auto& [k, v] : log.labels) labels[k] = v;
      o["labels"] = labels;
    }
    // Every field of the line's table, null where the line has none: a figure that was not measured (a
    // level that answered no query has no latency) is null, never 0, and each record has the same keys.
    for (const FieldSpec& f : l.spec->fields) {
      const std::string key(f.key);
      const std::string* value = l.fields->find(key);
      if (!value) o[key] = nullptr;
      else if (f.kind == FieldKind::integer) o[key] = *l.fields->get_int(key);
      else if (f.kind == FieldKind::number) o[key] = *l.fields->get_double(key);
      else o[key] = *value;
    }
    list.push_back(std::move(o));
  }
  return list;
}

std::string serve_html_section(const std::vector<ParsedLog>& logs) {
  bool any = false;
  for (const ParsedLog& log : logs) any = any || has_serve_lines(log);
  if (!any) return "";
  LineChart chart;
  chart.title = "Latency against load";
  chart.x_label = "offered load (queries/s, log2)";
  chart.y_label = "latency (ms), scheduled arrival to answer";
  std::string tables;
  for (size_t i = 0; i < logs.size(); ++i) {
    const ParsedLog& log = logs[i];
    if (!has_serve_lines(log)) continue;
    ChartSeries p50{log_name(log) + " p50", 2 * i, {}}, p99{log_name(log) + " p99", 2 * i + 1, {}};
    std::vector<const ServeLine*> levels;
    for (const ServeLine& s : log.serve) levels.push_back(&s);
    std::stable_sort(levels.begin(), levels.end(), [](const ServeLine* a, const ServeLine* b) {
      return level_x(a->fields).value_or(0) < level_x(b->fields).value_or(0);
    });
    for (const ServeLine* s : levels) {
      const std::optional<double> x = level_x(s->fields);
      if (!x) continue;
      const std::string tip = fmt::format("level {} ({}): {} queries/s offered, {} achieved; {}{}", cell(s->fields, serve_key::level),
                                          cell(s->fields, serve_key::phase), cell(s->fields, serve_key::offered_qps),
                                          cell(s->fields, serve_key::achieved_qps), cell(s->fields, serve_key::verdict),
                                          cell(s->fields, serve_key::timing) == "contended" ? ", contended" : "");
      if (const auto y = s->fields.get_double(serve_key::p50_ms)) p50.points.push_back({*x, *y, 0, 0, "p50 " + tip, ""});
      if (const auto y = s->fields.get_double(serve_key::p99_ms)) p99.points.push_back({*x, *y, 0, 0, "p99 " + tip, ""});
      if (!chart.reference_y && s->fields.find(serve_key::bound)) chart.reference_y = bound_ms_of(cell(s->fields, serve_key::bound));
      if (chart.reference_y && chart.reference_label.empty()) chart.reference_label = "bound " + cell(s->fields, serve_key::bound);
    }
    chart.series.push_back(std::move(p50));
    chart.series.push_back(std::move(p99));
    std::string matrix;  // a campaign run's matrix values beside its id
    for (const auto& [key, value] : log.labels)
      if (key != "run_id" && key != "run") matrix += (matrix.empty() ? " (" : " ") + key + "=" + value;
    tables += "<h3>" + esc(log_name(log) + (matrix.empty() ? "" : matrix + ")")) + "</h3>\n<pre class=\"serve\">" +
              esc(serve_summary(log)) + "</pre>\n";
  }
  // Past the knee the latency grows by orders of magnitude (a queue that grew for the whole level): a log y axis
  // keeps the flat part and the bound readable, as the report's other charts do past a decade.
  if (spans_decade(chart)) {
    chart.y_log = true;
    chart.y_label += ", log scale";
  }
  const std::string capacities = serve_capacity_table(logs);
  return "<section id=\"serving\"><h2>Serving: latency against load</h2>\n<p class=\"note\">Each point a load level of "
         "<code>driver serve</code>: the latency runs from each query's scheduled arrival to its batch's outputs being "
         "ready, so queueing is in it; the curve bends up where the device saturates.</p>\n" +
         render_svg_chart(chart) +
         (capacities.empty() ? "" : "<pre class=\"serve\">" + esc(capacities) + "</pre>\n") + tables +
         "</section>\n";
}

}  // namespace fmwork
