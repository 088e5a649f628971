// What `process` reads and writes: the logs its paths name (every *.log under a folder), each read and
// checked, a stray one under a folder skipped with a line; a campaign log's labels from its plan.json; the
// files an --out may not be; and the output, written in pieces to standard output or to --out's file. No
// LibTorch here.
#pragma once

#include <cstddef>
#include <functional>
#include <istream>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "fmwork/base/regular_file.hpp"
#include "fmwork/log/log_records.hpp"
#include "fmwork/runner/experiment.hpp"

namespace fmwork {

// A log to read: a path the user named ("-": standard input), or one found under a folder the user named
// (`found`): a file there that is no driver log is skipped with a line rather than failing the tree.
struct LogFile {
  std::string path;
  bool found = false;
};

// The logs a --path or --compare argument names: "-", the file itself, or every *.log under a folder (in
// path order, each `found`). A runtime Error, naming `option` and `path`, for a folder that cannot be read or
// holds no *.log file.
std::vector<LogFile> log_files(const std::string& path, const std::string& option = "--path");

// Refuses (usage Error) an --out that is any file process reads, the same file through any path or link:
// one of `inputs` ("-": standard input), or the plan.json of a campaign whose logs it labels.
void refuse_output_among_inputs(const std::string& out, const std::vector<std::vector<LogFile>>& inputs);

// Each campaign plan.json read once: the plan, or nullopt for one that is not a campaign's.
using Plans = std::map<std::string, std::optional<Plan>>;

// What reading the logs needs: standard input, where notes go, the plans read so far, the log of standard
// input once read (it cannot be read twice), and the logs found under folders that were skipped.
struct LogSource {
  std::istream& in;
  std::ostream& err;
  Plans plans;
  std::optional<ParsedLog> stdin_log;
  std::vector<std::string> skipped;
  size_t found = 0;                // logs found under folders, skipped or not
  std::string option = "--path";  // the option that named the logs (--path or --compare), for the errors
};

// One log read, with its campaign labels (run_id, run and its matrix values, from the plan.json beside a
// campaign's logs/ folder); its notes (a cut last line) go to source.err unless `again` (read before, its
// notes told). Standard input is read once and kept. A runtime Error for a file that cannot be read, a
// malformed line (log_records' Errors), or a file with no FMWORK line at all.
ParsedLog read_log(const std::string& f, LogSource& source, bool again = false);

// Reads each log of `files` and hands it to `take` (nullptr: read to check it, then dropped). A log named
// by the user that cannot be read is the Error; one found under a folder is skipped with one line on
// source.err ("skipped: <why>"), counted in source.skipped and left out of `files`. Running out of memory
// is a runtime Error naming the file, never a skip.
void read_checked(std::vector<LogFile>& files, LogSource& source, const std::function<void(ParsedLog)>& take);

// Every log of `inputs` read (read_checked) and kept, by argument; joined() makes them one list.
std::vector<std::vector<ParsedLog>> read_all(std::vector<std::vector<LogFile>>& inputs, LogSource& source);
std::vector<ParsedLog> joined(std::vector<std::vector<ParsedLog>> sets);

// The campaign label keys of the logs of `inputs`, in first-seen order: the CSV's last columns.
std::vector<std::string> label_columns_of(const std::vector<std::vector<LogFile>>& inputs, LogSource& source);

// Throws a runtime Error when an argument (`option` `args[i]`) has no log left once the skipped ones are
// left out: a folder of no driver log.
void require_logs(const std::string& option, const std::vector<std::string>& args,
                  const std::vector<std::vector<LogFile>>& inputs, const LogSource& source);

// The runtime Error's text when logs found under folders were skipped ("2 of the 40 *.log files found ...
// were skipped (each named above); the output holds the others"), nullopt when none was.
std::optional<std::string> skipped_failure(const LogSource& source);

// Where the output goes: `out` (standard output), or the --out file, opened once the logs have been read
// (a bad log leaves no file) and written piece by piece (OutputFile). The file's Errors are told as --out
// ones ("--out x.json: cannot write (...)"; a usage Error stays one).
class Output {
 public:
  Output(std::ostream& out, const std::optional<std::string>& out_file);

  // Opens the --out file, if any: after every input has been checked.
  void open();
  // False once standard output has failed (its reader gone: `| head`): the caller stops there, and
  // process's main() tells how it ended.
  bool write(std::string_view text);
  // The --out file takes its place (a regular file replaced whole); nothing for standard output.
  void commit();

 private:
  void as_out_error(const std::function<void()>& f);

  std::ostream& out_;
  const std::optional<std::string>& out_file_;  // outlives the Output (the options')
  std::optional<OutputFile> file_;
};

}  // namespace fmwork
