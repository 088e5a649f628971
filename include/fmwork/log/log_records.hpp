// Driver logs read into records: each RES line with the SETUP, META, STAT, MEM and CHECK lines that belong
// to it, and the FAIL lines. formats writes the records out; process is the command. No LibTorch here.
#pragma once

#include <istream>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fmwork/log/log_format.hpp"

namespace fmwork {

// One combination's result: its FMWORK RES line with what the log says around it (a "run" is a driver
// invocation of a campaign, runner/experiment.hpp's PlannedRun).
struct CombinationRecord {
  ResLine res;
  size_t line = 0;                      // line number of the RES line (1-based)
  std::string timestamp;                // the RES t_first exactly as written (upstream's "timestamp")
  // Every ARG text of the file. Upstream's process appends to one list that all its records share and
  // prints them after reading the whole file, so each record shows the file's complete list; for a log
  // of one driver run (ARG lines first) that is also "the ARG lines seen so far".
  std::vector<std::string> opts;
  std::optional<double> setup_seconds;  // the last FMWORK SETUP before the RES
  std::optional<std::string> precision; // dtype= of the last FMWORK META before the RES that has one
  std::optional<StatLine> stat;         // the STAT line of the same (input, batch), see docs/log-lines.md
  std::optional<MemLine> mem;           // the MEM line of the same (input, batch)
  std::optional<CheckLine> check;       // the CHECK line of the same (input, batch) (--check_outputs)
  std::vector<ProfileLine> profile;     // the PROFILE lines of the same (input, batch), by rank (--profile)
  std::vector<Nanos> rep_durations;     // t1 - t0 of the REP lines of this combination, in order
};

struct ParsedLog {
  std::string source;                // the path, or "-" for stdin
  std::vector<CombinationRecord> results;  // one a RES line, in order
  std::vector<FailLine> failures;
  std::vector<size_t> failure_lines; // line number of each failures[i]
  std::vector<MetaLine> meta;
  std::vector<std::string> opts;     // every ARG text of the file
  size_t fmwork_lines = 0;           // FMWORK lines read (0: not a driver log, or one that printed nothing)
  // What the reader left out, one line each for stderr: "<source>:<line>: the last line is cut short ...".
  std::vector<std::string> notes;
  // Set by `process` for a log of a campaign (docs/campaigns.md), not by the parser: run_id, run and the
  // run's matrix values from the plan.json beside the logs. Reports add them as columns.
  std::vector<std::pair<std::string, std::string>> labels;
};

// The value of a log's label `key` (ParsedLog::labels), "" when it has none.
std::string label_of(const ParsedLog& log, const std::string& key);

// The largest log file read: a log is held whole in memory while it is read into records.
constexpr size_t kMaxLogFileBytes = size_t{1} << 30;

// Reads a whole log (parse_log_text: one already in memory). Lines end at "\n", "\r\n" or a lone "\r" (Python's universal newlines, as upstream
// reads). A malformed FMWORK line throws a runtime Error "<source>:<line>: <what>" (source "<stdin>"
// for "-"), except the last line when the text does not end with a newline: that is a log cut short (a
// full disk), and the line is left out with a ParsedLog::notes entry, keeping every line before it.
ParsedLog parse_log(std::istream& in, const std::string& source);
ParsedLog parse_log_text(std::string_view text, const std::string& source);

// The name a log is shown under in messages and the summary: its path, or "<stdin>" for "-".
std::string source_name(const std::string& source);

// The engine name of a log's records: "fmwork-cpp/embed" when the log has a META line with driver=
// (written by our driver), else upstream's "fmwork/embed/tf".
std::string engine_name(const ParsedLog& log);

}  // namespace fmwork
