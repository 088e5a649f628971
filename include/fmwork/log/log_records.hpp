// Driver logs read into records: each RES line with the SETUP, META, STAT, MEM and CHECK lines that belong
// to it, and the FAIL lines. formats writes the records out; process is the command. No LibTorch here.
// A log is read as a stream, line by line: what is kept is the records, never the text, so a log of any
// size costs memory in proportion to its combinations and REP lines (both bounded, see LogLimits).
#pragma once

#include <cstddef>
#include <istream>
#include <memory>
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
  // No ARG list here: upstream's process appends to one list that all its records share and prints them
  // after reading the whole file, so each record's "opts" is the file's ParsedLog::opts (one copy a log,
  // not one a record: a log of many combinations would hold its ARG lines that many times).
  std::optional<double> setup_seconds;  // the last FMWORK SETUP before the RES
  std::optional<std::string> precision; // dtype= of the last FMWORK META before the RES that has one
  std::optional<StatLine> stat;         // the STAT line of the same (input, batch), see docs/log-lines.md
  std::optional<MemLine> mem;           // the MEM line of the same (input, batch)
  std::optional<CheckLine> check;       // the CHECK line of the same (input, batch) (--check_outputs)
  std::vector<ProfileLine> profile;     // the PROFILE lines of the same (input, batch), by rank (--profile)
  std::vector<Nanos> rep_durations;     // t1 - t0 of the REP lines of this combination, in order
  // verdicts.hpp's implausible_reason() against the log's earlier combinations of the same model, class and
  // precision (set when the log is read to its end); "" when nothing says the timing is wrong.
  std::string implausible;
};

struct ParsedLog {
  std::string source;                // the path, or "-" for stdin
  std::vector<CombinationRecord> results;  // one a RES line, in order
  std::vector<FailLine> failures;
  std::vector<size_t> failure_lines; // line number of each failures[i]
  std::vector<MetaLine> meta;
  std::vector<ServeLine> serve;        // `driver serve`'s load levels, in order (docs/serving.md)
  std::vector<CapacityLine> capacity;  // its capacity searches' answers
  std::vector<InterruptLine> interrupts;  // a sweep stopped by a signal (one a run: a log may hold several)
  std::vector<std::string> opts;     // every ARG text of the file: the "opts" of each of its records
  size_t fmwork_lines = 0;           // FMWORK lines read (0: not a driver log, or one that printed nothing)
  // What the reader left out, one line each for stderr: "<source>:<line>: the last line is cut short ...".
  std::vector<std::string> notes;
  // Set by `process` for a log of a campaign (docs/campaigns.md), not by the parser: run_id, run and the
  // run's matrix values from the plan.json beside the logs. Reports add them as columns.
  std::vector<std::pair<std::string, std::string>> labels;
};

// The value of a log's label `key` (ParsedLog::labels), "" when it has none.
std::string label_of(const ParsedLog& log, const std::string& key);

// The longest line kept while a log is read: an FMWORK line of the driver is at most a few KiB (an ARG of a
// long option, a FAIL with its error). A longer FMWORK line is refused; a line that does not start with
// "FMWORK " is skipped unread, whatever its length (another program's output in the log), up to
// kMaxLogGapBytes.
constexpr size_t kMaxLogLineBytes = size_t{1} << 20;

// The most bytes read without an FMWORK line: from the start of the log, or between two of its FMWORK lines.
// A driver writes an FMWORK line per rep; other programs' output between them (warnings, a stack trace) is
// KBs. Past it, the input is refused as no driver log: /dev/zero, /dev/urandom or a stream with no end would
// otherwise be read forever. Before the first FMWORK line, a NUL byte refuses the input at once: a driver
// log is text, and binary data is no log (NUL bytes after FMWORK lines, the zero-filled tail a crash can
// leave, are skipped within this bound).
constexpr size_t kMaxLogGapBytes = size_t{64} << 20;

// What the records of one log may hold in memory: the parsed lines kept (RES, FAIL, STAT, MEM, CHECK,
// PROFILE, META, ARG: their structures and text) plus 8 bytes a REP duration kept. A 1 GB log of 16
// million REP lines keeps about 140 MiB; a log past the bound is refused rather than let to exhaust memory.
constexpr size_t kMaxLogKeptBytes = size_t{512} << 20;

// The bounds of one log's reading; tests lower them, `process` keeps the defaults.
struct LogLimits {
  size_t line_bytes = kMaxLogLineBytes;  // an FMWORK line's length, without its line end
  size_t gap_bytes = kMaxLogGapBytes;    // bytes read in a row without an FMWORK line
  size_t kept_bytes = kMaxLogKeptBytes;  // the records' memory, counted as kMaxLogKeptBytes says
};

// A log read from pieces of any size, in order, as they arrive (a pipe, a file read in chunks): the same
// records as parse_log_text of the pieces joined, whatever the split ("\r" at the end of one piece and
// "\n" at the start of the next are one line end). Holds one line at most, never the text.
// feed() throws what parse_log_text throws, at the line that causes it, and also a runtime Error
// "<source>:<line>: the line is longer than <line_bytes> ..." for an FMWORK line past limits.line_bytes and
// "<source>:<line>: the log's records take more than <kept_bytes> ..." when what is kept passes
// limits.kept_bytes, "<source>:<line>: no FMWORK line in the <gap_bytes> read since line N ..." past
// limits.gap_bytes and "<source>:<line>: binary data (a NUL byte) before any FMWORK line ..." (see
// kMaxLogGapBytes). After a throw the parser is spent: feed no more, do not call finish().
class LogStreamParser {
 public:
  explicit LogStreamParser(const std::string& source, LogLimits limits = {});
  ~LogStreamParser();
  LogStreamParser(const LogStreamParser&) = delete;
  LogStreamParser& operator=(const LogStreamParser&) = delete;

  void feed(std::string_view bytes);
  // The log: a last line without a line end is left out as parse_log_text leaves it out (with a note).
  // Call once; the parser is spent after it.
  ParsedLog finish();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

// Reads a log (parse_log_text: one already in memory; parse_log: a stream, read in pieces of 64 KiB).
// Lines end at "\n", "\r\n" or a lone "\r" (Python's universal newlines, as upstream reads). A malformed
// FMWORK line throws a runtime Error "<source>:<line>: <what>" (source "<stdin>" for "-"). A last line
// without its line end is no record, whether it parses or not: that is a log cut short (a full disk, a
// killed writer), possibly mid-value, and the line is left out (with a ParsedLog::notes entry when it is an
// FMWORK line), keeping every line before it. The bounds of LogLimits hold too
// (LogStreamParser). A stream that fails to read is a runtime Error "<source>: cannot read".
ParsedLog parse_log(std::istream& in, const std::string& source, LogLimits limits = {});
ParsedLog parse_log_text(std::string_view text, const std::string& source, LogLimits limits = {});

// Reads the log file at `path` as parse_log does, in pieces: no bound on the file's size, only LogLimits'.
// Errors as parse_log's ("<path>:<line>: ..."), and read_file's for a file that cannot be opened or read,
// named `name` ("--path x.log: cannot open (No such file or directory)"; `path` when empty).
ParsedLog parse_log_file(const std::string& path, const std::string& name = "", LogLimits limits = {});

// The name a log is shown under in messages and the summary: its path, or "<stdin>" for "-".
std::string source_name(const std::string& source);
// "interrupted (SIGINT) at combination 4 of 8 (input 128, batch 4), 3 complete": an INTERRUPT line in words.
std::string interrupt_text(const InterruptLine& line);

// The engine name of a log's records: "fmwork-cpp/embed" when the log has a META line with driver=
// (written by our driver), else upstream's "fmwork/embed/tf".
std::string engine_name(const ParsedLog& log);

}  // namespace fmwork
