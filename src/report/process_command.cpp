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
                                    "write the output to FILE instead of standard output (FILE.tmp, then renamed:\n"
                                    "FILE is whole or untouched)")
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

using Plans = std::map<std::string, Plan>;  // plan.json path -> the plan, each read once

// The labels of a campaign's log: the run in the plan.json of its folder or the folder above (logs/).
std::vector<std::pair<std::string, std::string>> campaign_labels(const fs::path& log, Plans& plans) {
  for (const fs::path& dir : {log.parent_path(), log.parent_path().parent_path()}) {
    const std::string plan_file = (dir / "plan.json").string();
    std::error_code ec;
    if (!fs::is_regular_file(plan_file, ec)) continue;
    if (!plans.count(plan_file)) plans[plan_file] = plan_from_json(read_json_file(plan_file), plan_file);
    for (const PlannedRun& run : plans[plan_file].runs) {
      if (run.id + ".log" != log.filename().string()) continue;
      std::vector<std::pair<std::string, std::string>> labels = {{"run_id", run.id}, {"run", run.run}};
      labels.insert(labels.end(), run.matrix.begin(), run.matrix.end());
      return labels;
    }
    return {};
  }
  return {};
}

// A log, or every *.log under a folder (in path order), each with its campaign labels.
void read_logs(const std::string& path, std::istream& in, std::vector<ParsedLog>& logs) {
  Plans plans;
  std::error_code ec;
  if (path == "-" || !fs::is_directory(path, ec)) {
    logs.push_back(path == "-" ? parse_log(in, "-") : parse_log_text(read_path(path), path));
    if (path != "-") logs.back().labels = campaign_labels(path, plans);
    return;
  }
  std::vector<std::string> files;
  for (fs::recursive_directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".log" && it->is_regular_file(ec)) files.push_back(it->path().string());
  if (ec) throw runtime_error("--path " + path + ": cannot read the folder (" + ec.message() + ")");
  if (files.empty()) throw runtime_error("--path " + path + ": no *.log file under this folder");
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    logs.push_back(parse_log_text(read_path(f), f));
    logs.back().labels = campaign_labels(f, plans);
  }
}

// The output of the options, every file read before anything is written (a bad file leaves no output).
std::string render(const ProcessOptions& options, std::istream& in) {
  if (!options.compare.empty()) {
    std::vector<ParsedLog> a, b;
    read_logs(options.compare[0], in, a);
    read_logs(options.compare[1], in, b);
    return options.format == "html" ? compare_html(a, b, options.compare[0], options.compare[1]) : compare_report(a, b);
  }
  std::vector<ParsedLog> logs;
  for (const std::string& path : options.paths) read_logs(path, in, logs);
  if (options.format == "csv") return to_csv(logs, options.metadata_id);
  if (options.format == "summary") return to_summary(logs);
  if (options.format == "html") return report_html(logs, options.paths);
  return python_json_dumps(to_upstream_json(logs, options.metadata_id, options.upstream_only), BadBytes::replace) + "\n";
}

}  // namespace

void run_process(int argc, const char* const* argv, std::istream& in, std::ostream& out) {
  const std::optional<ProcessOptions> options = parse_options(argc, argv, out);
  if (!options) return;
  const std::string text = render(*options, in);
  if (!options->out_file) {
    out << text;
    return;
  }
  try {
    write_file_atomically(*options->out_file, text);
  } catch (const Error& e) {
    throw runtime_error("--out " + std::string(e.what()) + "; name a file in a folder that exists and that you may "
                        "write to");
  }
}

}  // namespace fmwork
