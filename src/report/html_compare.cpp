// The comparison page of `process --compare A B --format html` (compare_html, declared in html_report.hpp
// beside the report): the counts, B/A latency charts, the pairs, one-side combinations and the META that
// differs. Apart from the report's sections (html_report.cpp): it reads a Comparison, not the logs' runs;
// both pages are made of html_page.hpp's blocks.
#include "fmwork/report/html_report.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "fmwork/report/compare.hpp"
#include "fmwork/report/html_text.hpp"
#include "fmwork/report/svg_chart.hpp"
#include "html_page.hpp"

namespace fmwork {
namespace {

using namespace report_page;

// The ratio's spread, first order: r * sqrt((sd_A / A)^2 + (sd_B / B)^2), of the measure's figures; 0 without
// both spreads.
double ratio_error(const ComparedPair& p) {
  const bool tokens = p.measure == Measure::real_tokens;
  const std::optional<double> sa = tokens ? p.a.tokens_stddev : p.a.stddev_ms, sb = tokens ? p.b.tokens_stddev : p.b.stddev_ms;
  const double a = tokens ? p.a.tokens_per_s : p.a.latency_ms, b = tokens ? p.b.tokens_per_s : p.b.latency_ms;
  if (!sa || !sb || !(a > 0) || !(b > 0)) return 0;
  const double ra = *sa / a, rb = *sb / b;
  return p.time_ratio() * std::sqrt(ra * ra + rb * rb);
}

std::string pair_tooltip(const ComparedPair& p) {
  return p.key.run + "\ninput " + std::to_string(p.key.input) + ", batch " + std::to_string(p.key.batch) + "\nA " +
         html_fixed(p.a.latency_ms, 3) + " ms, B " + html_fixed(p.b.latency_ms, 3) + " ms\nB/A latency " +
         html_fixed(p.latency_ratio(), 3) + ", throughput " + html_fixed(p.throughput_ratio(), 3) +
         (p.measure == Measure::real_tokens
              ? "\nA " + html_fixed(p.a.tokens_per_s, 1) + ", B " + html_fixed(p.b.tokens_per_s, 1) +
                    " real tokens/s\nB/A time per real token " + html_fixed(p.time_ratio(), 3)
              : std::string()) +
         "\n" + spread_text(pair_verdict(p));
}

// Per run of the comparison, how its series and rows are named: what differs between the runs
// (difference_names: dtype, threads, batching, platform, the matrix columns) rather than its id
// ("minilm.4"); the id where nothing differs, and "id: what" where two runs would read the same.
std::map<std::string, std::string> run_legends(const std::vector<ParsedLog>& a, const std::vector<ParsedLog>& b,
                                               const std::map<std::string, size_t>& styles) {
  std::map<std::string, const ParsedLog*> first;  // a run's first log, A's before B's
  for (const auto* side : {&a, &b})
    for (const ParsedLog& log : *side)
      for (const CombinationRecord& r : log.results) first.emplace(compare_run(log, r), &log);
  std::vector<std::string> runs;
  std::vector<const ParsedLog*> logs;
  for (const auto& entry : styles) {
    const auto it = first.find(entry.first);
    if (it == first.end()) continue;
    runs.push_back(entry.first), logs.push_back(it->second);
  }
  const std::vector<std::string> names = difference_names(logs);
  std::map<std::string, int> seen;
  for (const std::string& n : names) ++seen[n];
  std::map<std::string, std::string> out;
  for (const auto& entry : styles) out[entry.first] = entry.first;
  for (size_t i = 0; i < runs.size(); ++i)
    if (!names[i].empty()) out[runs[i]] = seen[names[i]] > 1 ? runs[i] + ": " + names[i] : names[i];
  return out;
}

LineChart ratio_chart(const Comparison& c, const std::map<std::string, size_t>& styles,
                      const std::map<std::string, std::string>& legends, int64_t input) {
  LineChart chart;
  const std::string what = c.measure == Measure::real_tokens ? "B/A time per real token" : "B/A latency";
  chart.title = what + " vs batch, input " + std::to_string(input);
  chart.x_label = "batch size (log2 scale)";
  chart.y_label = what + " (log scale; below 1: B is faster)";
  chart.reference_y = 1;
  chart.reference_label = "B = A";
  chart.y_log = true;  // ratios: 0.5x and 2x as far from 1
  std::map<size_t, ChartSeries> by_style;
  for (const ComparedPair& p : c.pairs) {
    if (p.key.input != input) continue;
    const size_t style = styles.at(p.key.run);
    ChartSeries& s = by_style[style];
    s.name = legends.at(p.key.run), s.style = style;
    const double e = ratio_error(p);
    s.points.push_back({static_cast<double>(p.key.batch), p.time_ratio(), e, e, pair_tooltip(p), verdict_mark(p)});
  }
  for (auto& entry : by_style) chart.series.push_back(std::move(entry.second));
  return chart;
}

std::string pairs_table(const Comparison& c, const std::map<std::string, size_t>& styles,
                        const std::map<std::string, std::string>& legends) {
  std::vector<TableRow> rows;
  size_t marked = 0;
  for (const ComparedPair& p : c.pairs) {
    const std::string v = pair_verdict(p), mark = verdict_mark(p), &legend = legends.at(p.key.run);
    marked += mark.empty() ? 0 : 1;
    const std::string run = swatch(styles.at(p.key.run)) + esc(legend) +
                            (legend == p.key.run ? "" : " <small>" + esc(p.key.run) + "</small>");
    // The verdicts and the CoVs first: a wide table's last columns are off-screen.
    const bool tokens = c.measure == Measure::real_tokens;
    rows.push_back({v, {mark_cell(mark), num_cell(cov_pair_text(p)), {run, "name"}, num_cell(std::to_string(p.key.input)),
                        num_cell(std::to_string(p.key.batch)),
                        num_cell(tokens ? html_fixed(p.a.tokens_per_s, 1) : html_fixed(p.a.latency_ms, 4)),
                        num_cell(tokens ? html_fixed(p.b.tokens_per_s, 1) : html_fixed(p.b.latency_ms, 4)),
                        ratio_cell(p.time_ratio(), mark),
                        ratio_cell(tokens ? p.latency_ratio() : p.throughput_ratio(), mark),
                        text_cell(spread_text(v), "verdict")}});
  }
  const std::string latency = statistic_spec(c.statistic).heading;
  const std::vector<std::string> header =
      c.measure == Measure::real_tokens
          ? std::vector<std::string>{"verdicts", "CoV A / B", "run", "input", "batch", "A real tokens/s",
                                     "B real tokens/s", "B/A time per real token", "B/A latency", "spread"}
          : std::vector<std::string>{"verdicts", "CoV A / B", "run", "input", "batch", "A " + latency, "B " + latency,
                                     "B/A latency", "B/A throughput", "spread"};
  std::string out = html_table("pairs", header, rows);
  if (marked > 0)
    out += "<p class=\"note\"><span class=\"untrusted\">!</span> " + plural(marked, "ratio") + " of this table " +
           (marked == 1 ? "rests" : "rest") + " on a run whose verdict is not ok (the verdicts column): the run's summary says why and "
           "what to do.</p>\n";
  return out;
}

std::string one_side_table(const Comparison& c) {
  std::vector<TableRow> rows;
  for (const auto& side : {std::make_pair("A only", &c.only_a), std::make_pair("B only", &c.only_b)})
    for (const CompareKey& k : *side.second)
      rows.push_back({"", {text_cell(side.first), text_cell(k.run), num_cell(std::to_string(k.input)),
                           num_cell(std::to_string(k.batch))}});
  if (rows.empty()) return "<p class=\"note\">Every combination is in both.</p>\n";
  return html_table("one-side", {"found in", "run", "input", "batch"}, rows);
}

// Per META key, the distinct values of a side's logs, joined: "2.13.0" or "1, 2".
std::map<std::string, std::string> meta_values(const std::vector<ParsedLog>& logs, std::vector<std::string>& keys) {
  std::map<std::string, std::set<std::string>> values;
  for (const ParsedLog& log : logs)
    for (const auto& kv : meta_of(log)) {
      if (std::find(keys.begin(), keys.end(), kv.first) == keys.end()) keys.push_back(kv.first);
      values[kv.first].insert(kv.second);
    }
  std::map<std::string, std::string> out;
  for (const auto& entry : values) {
    std::string joined;
    for (const std::string& v : entry.second) joined += (joined.empty() ? "" : ", ") + v;
    out[entry.first] = joined;
  }
  return out;
}

std::string meta_difference(const std::vector<ParsedLog>& a, const std::vector<ParsedLog>& b) {
  std::vector<std::string> keys;
  std::map<std::string, std::string> va = meta_values(a, keys), vb = meta_values(b, keys);
  std::vector<TableRow> rows;
  for (const std::string& key : keys)
    if (va[key] != vb[key]) rows.push_back({"", {text_cell(key), text_cell(va[key]), text_cell(vb[key])}});
  std::string out = "<section id=\"meta\"><h2>META that differs between A and B</h2>\n";
  if (rows.empty()) return out + "<p class=\"note\">None: the META values of A and B are the same.</p>\n</section>\n";
  return out + html_table("meta-diff", {"META", "A", "B"}, rows) + "</section>\n";
}

std::string side_line(const std::string& side, const std::string& path, const std::vector<ParsedLog>& logs) {
  size_t results = 0;
  for (const ParsedLog& log : logs) results += log.results.size();
  return "<p class=\"read\">" + side + ": <code>" + esc(source_name(path)) + "</code>, " + plural(logs.size(), "log") +
         ", " + plural(results, "result") + "</p>\n";
}

std::string compare_counts(const Comparison& c) {
  std::map<std::string, size_t> n;
  for (const ComparedPair& p : c.pairs) ++n[pair_verdict(p)];
  return "<p class=\"counts\"><b>" + plural(c.pairs.size(), "combination") + "</b> in both: <b>" +
         std::to_string(n["faster"]) + " faster</b> in B and <b>" + std::to_string(n["slower"]) +
         " slower</b> beyond the runs' spread, " + std::to_string(n["noise"]) + " within noise, " +
         std::to_string(n["unknown"]) + " without a spread (no STAT line); " + std::to_string(c.only_a.size()) +
         " in A only, " + std::to_string(c.only_b.size()) + " in B only.</p>\n";
}

}  // namespace

std::string compare_html(const std::vector<ParsedLog>& a, const std::vector<ParsedLog>& b, const std::string& path_a,
                         const std::string& path_b, Statistic statistic) {
  CompareOptions options;
  options.statistic = statistic;
  const Comparison c = compare_logs(a, b, options);
  std::map<std::string, size_t> styles;
  std::set<int64_t> inputs;
  for (const ComparedPair& p : c.pairs) styles.emplace(p.key.run, styles.size()), inputs.insert(p.key.input);
  const std::map<std::string, std::string> legends = run_legends(a, b, styles);
  std::string body = "<h1>fmwork comparison: B against A</h1>\n" + side_line("A", path_a, a) + side_line("B", path_b, b) +
                     compare_counts(c);
  body += "<p class=\"note\">Combinations match by run (the run_id label, else model, class and precision), input "
          "and batch. Latency is " + statistic_note(c.statistic) + "; <i>noise</i>: |B &#8722; A| is within the combined spread "
          "&#8730;(stddev<sub>A</sub>&#178; + stddev<sub>B</sub>&#178;) of their STAT lines. Error bars: that "
          "spread carried over to the ratio; a ringed point rests on a run whose verdict is not ok (the verdicts "
          "column). Each run is named by what differs between the runs, its id beside it in the table.</p>\n";
  size_t repeats = 1;
  for (const ComparedPair& p : c.pairs) repeats = std::max({repeats, p.a.repeats, p.b.repeats});
  if (repeats > 1)
    body += "<p class=\"note\">Repeats (up to " + std::to_string(repeats) + " a side) count as one: latency is the "
            "median of the repeats, and the spread is the stddev between them rather than the STAT lines'.</p>\n";
  if (c.measure == Measure::real_tokens)
    body += "<p class=\"note\">Runs of mixed lengths (--input_lengths) are compared on the work done: each side's "
            "real tokens per second over its kept reps (a rep's latency is its own batch's). B/A time per real token "
            "is A's rate over B's; the spread is each rate's CoV at equal work.</p>\n";
  for (const auto& [model_a, model_b] : c.renamed_models)
    body += "<p class=\"note\">Models paired by their folder's name: A <code>" + esc(model_a) + "</code>, B <code>" +
            esc(model_b) + "</code>.</p>\n";
  body += std::string("<section id=\"charts\"><h2>") +
          (c.measure == Measure::real_tokens ? "B/A time per real token" : "B/A latency") + " vs batch size</h2>\n";
  if (inputs.empty()) body += "<p class=\"note\">No combination is in both A and B.</p>\n";
  body += "<div class=\"charts\">";
  for (int64_t input : inputs) body += render_svg_chart(ratio_chart(c, styles, legends, input)) + "\n";
  body += "</div></section>\n<section id=\"pairs\"><h2>Per combination</h2>\n" + pairs_table(c, styles, legends) +
          "</section>\n<section id=\"one-side\"><h2>Found on one side only</h2>\n" + one_side_table(c) + "</section>\n";
  return page("fmwork comparison: " + source_name(path_b) + " against " + source_name(path_a), body + meta_difference(a, b));
}

}  // namespace fmwork
