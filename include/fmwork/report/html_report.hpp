// The HTML report of `process --format html` (docs/report.md): one self-contained page (inline CSS and SVG
// charts, no script, nothing fetched) over driver logs, and the page of `process --compare A B --format
// html`. Everything a log says is escaped (html_escape). No LibTorch here.
#pragma once

#include <string>
#include <vector>

#include "fmwork/log/log_records.hpp"

namespace fmwork {

// The report over `logs`, read from `paths` (named in the heading with the counts of logs, combinations
// and failures). Sections, each an element with its id:
// - "runs": a table of the logs, one row per log with its color, name (the run_id label, else its path),
//   its labels, the META values that differ between logs, its counts; then the META common to all;
// - "charts": per input size, latency (the RES median, ms) and throughput (RES, sequences/s) against the
//   batch size (render_svg_chart: log2 x), one series per log, error bars of +-1 stddev (the STAT line,
//   else computed from the REP lines: stat_of(); throughput's scaled by throughput / latency), a red cross
//   per FAIL line at its batch size, its tooltip the error;
// - "failures": a table of the FAIL lines (run, input, batch, error, line);
// - "run-N" per log (N from 1): its labels, every META field, and its summary table (summary_table()).
// No input gives a page that says so.
std::string report_html(const std::vector<ParsedLog>& logs, const std::vector<std::string>& paths);

// The comparison of B against A (compare_logs()): the paths read, the counts (pairs faster, slower and
// within noise; combinations on one side only), per input size a chart of B/A latency against the batch
// size (one series per run, a reference line at 1, error bars of the ratio's spread propagated from both
// STAT stddevs), the table of pairs (A and B latency, B/A latency and throughput, the noise flag), the
// combinations found on one side only, and the META values that differ between A and B.
std::string compare_html(const std::vector<ParsedLog>& a, const std::vector<ParsedLog>& b, const std::string& path_a,
                         const std::string& path_b);

}  // namespace fmwork
