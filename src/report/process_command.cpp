// The `process` command: its options, reading the files, and the format asked for.
#include "fmwork/report/process_command.hpp"

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <map>
#include <utility>

#include <CLI/CLI.hpp>

#include "fmwork/report/compare.hpp"
#include "fmwork/base/error.hpp"
#include "fmwork/runner/experiment.hpp"
#include "fmwork/base/json_input.hpp"
#include "fmwork/log/log_records.hpp"
#include "fmwork/report/html_report.hpp"
#include "fmwork/report/formats.hpp"
#include "fmwork/base/python_text.hpp"
#include "fmwork/base/regular_file.hpp"

namespace fmwork {

namespace {

std::string read_path(const std::string& path) { return read_file(path, kMaxLogFileBytes, "--path " + path); }

// The command line of `process`.
struct ProcessOptions {
  std::vector<std::string> paths;
  std::optional<std::string> metadata_id;
  std::string format = "json";
  bool upstream_only = false;
  std::vector<std::string> compare;  // --compare A B
  bool format_given = false;
  std::optional<std::string> out_file;  // --out
};

// The options, or nullopt after --help has been written to `out`.
std::optional<ProcessOptions> parse_options(int argc, const char* const* argv, std::ostream& out) {
  CLI::App app{
      "Turns fmwork driver logs into upstream's JSON (default), a CSV table, a readable summary or an HTML page.\n"
      "Reads FMWORK ARG / SETUP / REP / RES lines and the META / STAT / MEM / FAIL / CHECK extensions.",
      "process"};
  ProcessOptions options;
  std::string metadata_id;
  app.add_option("--path,paths", options.paths,
                 "Driver logs, read in the order given into one output; - is standard input;\n"
                 "a folder: every *.log under it (a campaign tree: docs/campaigns.md).\n"
                 "--path may be repeated or left out.")
      ->type_name("FILE");
  auto* metadata_option =
      app.add_option("--metadata_id", metadata_id, "Written into each JSON record (null when not given).")
          ->type_name("ID");
  auto* format_option =
      app.add_option("--format", options.format,
                     "json: upstream's list of records; csv: one row per RES and FAIL line;\n"
                     "summary: an aligned table per log; html: a self-contained page with charts\n"
                     "(docs/report.md).")
          ->check(CLI::IsMember({"json", "csv", "summary", "html"}))
          ->type_name("FORMAT");
  app.add_option("--compare", options.compare,
                 "two logs or campaign folders: B/A latency and throughput per matching combination,\n"
                 "flagged noise when the change is within their STAT stddev (a table; --format html: a page)")
      ->expected(2)
      ->type_name("A B");
  std::string out_file;
  auto* out_option = app.add_option("--out", out_file,
                                    "write the output to FILE instead of standard output: a regular file is\n"
                                    "replaced whole or left untouched (written beside it, then renamed); a FIFO or\n"
                                    "a device is written into; one of the logs read is refused")
                         ->type_name("FILE");
  app.add_flag("--upstream", options.upstream_only,
               "JSON exactly as upstream's process writes it: precision, warmup, setup null;\n"
               "engine fmwork/embed/tf.");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return std::nullopt;
  } catch (const CLI::ParseError& e) {
    throw usage_error(std::string(e.what()) + " (see process --help)");
  }
  if (options.paths.empty() && options.compare.empty()) throw usage_error("no log given: pass --path FILE (or FILE; - reads standard input)");
  if (metadata_option->count() > 0) options.metadata_id = metadata_id;
  options.format_given = format_option->count() > 0;
  if (!options.compare.empty() && options.format_given && options.format != "html")
    throw usage_error("--compare writes a table, or a page with --format html; --format " + options.format +
                      " is not for --compare");
  if (out_option->count() > 0) options.out_file = out_file;
  return options;
}

namespace fs = std::filesystem;

// Each campaign plan.json read once: the plan, or nullopt for one that is not a campaign's.
using Plans = std::map<std::string, std::optional<Plan>>;

// The plan of the campaign whose logs/ folder holds `log`, nullopt when there is none. Only a campaign tree
// (docs/campaigns.md: DIR/plan.json beside DIR/logs/) carries labels: a plan.json anywhere else is not
// looked at, and one beside a logs/ folder that is not a plan is passed over with a note, never an Error.
const Plan* campaign_plan(const fs::path& log, Plans& plans, std::ostream& err) {
  if (log.parent_path().filename() != "logs") return nullptr;
  const std::string plan_file = (log.parent_path().parent_path() / "plan.json").string();
  std::error_code ec;
  if (!fs::is_regular_file(plan_file, ec)) return nullptr;
  if (!plans.count(plan_file)) {
    try {
      plans[plan_file] = plan_from_json(read_json_file(plan_file), plan_file);
    } catch (const Error& e) {
      plans[plan_file] = std::nullopt;
      err << "note: " << e.what() << "; not a campaign's plan, so the logs beside it have no labels\n";
    }
  }
  return plans[plan_file] ? &*plans[plan_file] : nullptr;
}

// The labels of a campaign's log: run_id, run and the matrix values of its run in the campaign's plan.
std::vector<std::pair<std::string, std::string>> campaign_labels(const fs::path& log, Plans& plans, std::ostream& err) {
  const Plan* plan = campaign_plan(log, plans, err);
  if (!plan) return {};
  for (const PlannedRun& run : plan->runs) {
    if (run.id + ".log" != log.filename().string()) continue;
    std::vector<std::pair<std::string, std::string>> labels = {{"run_id", run.id}, {"run", run.run}};
    labels.insert(labels.end(), run.matrix.begin(), run.matrix.end());
    return labels;
  }
  return {};
}

// The logs a --path or --compare argument names: "-", the file itself, or every *.log under a folder (in
// path order).
std::vector<std::string> log_files(const std::string& path) {
  std::error_code ec;
  if (path == "-" || !fs::is_directory(path, ec)) return {path};
  std::vector<std::string> files;
  for (fs::recursive_directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".log" && it->is_regular_file(ec)) files.push_back(it->path().string());
  if (ec) throw runtime_error("--path " + path + ": cannot read the folder (" + ec.message() + ")");
  if (files.empty()) throw runtime_error("--path " + path + ": no *.log file under this folder");
  std::sort(files.begin(), files.end());
  return files;
}

// What reading the logs needs: standard input, where notes go, and the plans read so far.
struct LogSource {
  std::istream& in;
  std::ostream& err;
  Plans plans;
};

// The logs of `files` (log_files), each with its campaign labels. Notes of the reader (a cut last line)
// go to stderr; a file with no FMWORK line at all is a runtime Error.
std::vector<ParsedLog> read_logs(const std::vector<std::string>& files, LogSource& source) {
  std::vector<ParsedLog> logs;
  for (const std::string& f : files) {
    logs.push_back(f == "-" ? parse_log(source.in, "-") : parse_log_text(read_path(f), f));
    for (const std::string& note : logs.back().notes) source.err << "note: " << escape_controls(note) << "\n";
    if (logs.back().fmwork_lines == 0)
      throw runtime_error(source_name(f) + ": no FMWORK line in it; give a log the driver wrote");
    if (f != "-") logs.back().labels = campaign_labels(f, source.plans, source.err);
  }
  return logs;
}

// The files `options` reads, by argument, in order: [0] and [1] are A and B with --compare.
std::vector<std::vector<std::string>> input_files(const ProcessOptions& options) {
  std::vector<std::vector<std::string>> inputs;
  for (const std::string& path : options.compare.empty() ? options.paths : options.compare)
    inputs.push_back(log_files(path));
  return inputs;
}

// Refuses an --out that is one of the logs read (the same file through any path or link; "-" is standard
// input): writing it would replace the log with its own report.
void refuse_output_among_inputs(const std::string& out, const std::vector<std::vector<std::string>>& inputs) {
  const std::optional<FileId> target = file_id(out);
  if (!target) return;  // a new file cannot be an input
  for (const auto& files : inputs)
    for (const std::string& f : files)
      if ((f == "-" ? file_id_of_descriptor(0) : file_id(f)) == target)
        throw usage_error("--out " + out + " is the log " + source_name(f) + " that process reads; name another file");
}

// The output of the options, every file read before anything is written (a bad file leaves no output).
std::string render(const ProcessOptions& options, const std::vector<std::vector<std::string>>& inputs,
                   LogSource& source) {
  if (!options.compare.empty()) {
    const std::vector<ParsedLog> a = read_logs(inputs[0], source), b = read_logs(inputs[1], source);
    return options.format == "html" ? compare_html(a, b, options.compare[0], options.compare[1]) : compare_report(a, b);
  }
  std::vector<ParsedLog> logs;
  for (const auto& files : inputs) {
    std::vector<ParsedLog> more = read_logs(files, source);
    logs.insert(logs.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
  }
  if (options.format == "csv") return to_csv(logs, options.metadata_id);
  if (options.format == "summary") return to_summary(logs);
  if (options.format == "html") return report_html(logs, options.paths);
  return python_json_dumps(to_upstream_json(logs, options.metadata_id, options.upstream_only), BadBytes::replace) + "\n";
}

}  // namespace

void run_process(int argc, const char* const* argv, std::istream& in, std::ostream& out, std::ostream& err) {
  const std::optional<ProcessOptions> options = parse_options(argc, argv, out);
  if (!options) return;
  const std::vector<std::vector<std::string>> inputs = input_files(*options);
  if (options->out_file) refuse_output_among_inputs(*options->out_file, inputs);
  LogSource source{in, err, {}};
  const std::string text = render(*options, inputs, source);
  if (!options->out_file) {
    out << text;
    return;
  }
  try {
    write_output_file(*options->out_file, text);
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::usage) throw usage_error("--out " + std::string(e.what()));
    // The advice is for a file to be made or replaced; a FIFO or a device says what went wrong by itself
    // (/dev/full: "No space left on device").
    std::error_code ec;
    const bool file = !fs::exists(*options->out_file, ec) || fs::is_regular_file(*options->out_file, ec);
    throw runtime_error("--out " + std::string(e.what()) +
                        (file ? "; name a file in a folder that exists and that you may write to" : ""));
  }
}

}  // namespace fmwork
