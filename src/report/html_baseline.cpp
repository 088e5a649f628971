// The speedup page of `process --baseline KEY=VALUE --format html` (baseline_html, declared in
// html_report.hpp): baseline_table()'s pairs as tables, one per other value of the key, in the compare
// page's colors. Numbers are baseline.hpp's (speedup()), so the page and the text table agree.
#include "fmwork/report/html_report.hpp"

#include <vector>

#include "fmwork/log/stats.hpp"
#include "fmwork/report/html_text.hpp"
#include "html_page.hpp"

namespace fmwork {
namespace {

using namespace report_page;

std::string code_list(const std::vector<std::string>& keys) {
  std::string out;
  for (const std::string& k : keys) out += (out.empty() ? "" : ", ") + std::string("<code>") + esc(k) + "</code>";
  return out;
}

std::string group_section(const BaselineTable& table, const BaselineGroup& g) {
  const std::string name = table.spec.key + "=" + g.value;
  std::vector<double> ratios;
  std::vector<TableRow> rows;
  size_t marked = 0;
  for (const ComparedPair& p : g.comparison.pairs) {
    const std::string v = pair_verdict(p), mark = verdict_mark(p, "baseline", "this");
    ratios.push_back(speedup(p));
    marked += mark.empty() ? 0 : 1;
    // The verdicts and the CoVs first: a wide table's last columns are off-screen.
    const bool tokens = table.measure == Measure::real_tokens;
    rows.push_back({v, {mark_cell(mark), num_cell(cov_pair_text(p)), text_cell(p.key.run, "name"),
                        num_cell(std::to_string(p.key.input)), num_cell(std::to_string(p.key.batch)),
                        num_cell(tokens ? html_fixed(p.a.tokens_per_s, 1) : html_fixed(p.a.latency_ms, 4)),
                        num_cell(tokens ? html_fixed(p.b.tokens_per_s, 1) : html_fixed(p.b.latency_ms, 4)),
                        ratio_cell(speedup(p), mark), text_cell(spread_text(v), "verdict")}});
  }
  std::string out = "<section class=\"group\"><h2>" + esc(name);
  if (!ratios.empty()) out += ": median speedup " + html_fixed(median(ratios), 3) + "&#215;";
  out += "</h2>\n";
  if (rows.empty()) out += "<p class=\"note\">No combination pairs with one of the baseline.</p>\n";
  else
    out += html_table("pairs", {"verdicts", "CoV baseline / this", "pair", "input", "batch",
                                table.measure == Measure::real_tokens ? "baseline real tokens/s" : "baseline ms",
                                esc(name) + (table.measure == Measure::real_tokens ? " real tokens/s" : " ms"),
                                "speedup", "spread"},
                      rows);
  if (marked > 0)
    out += "<p class=\"note\"><span class=\"untrusted\">!</span> " + plural(marked, "speedup") + " of this table " +
           (marked == 1 ? "rests" : "rest") + " on a run whose verdict is not ok (the verdicts column): not a speedup to quote; the "
           "run's summary says why and what to do.</p>\n";
  if (!g.comparison.only_b.empty() || !g.comparison.only_a.empty())
    out += "<p class=\"note\">" + plural(g.comparison.only_b.size(), "combination") + " without a baseline to pair with, " +
           std::to_string(g.comparison.only_a.size()) + " of the baseline without a partner.</p>\n";
  return out + "</section>\n";
}

}  // namespace

std::string baseline_html(const BaselineTable& table, const std::vector<std::string>& paths) {
  const std::string base = table.spec.key + "=" + table.spec.value;
  std::string body = "<h1>fmwork speedups over " + esc(base) + "</h1>\n" + paths_line("Read:", paths);
  const std::string latency = table.statistic == Statistic::median ? "the unrounded medians" : statistic_note(table.statistic);
  if (table.measure == Measure::real_tokens)
    body += "<p class=\"note\">Speedup: the other's real tokens per second / the baseline's, per input and batch "
            "(above 1: faster than the baseline): runs of mixed lengths (--input_lengths) are compared on the work "
            "done, their kept reps' real tokens over their summed time, since each rep's latency is its own batch's. "
            "Spread: noise when the two rates differ by less than their combined spread at equal work.</p>\n";
  else
    body += "<p class=\"note\">Speedup: the baseline's latency / the other's, per input and batch (above 1: faster than "
            "the baseline), from " + latency + "; a campaign's repeats are their median. Spread: noise when the "
            "two latencies differ by less than their combined standard deviation.</p>\n";
  body += "<p>Pairs agree on: " + (table.paired_on.empty() ? std::string("input and batch only") : code_list(table.paired_on)) +
          "; differ in: " + code_list(table.differ) + ".</p>\n";
  for (const BaselineGroup& g : table.groups) body += group_section(table, g);
  if (table.unstated > 0)
    body += "<p class=\"note\">" + plural(table.unstated, "log") + " without " + esc(table.spec.key) + ": left out.</p>\n";
  return page("fmwork speedups over " + base, body);
}

}  // namespace fmwork
