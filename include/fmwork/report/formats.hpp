// The records of driver logs (log_records.hpp) written out: upstream's JSON, a CSV table, a summary for people.
// The columns of our extension lines come from their field tables (log_fields.hpp). No LibTorch here.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fmwork/log/log_records.hpp"

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
// RES's, then the CSV columns of STAT, MEM, FAIL and CHECK as their field tables list them. Statistics
// are the STAT line's as written, else computed from the REP lines as the driver computes them.
std::string to_csv(const std::vector<ParsedLog>& logs, const std::optional<std::string>& metadata_id);

// The statistics of one RES: its STAT line as written, else computed from its REP lines as the driver
// computes them (upstream's logs have no STAT line); nullopt with fewer than 2 REP lines.
std::optional<StatLine> stat_of(const CombinationRecord& run);

// One log's table of the summary, as data: per RES and FAIL line in file order, the cells to_summary()
// writes (model, class, input, batch, latency_ms, throughput, STAT's summary columns, MEM's where the
// log has a MEM line, status: "ok", the CHECK result or "FAIL: <error>"), "-" where a value is absent.
struct SummaryTable {
  std::vector<std::string> header;
  std::vector<bool> right;  // per column: right-aligned (numbers)
  std::vector<std::vector<std::string>> rows;
};
SummaryTable summary_table(const ParsedLog& log);

// A human-readable table per log, failures included: RES's columns, STAT's summary columns, MEM's where
// the log has a MEM line, and a status (ok, the CHECK result, or FAIL: the error).
std::string to_summary(const std::vector<ParsedLog>& logs);

}  // namespace fmwork
