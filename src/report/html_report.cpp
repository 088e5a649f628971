// The HTML report (report_html): its sections, runs, charts, failures and one per run, built as text from
// the records, charts from svg_chart. The comparison page is in html_compare.cpp, the blocks both pages
// share in html_page.hpp. Every string from a log goes through html_escape (esc) on its way into the page;
// numbers through html_fixed.
#include "fmwork/report/html_report.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "fmwork/log/stats.hpp"
#include "fmwork/report/compare.hpp"  // repeated_run
#include "fmwork/report/formats.hpp"
#include "fmwork/report/html_text.hpp"
#include "fmwork/report/svg_chart.hpp"
#include "html_page.hpp"

namespace fmwork {

namespace {

namespace fs = std::filesystem;

using namespace report_page;

// ---- runs: one per log ----

struct RunView {
  const ParsedLog* log = nullptr;
  size_t style = 0;
  std::string name;    // unique among the logs of the page
  std::string legend;  // the name and the run's matrix values
  std::string anchor;  // the id of its section
  std::string file;    // its path under the folder read, or as named
};

// The folder of `paths` a log was found under ("" when none): its own name, and the log's path under it.
std::pair<std::string, std::string> folder_and_path(const std::string& source, const std::vector<std::string>& paths) {
  for (const std::string& p : paths) {
    const std::string dir = !p.empty() && p.back() == '/' ? p : p + "/";
    if (source.size() > dir.size() && source.compare(0, dir.size(), dir) == 0) {
      const std::string trimmed = dir.substr(0, dir.size() - 1);
      const size_t slash = trimmed.rfind('/');
      return {slash == std::string::npos ? trimmed : trimmed.substr(slash + 1), source.substr(dir.size())};
    }
  }
  return {"", source_name(source)};
}

// What the repeats of one run share: the folder of their logs and the run without ".r<k>".
std::string repeat_key(const ParsedLog& log) {
  return fs::path(log.source).parent_path().string() + "\n" + repeated_run(log);
}

std::vector<RunView> run_views(const std::vector<ParsedLog>& logs, const std::vector<std::string>& paths) {
  std::vector<RunView> views;
  std::map<std::string, int> seen;
  std::map<std::string, size_t> repeat_style;  // a campaign's repeats of one run share a color: one series
  for (size_t i = 0; i < logs.size(); ++i) {
    // With several folders read, a log's path keeps its folder's name in front: two campaigns' logs/m.1.log.
    const auto [folder, path] = folder_and_path(logs[i].source, paths);
    const std::string file = paths.size() > 1 && !folder.empty() ? folder + "/" + path : path;
    RunView v{&logs[i], i, label_of(logs[i], "run_id"), "", "run-" + std::to_string(i + 1), file};
    if (v.name.empty()) v.name = source_name(logs[i].source);
    if (!label_of(logs[i], "repeat").empty())
      v.style = repeat_style.emplace(repeat_key(logs[i]), i).first->second;
    ++seen[v.name];
    views.push_back(std::move(v));
  }
  for (RunView& v : views) {
    // The same run read twice (two campaigns): the folder it came from, else its log's number.
    const std::string folder = paths.size() > 1 ? folder_and_path(v.log->source, paths).first : "";
    if (seen[v.name] > 1) v.name += " [" + (folder.empty() ? v.anchor.substr(4) : folder) + "]";
    std::string matrix;
    for (const auto& kv : v.log->labels)
      if (kv.first != "run_id" && kv.first != "run") matrix += (matrix.empty() ? "" : ", ") + kv.first + "=" + kv.second;
    v.legend = matrix.empty() ? v.name : v.name + " (" + matrix + ")";
  }
  return views;
}

std::optional<std::string> meta_value(const ParsedLog& log, const std::string& key) {
  std::optional<std::string> out;
  for (const MetaLine& m : log.meta)
    if (const std::string* v = m.fields.find(key)) out = *v;
  return out;
}

// The META keys of all logs in first-seen order, split by whether every log has the same value.
std::pair<std::vector<std::string>, KeyValues> meta_split(const std::vector<RunView>& views) {
  std::vector<std::string> keys, differing;
  for (const RunView& v : views)
    for (const auto& kv : meta_of(*v.log))
      if (std::find(keys.begin(), keys.end(), kv.first) == keys.end()) keys.push_back(kv.first);
  KeyValues common;
  for (const std::string& key : keys) {
    const std::optional<std::string> first = meta_value(*views.front().log, key);
    bool same = first.has_value();
    for (const RunView& v : views) same = same && meta_value(*v.log, key) == first;
    if (same && views.size() > 1) common.emplace_back(key, *first);
    else differing.push_back(key);
  }
  return {differing, common};
}

std::vector<std::string> label_keys(const std::vector<RunView>& views) {
  std::vector<std::string> keys;
  for (const RunView& v : views)
    for (const auto& kv : v.log->labels)
      if (kv.first != "run_id" && std::find(keys.begin(), keys.end(), kv.first) == keys.end()) keys.push_back(kv.first);
  return keys;
}

std::string runs_section(const std::vector<RunView>& views) {
  const auto [differing, common] = meta_split(views);
  const std::vector<std::string> labels = label_keys(views);
  std::vector<std::string> header = {"name"};
  header.insert(header.end(), labels.begin(), labels.end());
  for (const std::string& key : differing) header.push_back("META " + key);
  for (const char* h : {"results", "failures", "log"}) header.emplace_back(h);
  std::vector<TableRow> rows;
  for (const RunView& v : views) {
    TableRow row{"", {{swatch(v.style) + "<a href=\"#" + v.anchor + "\">" + esc(v.name) + "</a>", "name"}}};
    for (const std::string& key : labels) row.cells.push_back(text_cell(label_of(*v.log, key)));
    for (const std::string& key : differing) row.cells.push_back(text_cell(meta_value(*v.log, key).value_or("-")));
    row.cells.push_back(num_cell(std::to_string(v.log->results.size())));
    row.cells.push_back(num_cell(std::to_string(v.log->failures.size())));
    row.cells.push_back(text_cell(v.file, "mono"));
    rows.push_back(std::move(row));
  }
  std::string out = "<section id=\"runs\"><h2>Runs</h2>\n" + html_table("runs", header, rows);
  if (!common.empty()) out += "<h4>META common to all runs</h4>\n" + key_values("meta common", common);
  return out + "</section>\n";
}

// ---- charts ----

std::vector<int64_t> input_sizes(const std::vector<ParsedLog>& logs) {
  std::set<int64_t> sizes;
  for (const ParsedLog& log : logs) {
    for (const CombinationRecord& r : log.results) sizes.insert(r.res.input);
    for (const FailLine& f : log.failures) sizes.insert(f.fields.get_int("input").value_or(0));
  }
  return {sizes.begin(), sizes.end()};
}

std::optional<double> stddev_of(const CombinationRecord& r) {
  const std::optional<StatLine> stat = stat_of(r);
  return stat ? stat->fields.get_double("stddev_ms") : std::nullopt;
}

std::string point_tooltip(const std::string& name, const CombinationRecord& r, const std::optional<double>& sd) {
  return name + "\ninput " + std::to_string(r.res.input) + ", batch " + std::to_string(r.res.batch) + "\nlatency " +
         html_fixed(r.res.latency_ms, 3) + " ms" + (sd ? " \xc2\xb1 " + html_fixed(*sd, 3) + " ms (stddev)" : "") +
         "\nthroughput " + html_fixed(r.res.throughput, 1) + " sequences/s";
}

// The logs a series stands for: one log, or a campaign's repeats of one run (the same run in the same
// folder, logs labelled repeat=k), drawn as one series: their median, a bar from the lowest to the highest.
struct SeriesGroup {
  std::vector<const RunView*> views;
  std::string legend;
};

std::vector<SeriesGroup> series_groups(const std::vector<RunView>& views) {
  std::vector<SeriesGroup> groups;
  std::map<std::string, size_t> index;
  for (const RunView& v : views) {
    const bool repeat = !label_of(*v.log, "repeat").empty();
    const std::string key = repeat ? repeat_key(*v.log) : "\n" + std::to_string(v.style);
    if (!index.count(key)) index[key] = groups.size(), groups.push_back({{}, v.legend});
    groups[index[key]].views.push_back(&v);
  }
  for (SeriesGroup& g : groups) {
    if (g.views.size() < 2) continue;
    std::string matrix;
    for (const auto& kv : g.views[0]->log->labels)
      if (kv.first != "run_id" && kv.first != "run" && kv.first != "repeat")
        matrix += (matrix.empty() ? "" : ", ") + kv.first + "=" + kv.second;
    g.legend = repeated_run(*g.views[0]->log) + " (" + (matrix.empty() ? "" : matrix + "; ") + "median of " +
               std::to_string(g.views.size()) + " repeats)";
  }
  return groups;
}

// A group's points at one input size: per batch the median over its logs, the bar from min to max.
void add_repeat_points(const SeriesGroup& g, int64_t input, ChartSeries& ls, ChartSeries& ts) {
  std::map<int64_t, std::vector<const CombinationRecord*>> by_batch;
  for (const RunView* v : g.views)
    for (const CombinationRecord& r : v->log->results)
      if (r.res.input == input) by_batch[r.res.batch].push_back(&r);
  for (const auto& entry : by_batch) {
    std::vector<double> lat, thp;
    for (const CombinationRecord* r : entry.second) lat.push_back(r->res.latency_ms), thp.push_back(r->res.throughput);
    std::sort(lat.begin(), lat.end());
    std::sort(thp.begin(), thp.end());
    const size_t n = lat.size();
    const double lm = median(lat), tm = median(thp);
    const std::string tip = g.legend + "\ninput " + std::to_string(input) + ", batch " + std::to_string(entry.first) +
                            "\nlatency " + html_fixed(lm, 3) + " ms, repeats " + html_fixed(lat.front(), 3) + " to " +
                            html_fixed(lat.back(), 3) + " ms (" + std::to_string(n) + ")";
    const double x = static_cast<double>(entry.first);
    ls.points.push_back({x, lm, lm - lat.front(), lat.back() - lm, tip});
    ts.points.push_back({x, tm, tm - thp.front(), thp.back() - tm, tip});
  }
}

// The FAIL lines of a group's logs at one input size, as crosses on both charts.
void add_fail_marks(const SeriesGroup& g, int64_t input, LineChart& lat, LineChart& thp) {
  for (const RunView* v : g.views) {
    for (const FailLine& f : v->log->failures) {
      if (f.fields.get_int("input").value_or(0) != input) continue;
      const int64_t batch = f.fields.get_int("batch").value_or(0);
      const std::string* error = f.fields.find("error");
      const ChartMark mark{static_cast<double>(batch), v->name + "\ninput " + std::to_string(input) + ", batch " +
                                                           std::to_string(batch) + ": FAIL\n" + (error ? *error : "")};
      lat.marks.push_back(mark);
      thp.marks.push_back(mark);
    }
  }
}

// One log's points at one input size: its RES values, a bar of +-1 stddev.
void add_points(const RunView& v, int64_t input, ChartSeries& ls, ChartSeries& ts) {
  for (const CombinationRecord& r : v.log->results) {
    if (r.res.input != input) continue;
    const std::optional<double> sd = stddev_of(r);
    const double e = sd.value_or(0), x = static_cast<double>(r.res.batch);
    // Throughput's bar: the latency's relative spread carried over (first order of batch / latency).
    const double te = r.res.latency_ms > 0 ? r.res.throughput * e / r.res.latency_ms : 0;
    const std::string tip = point_tooltip(v.name, r, sd);
    ls.points.push_back({x, r.res.latency_ms, e, e, tip});
    ts.points.push_back({x, r.res.throughput, te, te, tip});
  }
}

// The latency and throughput charts of one input size.
std::pair<LineChart, LineChart> charts_of(const std::vector<RunView>& views, int64_t input) {
  LineChart lat, thp;
  lat.title = "Latency vs batch, input " + std::to_string(input);
  thp.title = "Throughput vs batch, input " + std::to_string(input);
  lat.x_label = thp.x_label = "batch size (log2 scale)";
  lat.y_label = "latency (ms)";
  thp.y_label = "throughput (sequences/s)";
  for (const SeriesGroup& g : series_groups(views)) {
    ChartSeries ls{g.legend, g.views[0]->style, {}}, ts{g.legend, g.views[0]->style, {}};
    if (g.views.size() > 1) add_repeat_points(g, input, ls, ts);
    else add_points(*g.views[0], input, ls, ts);
    add_fail_marks(g, input, lat, thp);
    if (!ls.points.empty()) lat.series.push_back(std::move(ls)), thp.series.push_back(std::move(ts));
  }
  return {lat, thp};
}

std::string charts_section(const std::vector<RunView>& views, const std::vector<ParsedLog>& logs) {
  std::string out =
      "<section id=\"charts\"><h2>Latency and throughput vs batch size</h2>\n<p class=\"note\">Latency: the RES "
      "median of the kept reps. Throughput: RES, batch / latency, in sequences per second. Error bars: &#177;1 "
      "standard deviation of the kept reps (the STAT line, else computed from the REP lines), carried over to "
      "throughput as throughput &#215; stddev / latency. A red &#215; on the x axis is a failed combination: "
      "hover it for the error. Hover a point for its numbers. A campaign's repeats (\"repeat\": N) are one series: "
      "the median of the repeats, its bar from the lowest to the highest.</p>\n";
  const std::vector<int64_t> inputs = input_sizes(logs);
  if (inputs.empty()) out += "<p class=\"note\">No combination to chart: the logs have no RES or FAIL line.</p>\n";
  for (int64_t input : inputs) {
    const auto [lat, thp] = charts_of(views, input);
    out += "<h3 id=\"input-" + std::to_string(input) + "\">Input size " + std::to_string(input) +
           "</h3>\n<div class=\"charts\">" + render_svg_chart(lat) + "\n" + render_svg_chart(thp) + "</div>\n";
  }
  return out + "</section>\n";
}

// ---- failures and the runs' own sections ----

std::string failures_section(const std::vector<RunView>& views) {
  std::vector<TableRow> rows;
  for (const RunView& v : views) {
    const ParsedLog& log = *v.log;
    for (size_t i = 0; i < log.failures.size(); ++i) {
      const Fields& f = log.failures[i].fields;
      const std::string* error = f.find("error");
      const std::string line = i < log.failure_lines.size() ? std::to_string(log.failure_lines[i]) : "?";
      rows.push_back({"fail", {{swatch(v.style) + "<a href=\"#" + v.anchor + "\">" + esc(v.name) + "</a>", "name"},
                               num_cell(std::to_string(f.get_int("input").value_or(0))),
                               num_cell(std::to_string(f.get_int("batch").value_or(0))),
                               text_cell(error ? *error : "", "error"),
                               text_cell(v.file + ":" + line, "mono")}});
    }
  }
  std::string out = "<section id=\"failures\"><h2>Failures</h2>\n";
  if (rows.empty()) return out + "<p class=\"note\">No FAIL line: every combination ran.</p>\n</section>\n";
  return out + html_table("failures", {"run", "input", "batch", "error", "log line"}, rows) + "</section>\n";
}

std::string results_table(const ParsedLog& log) {
  const SummaryTable table = summary_table(log);
  if (table.rows.empty()) return "<p class=\"note\">No RES or FAIL line in this log.</p>\n";
  std::vector<TableRow> rows;
  for (const auto& cells : table.rows) {
    TableRow row{!cells.empty() && cells.back().rfind("FAIL", 0) == 0 ? "fail" : "", {}};
    for (size_t c = 0; c < cells.size(); ++c)
      row.cells.push_back(text_cell(cells[c], c < table.right.size() && table.right[c] ? "num" : ""));
    rows.push_back(std::move(row));
  }
  return html_table("results", table.header, rows);
}

std::string run_section(const RunView& v) {
  std::string out = "<section class=\"run\" id=\"" + v.anchor + "\"><h3>" + swatch(v.style) + esc(v.name) + "</h3>\n" +
                    "<p class=\"note\">log <code>" + esc(source_name(v.log->source)) + "</code>: " +
                    plural(v.log->results.size(), "result") + ", " + plural(v.log->failures.size(), "failure") + "</p>\n";
  if (!v.log->labels.empty()) out += "<h4>Labels</h4>\n" + key_values("labels", v.log->labels);
  const KeyValues meta = meta_of(*v.log);
  out += "<h4>META</h4>\n";
  out += meta.empty() ? "<p class=\"note\">No META line (a log of upstream's driver).</p>\n" : key_values("meta", meta);
  return out + "<h4>Results</h4>\n" + results_table(*v.log) + "</section>\n";
}

}  // namespace

std::string report_html(const std::vector<ParsedLog>& logs, const std::vector<std::string>& paths) {
  size_t results = 0, failures = 0;
  for (const ParsedLog& log : logs) results += log.results.size(), failures += log.failures.size();
  std::string body = "<h1>fmwork report</h1>\n" + paths_line("Read:", paths);
  body += "<p class=\"counts\"><b>" + plural(logs.size(), "log") + "</b> (runs), <b>" +
          plural(results + failures, "combination") + "</b>: " + std::to_string(results) + " measured, <b>" +
          plural(failures, "failure") + "</b></p>\n";
  if (logs.empty()) return page("fmwork report", body + "<p class=\"note\">No log was read.</p>\n");
  body += "<nav><a href=\"#runs\">Runs</a><a href=\"#charts\">Charts</a><a href=\"#failures\">Failures</a>"
          "<a href=\"#details\">Per run</a></nav>\n";
  const std::vector<RunView> views = run_views(logs, paths);
  body += runs_section(views) + charts_section(views, logs) + failures_section(views);
  body += "<section id=\"details\"><h2>Per run: labels, META, results</h2>\n";
  for (const RunView& v : views) body += run_section(v);
  body += "</section>\n";
  return page("fmwork report: " + (paths.empty() ? std::string() : source_name(paths.front())), body);
}

}  // namespace fmwork
