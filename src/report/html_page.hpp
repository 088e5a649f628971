// The building blocks both HTML pages share (html_report.cpp, the report; html_compare.cpp, the
// comparison): the page shell with its inline style, tables, key=value grids, color swatches. Apart so that
// the two pages look alike without either holding the other. Every string goes through html_escape.
// Private to src/report/.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "fmwork/base/text_format.hpp"
#include "fmwork/log/log_records.hpp"
#include "fmwork/report/compare.hpp"

namespace fmwork::report_page {

using KeyValues = std::vector<std::pair<std::string, std::string>>;

// html_escape(s).
std::string esc(const std::string& s);

// The whole document: doctype, <head> with the title and the inline style, `body` (HTML) in <body>.
std::string page(const std::string& title, const std::string& body);

// A table cell: its HTML (escaped already) and its class ("num" for numbers).
struct Cell {
  std::string html;  // escaped already
  std::string cls;   // "num" for numbers
};

// A text cell (escaped) with an optional class; a number cell (class "num").
Cell text_cell(const std::string& s, const std::string& cls = "");
Cell num_cell(const std::string& s);

// A table row: its class ("" for none) and its cells.
struct TableRow {
  std::string cls;
  std::vector<Cell> cells;
};

// A table of class `cls` in a scrolling box; the header's cells escaped.
std::string html_table(const std::string& cls, const std::vector<std::string>& header, const std::vector<TableRow>& rows);

// key=value pairs as a grid of <div><dt>key</dt><dd>value</dd></div>, of class "kv `cls`".
std::string key_values(const std::string& cls, const KeyValues& items);

// The color square of series style `style` (svg_chart's series_color).
std::string swatch(size_t style);

// "<what> <code>path</code>, ..." as a paragraph of class "read".
std::string paths_line(const std::string& what, const std::vector<std::string>& paths);

// A ratio's cell (3 decimals and a times sign, class "num ratio"), with a red "!" whose title is `mark` where
// the ratio rests on a verdict that is not ok (verdict_mark()); the verdicts column's cell of `mark`.
Cell ratio_cell(double ratio, const std::string& mark);
Cell mark_cell(const std::string& mark);

// A pair's verdict, also its table row's class: "noise", "faster", "slower" (B against A, beyond the
// spread) or "unknown" (no STAT on a side, or a ratio that is not finite).
std::string pair_verdict(const ComparedPair& p);

// The CoV of a pair's two sides, "1.2% / 3.4%" ("-" for a side whose log cannot tell): the column beside the
// verdicts in the comparison and speedup tables.
std::string cov_pair_text(const ComparedPair& p);

// What the pages' latencies are, for their notes: "the RES median" or "min_ms, the fastest kept rep: ...
// (--statistic min)".
std::string statistic_note(Statistic statistic);

// The spread column's text of a verdict: "noise", "? (no STAT)", "beyond noise".
std::string spread_text(const std::string& verdict);

// A log's failures: its FAIL lines and its results whose output check failed (check_failed()).
size_t failure_count(const ParsedLog& log);

// Every META field of a log, in the order written (a log may have several META lines).
KeyValues meta_of(const ParsedLog& log);

// Names for `logs` (one a log, in order) that say what differs between them, for legends in place of run ids
// ("minilm.4"): "dtype=bfloat16, threads=2". The keys are --compare's significant ones (META's short names
// first: dtype rather than model:torch_dtype for the same split; model by model_short_name) and then the
// logs' campaign labels (not run_id or repeat); a key is named when its values differ between the logs and
// do not go one to one with a key named before it. "" for every log when nothing differs.
std::vector<std::string> difference_names(const std::vector<const ParsedLog*>& logs);

}  // namespace fmwork::report_page
