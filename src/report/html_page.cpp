// The HTML pages' shared building blocks (see html_page.hpp).
#include "html_page.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>

#include "fmwork/log/log_schema.hpp"
#include "fmwork/report/formats.hpp"
#include "fmwork/report/html_text.hpp"
#include "fmwork/report/svg_chart.hpp"

namespace fmwork::report_page {
namespace {

constexpr const char* kStyle = R"css(
body{font-family:"DejaVu Sans",Verdana,Arial,sans-serif;font-size:14px;color:#222;margin:20px 28px;max-width:1400px}
h1{font-size:22px;margin:0 0 8px}
h2{font-size:18px;border-bottom:2px solid #ccc;padding-bottom:4px;margin:30px 0 10px}
h3{font-size:16px;margin:22px 0 6px}
h3 small.path{font-weight:normal;color:#777;font-size:12px;margin-left:8px;font-family:"DejaVu Sans Mono",monospace}
td.name small{color:#777;font-size:11px}
h4{font-size:14px;margin:12px 0 4px;color:#444}
nav{margin:8px 0 4px}nav a{margin-right:14px}
code,.mono,td.num{font-family:"DejaVu Sans Mono",monospace;font-size:12.5px}
div.wide{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;margin:6px 0 12px;font-size:13px}
th,td{border:1px solid #d8d8d8;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f2f2f2}
td.num,td.name{text-align:right;white-space:nowrap}
td.name{text-align:left}
td.mono{white-space:nowrap}
tr.fail td{background:#fdecea}
.error{color:#b3261e}
tr.faster td.verdict,tr.faster td.ratio{background:#e3f4e6}
tr.slower td.verdict,tr.slower td.ratio{background:#fbe3e1}
td.untrusted,span.untrusted{color:#b3261e;font-weight:bold}
td.untrusted{white-space:nowrap}
.swatch{display:inline-block;width:12px;height:12px;border-radius:2px;vertical-align:-1px;margin-right:6px}
.charts{display:flex;flex-wrap:wrap;gap:14px;margin:6px 0 4px}
svg.chart{max-width:100%;height:auto;border:1px solid #e2e2e2;background:#fff}
svg.legend-only{max-width:100%;height:auto;display:block;margin:2px 0 4px}
figure.slice{display:flex;flex-wrap:wrap;align-items:flex-start;gap:10px;margin:0 0 12px}
figure.slice svg.chart{width:460px}
table.numbers{margin:0;font-size:12px;max-width:380px}
table.numbers th{font-size:11.5px}
table.numbers td{padding:2px 6px}
table.numbers td.series{max-width:150px;font-size:11.5px}
table.numbers td small{color:#666;font-size:10.5px}
div.model{border-top:1px solid #ddd;margin-top:14px}
dl.kv{display:grid;grid-template-columns:repeat(auto-fill,minmax(300px,1fr));gap:1px 18px;margin:4px 0 8px;font-size:13px}
dl.kv div{display:flex;gap:8px;border-bottom:1px dotted #ddd;padding:1px 0}
dl.kv dt{font-weight:bold;color:#555;white-space:nowrap}
dl.kv dd{margin:0;word-break:break-all}
.note{color:#555;font-size:12.5px;max-width:1100px}
.counts b{font-size:15px}
)css";

}  // namespace

std::string esc(const std::string& s) { return html_escape(s); }

std::string page(const std::string& title, const std::string& body) {
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>" + esc(title) +
         "</title>\n<style>" + kStyle + "</style>\n</head>\n<body>\n" + body + "</body>\n</html>\n";
}

Cell text_cell(const std::string& s, const std::string& cls) { return {esc(s), cls}; }
Cell num_cell(const std::string& s) { return {esc(s), "num"}; }

std::string html_table(const std::string& cls, const std::vector<std::string>& header, const std::vector<TableRow>& rows) {
  // In a scrolling box: a wide table (long META values, many labels) scrolls instead of widening the page.
  std::string out = "<div class=\"wide\"><table class=\"" + cls + "\"><thead><tr>";
  for (const std::string& h : header) out += "<th>" + esc(h) + "</th>";
  out += "</tr></thead><tbody>\n";
  for (const TableRow& row : rows) {
    out += row.cls.empty() ? "<tr>" : "<tr class=\"" + row.cls + "\">";
    for (const Cell& c : row.cells) out += (c.cls.empty() ? "<td>" : "<td class=\"" + c.cls + "\">") + c.html + "</td>";
    out += "</tr>\n";
  }
  return out + "</tbody></table></div>\n";
}

std::string key_values(const std::string& cls, const KeyValues& items) {
  std::string out = "<dl class=\"kv " + cls + "\">";
  for (const auto& kv : items) out += "<div><dt>" + esc(kv.first) + "</dt><dd>" + esc(kv.second) + "</dd></div>";
  return out + "</dl>\n";
}

std::string swatch(size_t style) { return "<span class=\"swatch\" style=\"background:" + series_color(style) + "\"></span>"; }

std::string paths_line(const std::string& what, const std::vector<std::string>& paths) {
  std::string out = "<p class=\"read\">" + what;
  for (size_t i = 0; i < paths.size(); ++i) out += (i ? ", " : " ") + std::string("<code>") + esc(source_name(paths[i])) + "</code>";
  return out + "</p>\n";
}

Cell ratio_cell(double ratio, const std::string& mark) {
  std::string html = html_fixed(ratio, 3) + "&#215;";
  if (!mark.empty()) html += " <span class=\"untrusted\" title=\"" + esc(mark) + "\">!</span>";
  return {html, "num ratio"};
}

Cell mark_cell(const std::string& mark) { return text_cell(mark, mark.empty() ? "" : "untrusted"); }

std::string pair_verdict(const ComparedPair& p) {
  const std::optional<bool> noise = p.noise();
  if (!noise || !std::isfinite(p.time_ratio())) return "unknown";
  if (*noise) return "noise";
  return p.time_ratio() < 1 ? "faster" : "slower";
}

std::string cov_pair_text(const ComparedPair& p) {
  const auto one = [](const std::optional<double>& cov) { return cov ? html_fixed(*cov * 100, 1) + "%" : std::string("-"); };
  return one(p.a.cov) + " / " + one(p.b.cov);
}

std::string statistic_note(Statistic statistic) {
  if (statistic == Statistic::median) return "the RES median";
  const StatisticSpec& s = statistic_spec(statistic);
  return esc(std::string(s.heading) + ", " + s.help + " (--statistic " + s.name + "; repeats: the median of theirs)");
}

std::string spread_text(const std::string& verdict) {
  if (verdict == "noise") return "noise";
  if (verdict == "unknown") return "? (no STAT)";
  return "beyond noise";
}

size_t failure_count(const ParsedLog& log) {
  size_t n = log.failures.size();
  for (const CombinationRecord& r : log.results) n += check_failed(r) ? 1 : 0;
  return n;
}

KeyValues meta_of(const ParsedLog& log) {
  KeyValues out;
  for (const MetaLine& m : log.meta) out.insert(out.end(), m.fields.items.begin(), m.fields.items.end());
  return out;
}

std::vector<std::string> difference_names(const std::vector<const ParsedLog*>& logs) {
  std::vector<std::string> keys = significant_meta_keys();
  for (const ParsedLog* log : logs)
    for (const auto& label : log->labels)
      if (label.first != "run_id" && label.first != "repeat" &&
          std::find(keys.begin(), keys.end(), label.first) == keys.end())
        keys.push_back(label.first);
  std::vector<std::vector<std::string>> kept;
  std::vector<std::string> names;
  for (const std::string& key : keys) {
    std::vector<std::string> column;
    for (const ParsedLog* log : logs) {
      const std::string value = log_value(*log, key).value_or("-");
      column.push_back(key == compared_key::model ? model_short_name(value) : value);
    }
    const bool varies = std::adjacent_find(column.begin(), column.end(), std::not_equal_to<>()) != column.end();
    if (!varies || std::any_of(kept.begin(), kept.end(), [&](const auto& c) { return one_to_one(c, column); })) continue;
    kept.push_back(std::move(column)), names.push_back(key);
  }
  std::vector<std::string> out(logs.size());
  for (size_t i = 0; i < logs.size(); ++i)
    for (size_t k = 0; k < names.size(); ++k) out[i] += (out[i].empty() ? "" : ", ") + names[k] + "=" + kept[k][i];
  return out;
}

}  // namespace fmwork::report_page
