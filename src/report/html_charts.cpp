// The report's charts (see html_charts.hpp): per model a legend, then latency and tokens/s against batch
// and input size, each chart with the table of its numbers beside it. The numbers are the other formats'
// own: precise_latency_ms() for the point, latency_range() for its bar, tokens_per_s() for tokens/s.
#include "html_charts.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "fmwork/log/log_schema.hpp"
#include "fmwork/log/stats.hpp"
#include "fmwork/report/compare.hpp"
#include "fmwork/report/formats.hpp"
#include "fmwork/report/html_text.hpp"
#include "fmwork/report/svg_chart.hpp"
#include "html_page.hpp"

namespace fmwork::report_page {

namespace {
// Named apart: a unity batch shares anonymous namespaces with html_report.cpp and html_compare.cpp.
namespace charts_detail {

// The logs a series stands for: one log, or a campaign's repeats of one run (the same run in the same
// folder, logs labelled repeat=k), drawn as one series: their median, a bar from the lowest to the highest.
struct SeriesGroup {
  std::vector<const RunView*> views;
  std::string legend;
};

// The model of a log: its first RES's model name, else its --model_name ARG (a log of failures only).
std::string model_of(const ParsedLog& log) {
  if (!log.results.empty()) return log.results.front().res.model_name;
  for (const std::string& opt : log.opts)
    if (opt.rfind("--model_name ", 0) == 0) return opt.substr(13);
  return "-";
}

// Each series' legend: what differs between the model's series (difference_names), else the run's name;
// "(median of N repeats)" for repeats.
void set_legends(std::vector<SeriesGroup>& groups) {
  std::vector<const ParsedLog*> logs;
  for (const SeriesGroup& g : groups) logs.push_back(g.views[0]->log);
  const std::vector<std::string> names = difference_names(logs);
  std::map<std::string, int> seen;
  for (size_t i = 0; i < groups.size(); ++i) ++seen[groups[i].legend = names[i]];
  for (SeriesGroup& g : groups) {
    const RunView& v = *g.views[0];
    const std::string run = g.views.size() > 1 ? repeated_run(*v.log) : v.name;
    // Nothing differs, or two series alike (the same run read twice): the run's name tells them apart.
    if (g.legend.empty()) g.legend = run;
    else if (seen[g.legend] > 1) g.legend = run + ": " + g.legend;
    if (g.views.size() > 1) g.legend += " (median of " + std::to_string(g.views.size()) + " repeats)";
  }
}

std::vector<SeriesGroup> series_groups(const std::vector<const RunView*>& views) {
  std::vector<SeriesGroup> groups;
  std::map<std::string, size_t> index;
  for (const RunView* v : views) {
    const bool repeat = !label_of(*v->log, "repeat").empty();
    const std::string key = repeat ? repeat_key(*v->log) : "\n" + std::to_string(v->style);
    if (!index.count(key)) index[key] = groups.size(), groups.push_back({{}, ""});
    groups[index[key]].views.push_back(v);
  }
  set_legends(groups);
  return groups;
}

// One measured x of a series: the median latency and its bar's ends, in ms.
struct Measured {
  int64_t input = 0, batch = 0;
  double latency = 0, lo = 0, hi = 0;
  std::string what;  // the bar: "p10-p90", "min-max", "repeats", "" for none
  bool check_failed = false;
  std::string flag;    // the verdict's word when it is not ok ("" for ok or unknown): the point is ringed
  std::string reason;  // that verdict's reason, for the tooltip
};

// Which combinations a chart holds: those at one input size (x the batch) or one batch size (x the input).
struct Slice {
  bool by_batch = true;
  int64_t fixed = 0;
  bool holds(int64_t input, int64_t batch) const { return (by_batch ? input : batch) == fixed; }
  int64_t x(int64_t input, int64_t batch) const { return by_batch ? batch : input; }
};

Measured measured_one(const CombinationRecord& r) {
  Measured m{r.res.input, r.res.batch, precise_latency_ms(r), 0, 0, "", check_failed(r), "", ""};
  if (const std::optional<Verdict> v = verdict_of(r); v && v->word != VerdictWord::ok)
    m.flag = std::string(verdict_text(v->word)), m.reason = v->reason;
  if (const std::optional<LatencyRange> range = latency_range(r)) m.lo = range->lo_ms, m.hi = range->hi_ms, m.what = range->what;
  else m.lo = m.hi = m.latency;
  return m;
}

// A group's measurements in a slice, by x: one log's records, or the median of the repeats' with their range.
std::map<int64_t, Measured> measurements(const SeriesGroup& g, const Slice& slice) {
  std::map<int64_t, std::vector<Measured>> by_x;
  for (const RunView* v : g.views)
    for (const CombinationRecord& r : v->log->results)
      if (slice.holds(r.res.input, r.res.batch)) by_x[slice.x(r.res.input, r.res.batch)].push_back(measured_one(r));
  std::map<int64_t, Measured> out;
  for (auto& [x, all] : by_x) {
    if (g.views.size() < 2) {
      out[x] = all.back();  // a re-run in one log: the last, as the other formats take it
      continue;
    }
    std::vector<double> lat;
    bool failed = false;
    std::string flag, reason;  // a repeat not ok makes the median of the repeats suspect too
    for (const Measured& m : all) {
      lat.push_back(m.latency), failed = failed || m.check_failed;
      if (flag.empty() && !m.flag.empty()) flag = m.flag, reason = "a repeat: " + m.reason;
    }
    std::sort(lat.begin(), lat.end());
    out[x] = {all[0].input, all[0].batch, median(lat), lat.front(), lat.back(), "repeats", failed, flag, reason};
  }
  return out;
}

std::string tooltip(const std::string& legend, const Measured& m, double tokens) {
  std::string range;
  if (m.what == "repeats") range = ", repeats " + html_fixed(m.lo, 3) + " to " + html_fixed(m.hi, 3) + " ms";
  else if (!m.what.empty()) range = ", " + m.what + " " + html_fixed(m.lo, 3) + " to " + html_fixed(m.hi, 3) + " ms";
  return legend + "\ninput " + std::to_string(m.input) + ", batch " + std::to_string(m.batch) + "\nlatency " +
         html_fixed(m.latency, 3) + " ms" + range + "\ntokens/s " + html_fixed(tokens, 0) +
         (m.check_failed ? "\nCHECK FAIL: outputs differ from the saved ones" : "") +
         (m.flag.empty() ? "" : "\nverdict " + m.flag + ": " + m.reason);
}

// The latency and tokens/s charts of one slice of a model's series.
std::pair<LineChart, LineChart> slice_charts(const std::vector<SeriesGroup>& groups, const Slice& slice) {
  LineChart lat, tok;
  const std::string fixed = slice.by_batch ? "input " + std::to_string(slice.fixed) : "batch " + std::to_string(slice.fixed);
  const std::string against = slice.by_batch ? "batch" : "input size";
  lat.title = "Latency vs " + against + ", " + fixed;
  tok.title = "Tokens/s vs " + against + ", " + fixed;
  lat.x_label = tok.x_label = against + " (log2 scale)";
  lat.y_label = "latency (ms)";
  tok.y_label = "tokens/s";  // short: a longer label runs off a 230 px axis once ", log scale" is added
  lat.legend = tok.legend = false;  // one legend for the model, above its charts
  lat.width = tok.width = 460;  // two charts and their table in one row of the page
  lat.plot_height = tok.plot_height = 230;
  for (const SeriesGroup& g : groups) {
    const size_t style = g.views[0]->style;
    ChartSeries ls{g.legend, style, {}}, ts{g.legend, style, {}};
    for (const auto& [x, m] : measurements(g, slice)) {
      const double tokens = tokens_per_s(m.input, m.batch, m.latency);
      const double tok_lo = tokens_per_s(m.input, m.batch, m.hi), tok_hi = tokens_per_s(m.input, m.batch, m.lo);
      const std::string tip = tooltip(g.legend, m, tokens);
      const double fx = static_cast<double>(x);
      ls.points.push_back({fx, m.latency, m.latency - m.lo, m.hi - m.latency, tip, m.flag});
      ts.points.push_back({fx, tokens, tokens - tok_lo, tok_hi - tokens, tip, m.flag});
    }
    for (const RunView* v : g.views)
      for (const FailLine& f : v->log->failures) {
        const int64_t input = f.fields.get_int(fail_key::input).value_or(0),
                      batch = f.fields.get_int(fail_key::batch).value_or(0);
        if (!slice.holds(input, batch)) continue;
        const std::string* error = f.fields.find(fail_key::error);
        const ChartMark mark{static_cast<double>(slice.x(input, batch)),
                             v->name + "\ninput " + std::to_string(input) + ", batch " + std::to_string(batch) +
                                 ": FAIL\n" + (error ? *error : "")};
        lat.marks.push_back(mark), tok.marks.push_back(mark);
      }
    if (!ls.points.empty()) lat.series.push_back(std::move(ls)), tok.series.push_back(std::move(ts));
  }
  return {lat, tok};
}

void apply_scale(LineChart& chart, ChartScale scale) {
  chart.y_log = scale == ChartScale::log || (scale == ChartScale::automatic && spans_decade(chart));
  if (chart.y_log) chart.y_label += ", log scale";
}

// A number for the tables: about 3 significant digits, never an exponent.
std::string short_number(double v) {
  const double a = std::fabs(v);
  return html_fixed(v, a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3);
}

// A point's value and, under it, its bar's range.
std::string value_cell(const ChartPoint& p) {
  const bool bar = p.err_low > 0 || p.err_high > 0;
  return "<td class=\"num\">" + short_number(p.y) +
         (bar ? "<br><small>" + short_number(p.y - p.err_low) + "&#8211;" + short_number(p.y + p.err_high) + "</small>" : "") +
         "</td>";
}

// The numbers of a slice's two charts (the same series, the same points) as one table beside them: per
// series (its name spanning its rows) a row per x with the latency and the tokens/s, each with its range.
std::string slice_table(const LineChart& lat, const LineChart& tok, const std::string& x_name) {
  std::string out = "<table class=\"numbers\"><thead><tr><th>series</th><th>" + esc(x_name) +
                    "</th><th>latency ms</th><th>tokens/s</th></tr></thead><tbody>";
  for (size_t i = 0; i < lat.series.size() && i < tok.series.size(); ++i) {
    const ChartSeries &ls = lat.series[i], &ts = tok.series[i];
    std::vector<size_t> order(ls.points.size());
    for (size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return ls.points[a].x < ls.points[b].x; });
    for (size_t k = 0; k < order.size() && order[k] < ts.points.size(); ++k) {
      out += "<tr>";
      if (k == 0)
        out += "<td class=\"series\" rowspan=\"" + std::to_string(order.size()) + "\">" + swatch(ls.style) + esc(ls.name) + "</td>";
      out += "<td class=\"num\">" + html_fixed(ls.points[order[k]].x, 0) + "</td>" + value_cell(ls.points[order[k]]) +
             value_cell(ts.points[order[k]]) + "</tr>";
    }
  }
  return out + "</tbody></table>";
}

// A slice: its latency and tokens/s charts side by side, the table of their numbers beside them.
std::string slice_figure(const LineChart& lat, const LineChart& tok, const std::string& x_name) {
  return "<figure class=\"slice\">" + render_svg_chart(lat) + "\n" + render_svg_chart(tok) + "\n" +
         slice_table(lat, tok, x_name) + "</figure>\n";
}

// The sizes a model's logs have on one axis (inputs or batches), FAIL lines included.
std::vector<int64_t> sizes_of(const std::vector<const RunView*>& views, bool inputs) {
  std::set<int64_t> sizes;
  for (const RunView* v : views) {
    for (const CombinationRecord& r : v->log->results) sizes.insert(inputs ? r.res.input : r.res.batch);
    for (const FailLine& f : v->log->failures) sizes.insert(f.fields.get_int(inputs ? fail_key::input : fail_key::batch).value_or(0));
  }
  return {sizes.begin(), sizes.end()};
}

std::string model_group(const std::string& model, const std::string& shown, size_t index,
                        const std::vector<const RunView*>& views, ChartScale scale) {
  const std::vector<SeriesGroup> groups = series_groups(views);
  LineChart legend;
  legend.width = 960;
  bool failures = false;
  for (const SeriesGroup& g : groups) legend.series.push_back({g.legend, g.views[0]->style, {}});
  for (const RunView* v : views) {
    failures = failures || !v->log->failures.empty();
    for (const CombinationRecord& r : v->log->results)
      if (const std::optional<Verdict> verdict = verdict_of(r); verdict && verdict->word != VerdictWord::ok)
        legend.flag_entry = true;
  }
  if (failures) legend.marks.push_back({});
  std::string out = "<div class=\"model\" id=\"model-" + std::to_string(index) + "\"><h3>Model <code title=\"" +
                    esc(model) + "\">" + esc(shown) + "</code>" +
                    (shown == model ? "" : " <small class=\"path\">" + esc(model) + "</small>") + "</h3>\n" +
                    render_svg_legend(legend) + "\n";
  for (const bool by_batch : {true, false}) {
    out += std::string("<h4>Against ") + (by_batch ? "batch size, per input size" : "input size, per batch size") +
           "</h4>\n";
    for (const int64_t fixed : sizes_of(views, by_batch)) {
      auto [lat, tok] = slice_charts(groups, Slice{by_batch, fixed});
      apply_scale(lat, scale), apply_scale(tok, scale);
      const std::string x_name = by_batch ? "batch" : "input";
      out += slice_figure(lat, tok, x_name);
    }
  }
  return out + "</div>\n";
}

}  // namespace charts_detail
}  // namespace

std::string repeat_key(const ParsedLog& log) {
  return std::filesystem::path(log.source).parent_path().string() + "\n" + repeated_run(log);
}

std::string charts_section(const std::vector<RunView>& views, ChartScale scale) {
  using namespace charts_detail;  // here, not at namespace scope: a unity batch would see it
  std::string out =
      "<section id=\"charts\"><h2>Charts</h2>\n<p class=\"note\">One group per model. Points: the median latency of "
      "the kept reps, and tokens/s = batch &#215; input / latency. Bars: p10 to p90 of the kept reps (min to max from "
      "the STAT line where the log has no REP lines); a campaign's repeats (\"repeat\": N) are one series, the median "
      "of the repeats with a bar from the lowest to the highest. A red &#215; on the x axis is a failed combination. "
      "Axes: log2 x; y from 0, or on a log scale where a chart's values span more than 10&#215; "
      "(process --chart-scale). A ringed point rests on a verdict that is not ok (noisy, unstable, contended, too few "
      "reps): hover it for the reason; the run's summary below says what to do. The table beside each pair of charts "
      "holds their numbers: the value, under it the bar's range."
      "</p>\n";
  std::vector<std::string> models;
  std::map<std::string, std::vector<const RunView*>> by_model;
  for (const RunView& v : views) {
    const std::string model = model_of(*v.log);
    if (!by_model.count(model)) models.push_back(model);
    by_model[model].push_back(&v);
  }
  bool any = false;
  for (const RunView& v : views) any = any || !v.log->results.empty() || !v.log->failures.empty();
  if (!any) return out + "<p class=\"note\">No combination to chart: the logs have no RES or FAIL line.</p>\n</section>\n";
  // Each model by its folder's name (model_short_name), or by its whole path where two would read the same.
  std::map<std::string, int> short_count;
  for (const std::string& m : models) ++short_count[model_short_name(m)];
  for (size_t i = 0; i < models.size(); ++i) {
    const std::string shown = short_count[model_short_name(models[i])] > 1 ? models[i] : model_short_name(models[i]);
    out += model_group(models[i], shown, i + 1, by_model[models[i]], scale);
  }
  return out + "</section>\n";
}

}  // namespace fmwork::report_page
