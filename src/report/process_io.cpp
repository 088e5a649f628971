// What process reads and writes (see process_io.hpp).
#include "fmwork/report/process_io.hpp"

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <iterator>
#include <new>
#include <utility>

#include <fmt/format.h>

#include "fmwork/base/error.hpp"
#include "fmwork/base/json_input.hpp"
#include "fmwork/cli/sub_options.hpp"
#include "fmwork/log/log_format.hpp"

namespace fmwork {

namespace fs = std::filesystem;

namespace {

// The plan.json of the campaign whose logs/ folder holds `log`, or nullopt: only a campaign tree
// (docs/campaigns.md: DIR/plan.json beside DIR/logs/) carries labels; a plan.json anywhere else is not
// looked at.
std::optional<std::string> plan_file_of(const std::string& log) {
  const fs::path path(log);
  if (log == "-" || path.parent_path().filename() != "logs") return std::nullopt;
  const std::string plan_file = (path.parent_path().parent_path() / "plan.json").string();
  // Anything there is looked at: a FIFO, a folder or a dangling link named plan.json was passed over
  // without the note a plan.json that is not a plan gets (read_json_file refuses it without opening it).
  std::error_code ec;
  if (fs::symlink_status(plan_file, ec).type() == fs::file_type::not_found) return std::nullopt;
  return plan_file;
}

// The plan of the campaign whose logs/ folder holds `log`, nullopt when there is none. One beside a logs/
// folder that is not a plan is passed over with a note, never an Error.
const Plan* campaign_plan(const std::string& log, Plans& plans, std::ostream& err) {
  const std::optional<std::string> plan_file = plan_file_of(log);
  if (!plan_file) return nullptr;
  if (!plans.count(*plan_file)) {
    try {
      plans[*plan_file] = plan_from_json(read_json_file(*plan_file, kMaxPlanJsonBytes), *plan_file);
    } catch (const Error& e) {
      plans[*plan_file] = std::nullopt;
      err << "note: " << e.what() << "; not a campaign's plan, so the logs beside it have no labels\n";
    }
  }
  return plans[*plan_file] ? &*plans[*plan_file] : nullptr;
}

// The labels of a campaign's log: run_id, run and the matrix values of its run in the campaign's plan.
std::vector<std::pair<std::string, std::string>> campaign_labels(const std::string& log, Plans& plans,
                                                                 std::ostream& err) {
  const Plan* plan = campaign_plan(log, plans, err);
  if (!plan) return {};
  const std::string name = fs::path(log).filename().string();
  for (const PlannedRun& run : plan->runs) {
    if (run.id + ".log" != name) continue;
    std::vector<std::pair<std::string, std::string>> labels = {{"run_id", run.id}, {"run", run.run}};
    labels.insert(labels.end(), run.matrix.begin(), run.matrix.end());
    return labels;
  }
  return {};
}

}  // namespace

std::vector<LogFile> log_files(const std::string& path, const std::string& option) {
  std::error_code ec;
  if (path == "-" || !fs::is_directory(path, ec)) return {{path, false}};
  std::vector<LogFile> files;
  for (fs::recursive_directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".log" && it->is_regular_file(ec)) files.push_back({it->path().string(), true});
  if (ec) throw runtime_error(option + " " + excerpt(path, 200) + ": cannot read the folder (" + ec.message() + ")");
  if (files.empty()) throw runtime_error(option + " " + excerpt(path, 200) + ": no *.log file under this folder");
  std::sort(files.begin(), files.end(), [](const LogFile& x, const LogFile& y) { return x.path < y.path; });
  return files;
}

// Writing an input would replace it with its own report.
void refuse_output_among_inputs(const std::string& out, const std::vector<std::vector<LogFile>>& inputs) {
  const std::optional<FileId> target = file_id(out);
  if (!target) return;  // a new file cannot be an input
  for (const auto& files : inputs)
    for (const LogFile& f : files) {
      if ((f.path == "-" ? file_id_of_descriptor(0) : file_id(f.path)) == target)
        throw usage_error("--out " + out + " is the log " + source_name(f.path) + " that process reads; name another file");
      if (const std::optional<std::string> plan = plan_file_of(f.path); plan && file_id(*plan) == target)
        throw usage_error("--out " + out + " is the campaign plan " + *plan + " that process reads for the labels of " +
                          f.path + "; name another file");
    }
}

// One log read, with its campaign labels; its notes (a cut last line) go to stderr. A file with no
// FMWORK line at all is a runtime Error.
// `again`: the log has been read before (written log by log), and its notes have been told.
ParsedLog read_log(const std::string& f, LogSource& source, bool again) {
  if (f == "-" && source.stdin_log) return *source.stdin_log;
  ParsedLog log = f == "-" ? parse_log(source.in, "-") : parse_log_file(f, source.option + " " + excerpt(f, 200));
  if (log.fmwork_lines == 0) throw runtime_error(source_name(f) + ": no FMWORK line in it; give a log the driver wrote");
  // A log of an older driver (or upstream's) may hold a secret in an ARG line: no output repeats it.
  for (std::string& opt : log.opts) opt = arg_text_without_secret(opt);
  if (!again)
    for (const std::string& note : log.notes) source.err << "note: " << escape_controls(note) << "\n";
  // A run that died during setup (or is still loading) has FMWORK lines but no result: its output was an
  // empty list or table with exit 0 and not a word of why.
  // (A log of driver serve has none by design: its levels are SERVE lines.)
  if (!again)
    for (const InterruptLine& stop : log.interrupts)
      source.err << "note: " << escape_controls(source_name(f)) << ": the sweep was " << interrupt_text(stop)
                 << "; the combinations after it were not run\n";
  if (!again && log.results.empty() && log.failures.empty() && log.serve.empty() && log.capacity.empty() &&
      log.interrupts.empty())
    source.err << "note: " << escape_controls(source_name(f))
               << ": no RES or FAIL line: the run ended before its first combination (its stderr says why) or is "
                  "still running; nothing of it is in the output\n";
  log.notes.clear();
  if (f != "-") log.labels = campaign_labels(f, source.plans, source.err);
  if (f == "-") source.stdin_log = log;
  return log;
}

// A log found under a folder is skipped, not an Error, so that a stray *.log does not fail a whole tree.
void read_checked(std::vector<LogFile>& files, LogSource& source, const std::function<void(ParsedLog)>& take) {
  std::vector<LogFile> kept;
  for (const LogFile& f : files) {
    try {
      ParsedLog log = read_log(f.path, source);
      if (take) take(std::move(log));
    } catch (const std::bad_alloc&) {  // never skipped: the next log would run out too
      throw runtime_error(source_name(f.path) + ": out of memory while reading it (ulimit -v?); give fewer logs at once");
    } catch (const Error& e) {
      if (!f.found || e.kind() != ErrorKind::runtime) throw;
      source.err << "skipped: " << e.what() << "\n";
      source.skipped.push_back(f.path);
      continue;
    }
    kept.push_back(f);
  }
  for (const LogFile& f : files) source.found += f.found ? 1 : 0;
  files = std::move(kept);
}

// Every log of `inputs` read and kept: what compare, html and --baseline need at once.
std::vector<std::vector<ParsedLog>> read_all(std::vector<std::vector<LogFile>>& inputs, LogSource& source) {
  std::vector<std::vector<ParsedLog>> logs;
  for (auto& files : inputs) {
    logs.emplace_back();
    read_checked(files, source, [&](ParsedLog log) { logs.back().push_back(std::move(log)); });
  }
  return logs;
}

// The logs of all the arguments, one list (--path FILE FILE ...).
std::vector<ParsedLog> joined(std::vector<std::vector<ParsedLog>> sets) {
  std::vector<ParsedLog> logs;
  for (auto& set : sets) logs.insert(logs.end(), std::make_move_iterator(set.begin()), std::make_move_iterator(set.end()));
  return logs;
}

std::vector<std::string> label_columns_of(const std::vector<std::vector<LogFile>>& inputs, LogSource& source) {
  std::vector<std::string> columns;
  for (const auto& files : inputs)
    for (const LogFile& f : files)
      for (const auto& label : f.path == "-" ? std::vector<std::pair<std::string, std::string>>()
                                             : campaign_labels(f.path, source.plans, source.err))
        if (std::find(columns.begin(), columns.end(), label.first) == columns.end()) columns.push_back(label.first);
  return columns;
}

void require_logs(const std::string& option, const std::vector<std::string>& args,
                  const std::vector<std::vector<LogFile>>& inputs, const LogSource& source) {
  for (size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].empty())
      throw runtime_error(fmt::format("{} {}: no driver log under this folder ({} *.log file{} skipped, named above)",
                                      option, args[i], source.skipped.size(), source.skipped.size() == 1 ? "" : "s"));
}

std::optional<std::string> skipped_failure(const LogSource& source) {
  if (source.skipped.empty()) return std::nullopt;
  return fmt::format("{} of the {} *.log files found under the folders given {} skipped (each named above); the "
                     "output holds the others",
                     source.skipped.size(), source.found, source.skipped.size() == 1 ? "was" : "were");
}

Output::Output(std::ostream& out, const std::optional<std::string>& out_file) : out_(out), out_file_(out_file) {}

void Output::open() {
  if (out_file_) as_out_error([&] { file_.emplace(*out_file_); });
}

bool Output::write(std::string_view text) {
  if (file_) {
    as_out_error([&] { file_->write(text); });
    return true;
  }
  errno = 0;
  out_.write(text.data(), static_cast<std::streamsize>(text.size()));
  note_write_error(out_);  // a full disk: the reason, while errno still holds it (flush_or_throw says it)
  return static_cast<bool>(out_);
}

void Output::commit() {
  if (file_) as_out_error([&] { file_->commit(); });
}

void Output::as_out_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::usage) throw usage_error("--out " + std::string(e.what()));
    // The advice is for a file to be made or replaced; a FIFO or a device says what went wrong by itself
    // (/dev/full: "No space left on device").
    std::error_code ec;
    const bool file = !fs::exists(*out_file_, ec) || fs::is_regular_file(*out_file_, ec);
    throw runtime_error("--out " + std::string(e.what()) +
                        (file ? "; name a file in a folder that exists and that you may write to" : ""));
  }
}

}  // namespace fmwork
