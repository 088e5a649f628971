// The `process` command: its options, reading the files, and the format asked for.
#include "fmwork/report/process_command.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <map>
#include <utility>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "fmwork/report/baseline.hpp"
#include "fmwork/report/compare.hpp"
#include "fmwork/report/compare_output.hpp"
#include "fmwork/base/text_format.hpp"
#include "fmwork/base/version.hpp"
#include "fmwork/cli/parse_errors.hpp"
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

// The command line of `process`.
struct ProcessOptions {
  std::vector<std::string> paths;
  std::optional<std::string> metadata_id;
  std::string format = "json";
  bool upstream_only = false;
  std::vector<std::string> compare;  // --compare A B
  bool format_given = false;
  std::optional<std::string> out_file;  // --out
  CompareOptions pairing;               // --match, --ignore-meta
  std::optional<double> fail_percent;   // --fail-if-slower
  std::optional<BaselineSpec> baseline; // --baseline KEY=VALUE
  ChartScale chart_scale = ChartScale::automatic;  // --chart-scale
};

// The most keys --match and --ignore-meta take together: far more than META has, far fewer than would cost.
constexpr size_t kMaxCompareKeys = 32;

// The keys of --match / --ignore-meta values ("dtype,threads"), each a META key's shape.
std::vector<std::string> compare_keys(const std::vector<std::string>& values, const std::string& option) {
  std::vector<std::string> keys;
  for (const std::string& value : values) {
    size_t from = 0;
    while (from <= value.size()) {
      const size_t comma = std::min(value.find(',', from), value.size());
      const std::string key = value.substr(from, comma - from);
      const bool shape = !key.empty() && key.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                               "0123456789_.-") == std::string::npos;
      if (!shape) throw usage_error(option + " takes META keys separated by commas (dtype,threads); got '" + excerpt(value) + "'");
      if (keys.size() == kMaxCompareKeys) throw usage_error(option + " takes at most " + std::to_string(kMaxCompareKeys) + " keys");
      keys.push_back(key);
      from = comma + 1;
    }
  }
  return keys;
}

// The raw values of --match, --ignore-meta and --fail-if-slower (check_compare_options checks them). Held by
// pointer in the App: the struct must outlive the parse.
struct CompareArgs {
  std::vector<std::string> match, ignore;
  std::string fail_text;
  CLI::Option* fail_option = nullptr;
};

// --compare A B (into `compare`) and the options that go with it.
void add_compare_options(CLI::App& app, CompareArgs& args, std::vector<std::string>& compare) {
  app.add_option("--compare", compare,
                 "two logs or campaign folders: B/A latency and throughput per matching combination,\n"
                 "flagged noise when the change is within their STAT stddev (a table; --format json|csv:\n"
                 "the pairs as data; --format html: a page)")
      ->expected(2)
      ->type_name("A B");
  app.add_option("--match", args.match,
                 "with --compare: pair on input, batch and these META keys (dtype,threads; model is\n"
                 "RES's model name) instead of the run; the other keys that matter (dtype, threads,\n"
                 "compile, platform, attn, model) must then agree within a pair")
      ->type_name("KEYS");
  app.add_option("--ignore-meta", args.ignore,
                 "with --compare: let these keys differ within a pair (fp32 against bf16: dtype);\n"
                 "a pair differing in another key that matters is refused, naming it")
      ->type_name("KEYS");
  args.fail_option = app.add_option("--fail-if-slower", args.fail_text,
                                    "with --compare: exit 1 when B is slower than A beyond PCT percent and beyond\n"
                                    "twice the larger CoV of the pair, listing those combinations")
                         ->type_name("PCT");
}

// The checks of the --compare options against each other, once CLI11 has read them.
void check_compare_options(ProcessOptions& options, const CompareArgs& args) {
  const std::vector<std::string>&match = args.match, &ignore = args.ignore;
  const std::optional<std::string> fail =
      args.fail_option->count() > 0 ? std::optional<std::string>(args.fail_text) : std::nullopt;
  const bool compare = !options.compare.empty();
  for (const auto& [given, name] : {std::make_pair(!match.empty(), "--match"), std::make_pair(!ignore.empty(), "--ignore-meta"),
                                    std::make_pair(fail.has_value(), "--fail-if-slower")})
    if (given && !compare) throw usage_error(std::string(name) + " is for --compare A B; add --compare or leave it out");
  options.pairing.match = compare_keys(match, "--match");
  options.pairing.ignore_meta = compare_keys(ignore, "--ignore-meta");
  if (fail) {
    char* end = nullptr;
    const double percent = std::strtod(fail->c_str(), &end);
    if (fail->empty() || *end != '\0' || !std::isfinite(percent) || percent < 0)
      throw usage_error("--fail-if-slower takes a percentage >= 0, such as 5; got '" + excerpt(*fail) + "'");
    options.fail_percent = percent;
  }
  if (compare && options.format_given && options.format == "summary")
    throw usage_error("--compare writes a table, or json, csv or html with --format; --format summary is not for --compare");
}

// The raw values of --baseline and --chart-scale (check_report_options reads them). Held by pointer in the
// App, like CompareArgs.
struct ReportArgs {
  std::string baseline, chart_scale;
  CLI::Option *baseline_option = nullptr, *scale_option = nullptr;
};

void add_report_options(CLI::App& app, ReportArgs& args) {
  args.baseline_option =
      app.add_option("--baseline", args.baseline,
                     "with --path: every other configuration as speedups over the runs whose KEY is VALUE\n"
                     "(dtype=float32, threads=1, model:torch_dtype=float32), per input and batch, repeats\n"
                     "as their median: a table, or --format csv|json|html")
          ->type_name("KEY=VALUE");
  args.scale_option = app.add_option("--chart-scale", args.chart_scale,
                                     "with --format html: the y axis of the latency and tokens/s charts: log,\n"
                                     "linear (from 0), or auto (default: log where a chart spans more than 10x)")
                          ->check(CLI::IsMember({"auto", "linear", "log"}))
                          ->type_name("SCALE");
}

// The checks of --baseline and --chart-scale against the other options, once CLI11 has read them.
void check_report_options(ProcessOptions& options, const ReportArgs& args) {
  if (args.baseline_option->count() > 0) {
    if (!options.compare.empty())
      throw usage_error("--baseline is for --path; with --compare A B, A is the baseline: leave one out");
    options.baseline = parse_baseline(args.baseline);
  }
  if (args.scale_option->count() > 0) {
    if (options.format != "html" || !options.compare.empty() || options.baseline)
      throw usage_error("--chart-scale is for the report's charts: --path ... --format html");
    options.chart_scale = *chart_scale_named(args.chart_scale);
  }
}

// "; did you mean --match?" for the first word of argv that looks like an option and is none of `app`'s, ""
// when there is none or nothing is close (closest_option in base/text_format).
std::string suggestion(const CLI::App& app, int argc, const char* const* argv) {
  std::vector<std::string> names;
  for (const CLI::Option* o : app.get_options())
    for (const std::string& name : o->get_lnames()) names.push_back("--" + name);
  for (int i = 1; i < argc; ++i) {
    const std::string word = std::string(argv[i]).substr(0, std::string(argv[i]).find('='));
    if (word.rfind("--", 0) != 0 || std::find(names.begin(), names.end(), word) != names.end()) continue;
    const std::optional<std::string> close = closest_option(word, names);
    return close ? "; did you mean " + *close + "?" : std::string();
  }
  return "";
}

// The options, or nullopt after --help or --version has been written to `out`.
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
  std::string out_file;
  auto* out_option = app.add_option("--out", out_file,
                                    "write the output to FILE instead of standard output: a regular file is\n"
                                    "replaced whole or left untouched (written beside it, then renamed); a FIFO or\n"
                                    "a device is written into; one of the logs read is refused")
                         ->type_name("FILE");
  app.add_flag("--upstream", options.upstream_only,
               "JSON exactly as upstream's process writes it: precision, warmup, setup null;\n"
               "engine fmwork/embed/tf.");
  CompareArgs compare_args;
  add_compare_options(app, compare_args, options.compare);
  ReportArgs report_args;
  add_report_options(app, report_args);
  bool version = false;
  app.add_flag("--version", version, "print process's version and exit");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return std::nullopt;
  } catch (const CLI::ParseError& e) {
    throw usage_error(parse_error_text(e.what()) + suggestion(app, argc, argv) + " (see process --help)");
  }
  if (version) {
    out << version_text("process");
    return std::nullopt;
  }
  if (options.paths.empty() && options.compare.empty()) throw usage_error("no log given: pass --path FILE (or FILE; - reads standard input)");
  if (metadata_option->count() > 0) options.metadata_id = metadata_id;
  options.format_given = format_option->count() > 0;
  check_compare_options(options, compare_args);
  if (out_option->count() > 0) options.out_file = out_file;
  check_report_options(options, report_args);
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
      plans[plan_file] = plan_from_json(read_json_file(plan_file, kMaxPlanJsonBytes), plan_file);
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
    // Streamed: memory follows the records kept, not the size of the file (log_records.hpp's LogLimits).
    logs.push_back(f == "-" ? parse_log(source.in, "-") : parse_log_file(f, "--path " + f));
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

// The most combinations (results and failures, every log together) one HTML page draws: each costs a few KB
// of tables and SVG, and 40,000 input sizes made a 192 MB page no browser opens. The other formats have no
// such bound.
constexpr size_t kMaxHtmlCombinations = 5000;

void check_html_size(const std::vector<const std::vector<ParsedLog>*>& sets) {
  size_t combinations = 0;
  for (const auto* logs : sets)
    for (const ParsedLog& log : *logs) combinations += log.results.size() + log.failures.size();
  if (combinations > kMaxHtmlCombinations)
    throw usage_error(fmt::format("--format html: the logs hold {} combinations; a page draws at most {} (it would "
                                  "be too large to open): use --format csv or json, or fewer logs",
                                  combinations, kMaxHtmlCombinations));
}

// The speedup table of --baseline: text unless --format asks for csv, json or html.
std::string render_baseline(const ProcessOptions& options, const std::vector<ParsedLog>& logs) {
  const BaselineTable table = baseline_table(logs, *options.baseline);
  if (!options.format_given || options.format == "summary") return baseline_text(table);
  if (options.format == "csv") return baseline_csv(table);
  if (options.format == "html") return baseline_html(table, options.paths);
  return python_json_dumps(baseline_json(table), BadBytes::replace) + "\n";
}

// The output of --path logs in the format asked for.
std::string render_logs(const ProcessOptions& options, const std::vector<std::vector<std::string>>& inputs,
                        LogSource& source) {
  std::vector<ParsedLog> logs;
  for (const auto& files : inputs) {
    std::vector<ParsedLog> more = read_logs(files, source);
    logs.insert(logs.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
  }
  if (options.baseline) return render_baseline(options, logs);
  if (options.format == "csv") return to_csv(logs, options.metadata_id);
  if (options.format == "summary") return to_summary(logs);
  if (options.format == "html") {
    check_html_size({&logs});
    return report_html(logs, options.paths, options.chart_scale);
  }
  return python_json_dumps(to_upstream_json(logs, options.metadata_id, options.upstream_only), BadBytes::replace) + "\n";
}

// --out FILE written as write_output_file does, its Error told as an --out one.
void write_out(const std::string& out_file, const std::string& text) {
  try {
    write_output_file(out_file, text);
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::usage) throw usage_error("--out " + std::string(e.what()));
    // The advice is for a file to be made or replaced; a FIFO or a device says what went wrong by itself
    // (/dev/full: "No space left on device").
    std::error_code ec;
    const bool file = !fs::exists(out_file, ec) || fs::is_regular_file(out_file, ec);
    throw runtime_error("--out " + std::string(e.what()) +
                        (file ? "; name a file in a folder that exists and that you may write to" : ""));
  }
}

// What --compare writes, and with --fail-if-slower the runtime Error's text when B is slower (written after
// the output, so that the table or data says which combinations).
struct Rendered {
  std::string text;
  std::optional<std::string> failure;
};

Rendered render_compare(const ProcessOptions& options, const std::vector<std::vector<std::string>>& inputs,
                        LogSource& source) {
  const std::vector<ParsedLog> a = read_logs(inputs[0], source), b = read_logs(inputs[1], source);
  if (options.format == "html") {
    check_html_size({&a, &b});
    return {compare_html(a, b, options.compare[0], options.compare[1]), std::nullopt};
  }
  const Comparison comparison = compare_logs(a, b, options.pairing);
  Rendered out;
  if (options.format_given && options.format == "json")
    out.text = python_json_dumps(compare_json(comparison, options.compare[0], options.compare[1], options.fail_percent),
                                 BadBytes::replace) + "\n";
  else if (options.format_given && options.format == "csv")
    out.text = compare_csv(comparison, options.fail_percent);
  else
    out.text = compare_report(comparison);
  if (!options.fail_percent) return out;
  const std::string lines = slower_lines(comparison, *options.fail_percent);
  const size_t slower = slower_pairs(comparison, *options.fail_percent).size();
  // The text table lists them under it; JSON and CSV hold them in their data, and stderr lists them for a
  // CI log.
  if (!options.format_given && slower > 0) out.text += "slower beyond the limit and the noise:\n" + lines;
  else if (slower > 0) source.err << lines;
  if (slower > 0)
    out.failure = fmt::format("--fail-if-slower {:g}: {} of {} combinations are slower beyond {:g}% and beyond 2x "
                              "their CoV",
                              *options.fail_percent, slower, comparison.pairs.size(), *options.fail_percent);
  return out;
}

// The output of the options, every file read before anything is written (a bad file leaves no output).
Rendered render(const ProcessOptions& options, const std::vector<std::vector<std::string>>& inputs,
                LogSource& source) {
  if (!options.compare.empty()) return render_compare(options, inputs, source);
  return {render_logs(options, inputs, source), std::nullopt};
}
}  // namespace

void run_process(int argc, const char* const* argv, std::istream& in, std::ostream& out, std::ostream& err) {
  const std::optional<ProcessOptions> options = parse_options(argc, argv, out);
  if (!options) return;
  const std::vector<std::vector<std::string>> inputs = input_files(*options);
  if (options->out_file) refuse_output_among_inputs(*options->out_file, inputs);
  LogSource source{in, err, {}};
  const Rendered rendered = render(*options, inputs, source);
  if (!options->out_file) {
    out << rendered.text;
  } else {
    write_out(*options->out_file, rendered.text);
  }
  if (rendered.failure) throw runtime_error(*rendered.failure);
}

}  // namespace fmwork
