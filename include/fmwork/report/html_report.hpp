// The HTML report of `process --format html` (docs/report.md): one self-contained page (inline CSS and SVG
// charts, no script, nothing fetched) over driver logs, and the page of `process --compare A B --format
// html`. Everything a log says is escaped (html_escape). No LibTorch here.
#pragma once

#include <string>
#include <vector>

#include "fmwork/log/log_records.hpp"
#include "fmwork/report/baseline.hpp"
#include "fmwork/report/svg_chart.hpp"  // ChartScale

namespace fmwork {

// The report over `logs`, read from `paths` (named in the heading with the counts of logs, combinations
// and failures: FAIL lines and failed CHECK lines). Sections, each an element with its id:
// - "runs": a table of the logs, one row per log with its color, name (the run_id label, else its path),
//   its labels, the META values that differ between logs, its counts; then the META common to all;
// - "charts": one group per model (RES's model name; id "model-N"), its series' legend once (only the keys
//   whose values differ between its series: labels, then log_schema.hpp's compared_keys()), then
//   latency (ms) and tokens/s against the batch size per input size, and against the input size per batch
//   size (render_svg_chart: log2 x), one series per log (a campaign's repeats of one run: one series, their
//   median, the bar from the lowest to the highest), each point the median latency (precise_latency_ms())
//   with a bar over latency_range() (p10-p90 of the kept reps, else STAT's min-max: never below 0), a red
//   cross per FAIL line; the y axis as `scale` says; beside each pair a table of their numbers (per series
//   and x the latency and the tokens/s, each with its bar's range);
// - "failures": a table of the FAIL lines and failed CHECK lines (run, input, batch, error, line);
// - "run-N" per log (N from 1): its labels, every META field, and its summary table (summary_table()).
// No input gives a page that says so.
std::string report_html(const std::vector<ParsedLog>& logs, const std::vector<std::string>& paths,
                        ChartScale scale = ChartScale::automatic);

// The comparison of B against A (compare_logs()): the paths read, the counts (pairs faster, slower and
// within noise; combinations on one side only), per input size a chart of B/A latency against the batch
// size (one series per run, a reference line at 1, error bars of the ratio's spread propagated from both
// STAT stddevs), the table of pairs (the verdicts and CoVs first, A and B latency, B/A latency and throughput,
// the noise flag), the combinations found on one side only, and the META values that differ between A and B.
// `statistic`: each side's latency (process --statistic), named in the table's headings.
std::string compare_html(const std::vector<ParsedLog>& a, const std::vector<ParsedLog>& b, const std::string& path_a,
                         const std::string& path_b, Statistic statistic = Statistic::median);

// The speedup table of `process --path TREE --baseline KEY=VALUE --format html` (baseline_table()): the
// paths read, the baseline and what a speedup is, the keys pairs agree and differ on, then per other value
// a heading with its median speedup and a table of its pairs (pair, input, batch, baseline and own latency,
// speedup, spread; the row's class "faster", "slower", "noise" or "unknown" as the compare page's), and
// what had no partner.
std::string baseline_html(const BaselineTable& table, const std::vector<std::string>& paths);

}  // namespace fmwork
