// The HTML report (report_html): its sections, runs, charts, failures and one per run, built as text from
// the records, charts from svg_chart. The comparison page is in html_compare.cpp, the blocks both pages
// share in html_page.hpp. Every string from a log goes through html_escape (esc) on its way into the page;
// numbers through html_fixed.
#include "fmwork/report/html_report.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <utility>

#include "fmwork/log/log_schema.hpp"
#include "fmwork/report/compare.hpp"  // repeated_run
#include "fmwork/report/formats.hpp"
#include "fmwork/report/serve_report.hpp"
#include "fmwork/report/svg_chart.hpp"
#include "html_charts.hpp"
#include "html_page.hpp"

namespace fmwork {

namespace {

using namespace report_page;

// ---- runs: one per log ----

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

std::vector<RunView> run_views(const std::vector<ParsedLog>& logs, const std::vector<std::string>& paths) {
  std::vector<RunView> views;
  std::map<std::string, int> seen;
  std::map<std::string, size_t> repeat_style;  // a campaign's repeats of one run share a color: one series
  for (size_t i = 0; i < logs.size(); ++i) {
    // With several folders read, a log's path keeps its folder's name in front: two campaigns' logs/m.1.log.
    const auto [folder, path] = folder_and_path(logs[i].source, paths);
    const std::string file = paths.size() > 1 && !folder.empty() ? folder + "/" + path : path;
    RunView v{&logs[i], i, label_of(logs[i], "run_id"), "run-" + std::to_string(i + 1), file};
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
    row.cells.push_back(num_cell(std::to_string(failure_count(*v.log))));
    row.cells.push_back(text_cell(v.file, "mono"));
    rows.push_back(std::move(row));
  }
  std::string out = "<section id=\"runs\"><h2>Runs</h2>\n" + html_table("runs", header, rows);
  if (!common.empty()) out += "<h4>META common to all runs</h4>\n" + key_values("meta common", common);
  return out + "</section>\n";
}

// ---- failures and the runs' own sections ----

// A FAIL line's or a failed check's row: run, input, batch, error, log line.
TableRow failure_row(const RunView& v, int64_t input, int64_t batch, const std::string& error, const std::string& line) {
  return {"fail", {{swatch(v.style) + "<a href=\"#" + v.anchor + "\">" + esc(v.name) + "</a>", "name"},
                   num_cell(std::to_string(input)), num_cell(std::to_string(batch)), text_cell(error, "error"),
                   text_cell(v.file + ":" + line, "mono")}};
}

std::string failures_section(const std::vector<RunView>& views) {
  std::vector<TableRow> rows;
  for (const RunView& v : views) {
    const ParsedLog& log = *v.log;
    for (size_t i = 0; i < log.failures.size(); ++i) {
      const Fields& f = log.failures[i].fields;
      const std::string* error = f.find(fail_key::error);
      const std::string line = i < log.failure_lines.size() ? std::to_string(log.failure_lines[i]) : "?";
      rows.push_back(failure_row(v, f.get_int(fail_key::input).value_or(0), f.get_int(fail_key::batch).value_or(0),
                                 error ? *error : "", line));
    }
    // A failed output check measured, but what it measured is wrong: a failure as a FAIL line is.
    for (const CombinationRecord& r : log.results)
      if (check_failed(r)) rows.push_back(failure_row(v, r.res.input, r.res.batch, check_status(r), std::to_string(r.line)));
  }
  std::string out = "<section id=\"failures\"><h2>Failures</h2>\n";
  if (rows.empty()) return out + "<p class=\"note\">No FAIL line and no failed check: every combination ran.</p>\n</section>\n";
  return out + html_table("failures", {"run", "input", "batch", "error", "log line"}, rows) + "</section>\n";
}

std::string results_table(const ParsedLog& log) {
  const SummaryTable table = summary_table(log);
  if (table.rows.empty()) return "<p class=\"note\">No RES or FAIL line in this log.</p>\n";
  std::vector<TableRow> rows;
  for (const auto& cells : table.rows) {
    const bool failed = !cells.empty() && (cells.back().rfind("FAIL", 0) == 0 || cells.back().rfind("CHECK FAIL", 0) == 0);
    TableRow row{failed ? "fail" : "", {}};
    for (size_t c = 0; c < cells.size(); ++c) {
      if (table.header[c] == "model" && model_short_name(cells[c]) != cells[c]) {  // the folder's name; the path on hover
        row.cells.push_back({"<span title=\"" + esc(cells[c]) + "\">" + esc(model_short_name(cells[c])) + "</span>", ""});
        continue;
      }
      row.cells.push_back(text_cell(cells[c], c < table.right.size() && table.right[c] ? "num" : ""));
    }
    rows.push_back(std::move(row));
  }
  return html_table("results", table.header, rows);
}

std::string run_section(const RunView& v) {
  std::string out = "<section class=\"run\" id=\"" + v.anchor + "\"><h3>" + swatch(v.style) + esc(v.name) + "</h3>\n" +
                    "<p class=\"note\">log <code>" + esc(source_name(v.log->source)) + "</code>: " +
                    plural(v.log->results.size(), "result") + ", " + plural(failure_count(*v.log), "failure") + "</p>\n";
  if (!v.log->labels.empty()) out += "<h4>Labels</h4>\n" + key_values("labels", v.log->labels);
  const KeyValues meta = meta_of(*v.log);
  out += "<h4>META</h4>\n";
  out += meta.empty() ? "<p class=\"note\">No META line (a log of upstream's driver).</p>\n" : key_values("meta", meta);
  return out + "<h4>Results</h4>\n" + results_table(*v.log) + "</section>\n";
}

}  // namespace

std::string report_html(const std::vector<ParsedLog>& logs, const std::vector<std::string>& paths, ChartScale scale) {
  size_t results = 0, failures = 0, fail_lines = 0;
  for (const ParsedLog& log : logs)
    results += log.results.size(), failures += failure_count(log), fail_lines += log.failures.size();
  std::string body = "<h1>fmwork report</h1>\n" + paths_line("Read:", paths);
  body += "<p class=\"counts\"><b>" + plural(logs.size(), "log") + "</b> (runs), <b>" +
          plural(results + fail_lines, "combination") + "</b>: " + std::to_string(results) + " measured, <b>" +
          plural(failures, "failure") + "</b>" +
          (failures > fail_lines ? " (" + plural(failures - fail_lines, "failed check") + ")" : "") + "</p>\n";
  if (logs.empty()) return page("fmwork report", body + "<p class=\"note\">No log was read.</p>\n");
  const std::string serving = serve_html_section(logs);
  body += std::string("<nav><a href=\"#runs\">Runs</a><a href=\"#charts\">Charts</a>") +
          (serving.empty() ? "" : "<a href=\"#serving\">Serving</a>") +
          "<a href=\"#failures\">Failures</a><a href=\"#details\">Per run</a></nav>\n";
  const std::vector<RunView> views = run_views(logs, paths);
  body += runs_section(views) + charts_section(views, scale) + serving + failures_section(views);
  body += "<section id=\"details\"><h2>Per run: labels, META, results</h2>\n";
  for (const RunView& v : views) body += run_section(v);
  body += "</section>\n";
  return page("fmwork report: " + (paths.empty() ? std::string() : source_name(paths.front())), body);
}

}  // namespace fmwork
