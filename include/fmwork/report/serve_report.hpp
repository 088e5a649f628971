// `driver serve`'s lines in `process`'s outputs: the SERVE levels and CAPACITY answers as a summary table, CSV
// rows, JSON objects and the HTML report's serving section with its latency-against-load chart. Columns come
// from the lines' field tables (log_fields.hpp). No LibTorch here.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fmwork/log/log_records.hpp"

namespace fmwork {

// A log of `driver serve`: SERVE or CAPACITY lines and no RES line. `process --format csv` and `json` write such
// logs' lines (when every log read is one) instead of upstream's records, which they have none of.
bool is_serve_log(const ParsedLog& log);

// For an option that reads only the sweep's RES records (it `does` that, "pairs the sweep's results"), given how
// many of the `logs` of `where` (the paths as given) are driver serve's: a usage Error when all are, saying
// where their numbers are; one note on `err` when some are (the caller leaves them out); nothing when none.
void refuse_or_note_serve_logs(const std::string& option, const std::string& does, const std::string& where,
                               size_t serve, size_t logs, std::ostream& err);

// --compare and --baseline pair the sweep's RES records, which logs of driver serve have none of. When every
// log of `logs` (those of `where`, the paths as given) is one: a usage Error saying where their numbers are;
// when some are: they are taken out of `logs`, one note on `err` saying how many.
void leave_out_serve_logs(const std::string& option, const std::string& where, std::vector<ParsedLog>& logs,
                          std::ostream& err);

// For a log with both RES and SERVE or CAPACITY lines written by an output that holds only the RES ones (`option`:
// --format csv, --upstream): one note on `err` saying how many of its serve lines are left out and `why`;
// nothing for a log without both kinds.
void note_serve_lines_left_out(const ParsedLog& log, const std::string& option, const std::string& why,
                               std::ostream& err);

// The summary: the levels' table (SERVE's summary columns) and one line per CAPACITY; "" without either line.
std::string serve_summary(const ParsedLog& log);

// CSV: one row per SERVE and CAPACITY line, in log order: source, line (SERVE or CAPACITY), then SERVE's CSV
// columns and CAPACITY's that SERVE has not, each cell the field as written ("" where the line has none),
// then `labels` (a campaign's run_id, run and matrix columns: ParsedLog::labels), "" where the log has none;
// a label named as a field (batching, users) headed matrix.<name>.
std::string serve_csv_header(const std::vector<std::string>& labels = {});
std::string serve_csv_rows(const ParsedLog& log, const std::vector<std::string>& labels = {});

// JSON: one object per SERVE and CAPACITY line, in log order: {"source", "line", "labels" (a campaign's run:
// ParsedLog::labels, only when it has some), then its fields as written, integers and numbers as JSON numbers}.
nlohmann::ordered_json serve_json(const ParsedLog& log);

// The capacities of several searches in one table (a campaign of serve runs: models x devices x batching):
// a row per CAPACITY line, its run_id (else the log's path), the logs' matrix columns, the
// bound, result, capacity, achieved rate and cost per million. "" with fewer than two CAPACITY lines.
std::string serve_capacity_table(const std::vector<ParsedLog>& logs);

// The HTML report's serving section (id "serving"): the latency-against-load chart (p50 and p99 of each log's
// levels against their offered rate, the latency bound as a dashed line; y on a log scale where the values span
// more than 10x), serve_capacity_table's table, the levels' table and the capacity lines. "" when no log has
// a SERVE line.
std::string serve_html_section(const std::vector<ParsedLog>& logs);

}  // namespace fmwork
