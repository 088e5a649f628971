// The command line of `process` (see process_options.hpp): one CLI11 App, and the checks of the options
// against each other.
#include "process_options.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "fmwork/base/error.hpp"
#include "fmwork/base/option_values.hpp"
#include "fmwork/base/text_format.hpp"
#include "fmwork/base/version.hpp"
#include "fmwork/cli/parse_errors.hpp"
#include "fmwork/log/log_fields.hpp"

namespace fmwork {
namespace {


// --statistic's help: one line per row of the statistics' table (compare.hpp).
std::string statistic_help() {
  std::string text = "with --compare or --baseline: each side's latency (repeats: the median of theirs):";
  for (const StatisticSpec& s : statistics()) text += std::string("\n  ") + s.name + ": " + s.help;
  return text;
}

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
                                                               "0123456789_.:-") == std::string::npos;
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
  std::string fail_text, statistic;
  CLI::Option* fail_option = nullptr;
  CLI::Option* statistic_option = nullptr;
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
      ->expected(1)  // one value an occurrence, any number of them: "--match dtype run.log" leaves run.log a log
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->type_name("KEYS");
  app.add_option("--ignore-meta", args.ignore,
                 "with --compare: let these keys differ within a pair (fp32 against bf16: dtype);\n"
                 "a pair differing in another key that matters is refused, naming it")
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->type_name("KEYS");
  args.fail_option = app.add_option("--fail-if-slower", args.fail_text,
                                    "with --compare: exit 1 when B is slower than A beyond PCT percent and beyond\n"
                                    "twice the larger CoV of the pair, listing those combinations")
                         ->type_name("PCT");
  std::vector<std::string> names;
  for (const StatisticSpec& s : statistics()) names.emplace_back(s.name);
  args.statistic_option = app.add_option("--statistic", args.statistic, statistic_help())
                              ->check(choice_of("--statistic", names))
                              ->type_name("STAT");
}

// --statistic, once --compare and --baseline are known: it is theirs alone.
void check_statistic(ProcessOptions& options, const CompareArgs& args) {
  if (args.statistic_option->count() == 0) return;
  if (options.compare.empty() && !options.baseline)
    throw usage_error("--statistic is for --compare A B and --baseline KEY=VALUE (the latency of each side); add one "
                      "of them or leave it out");
  options.pairing.statistic = *statistic_named(args.statistic);
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
    // parse_decimal, the one reader of numbers people type: strtod took "0x10" as 16 and " 5" as 5.
    options.fail_percent = read_decimal("--fail-if-slower", *fail,
                                        {0, false, std::numeric_limits<double>::max(), "a percentage >= 0, such as 5"});
  }
  if (compare && options.format_given && options.format == "summary")
    throw usage_error("--compare writes a table, or json, csv or html with --format; --format summary is not for --compare");
  if (compare && !options.paths.empty())
    throw usage_error("--path and --compare A B: --compare reads its two logs, --path is not read; give one of them");
  // The page of a comparison draws every pair: it pairs by run and flags nothing.
  for (const auto& [given, name] : {std::make_pair(!match.empty(), "--match"), std::make_pair(!ignore.empty(), "--ignore-meta"),
                                    std::make_pair(fail.has_value(), "--fail-if-slower")})
    if (given && options.format == "html")
      throw usage_error(std::string(name) + " is for --compare's table, json or csv; the html page does not use it: leave "
                        "it out or pick another --format");
}

// The options that only some outputs use, refused where they would do nothing: --metadata_id goes into the
// records of json and csv, --upstream is a way of writing the json records.
void check_output_options(const ProcessOptions& options, bool metadata_given, bool upstream_given) {
  // Defect: --out '' wrote the output beside "" and removed it, exit 0: nothing written, nothing said.
  if (options.out_file && options.out_file->empty())
    throw usage_error("--out is empty; give the file to write, or leave --out out for standard output");
  const bool records = options.compare.empty() && !options.baseline && (options.format == "json" || options.format == "csv");
  if (metadata_given && !records)
    throw usage_error("--metadata_id goes into the records of --path ... --format json or csv (the default json); "
                      "this output has none: leave it out");
  if (upstream_given && !(records && options.format == "json"))
    throw usage_error("--upstream writes the records of --path ... --format json (the default) as upstream does; "
                      "this output is not those records: leave it out");
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
                          ->check(choice_of("--chart-scale", {"auto", "linear", "log"}))
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

}  // namespace

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
          ->check(choice_of("--format", {"json", "csv", "summary", "html"}))
          ->type_name("FORMAT");
  std::string out_file;
  auto* out_option = app.add_option("--out", out_file,
                                    "write the output to FILE instead of standard output: a regular file is\n"
                                    "replaced whole or left untouched (written beside it, then renamed); a FIFO or\n"
                                    "a device is written into; a file process reads (a log, a plan.json) is refused")
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
  if (argc > 1) refuse_control_characters(std::vector<std::string>(argv + 1, argv + argc));  // a line of its own
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return std::nullopt;
  } catch (const CLI::ParseError& e) {
    throw usage_error(parse_error_line(app, e.what(), std::vector<std::string>(argv + 1, argv + argc)) + " (see process --help)");
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
  check_statistic(options, compare_args);
  check_output_options(options, metadata_option->count() > 0, options.upstream_only);
  return options;
}

void check_compare_keys(const ProcessOptions& options, const std::vector<ParsedLog>& a, const std::vector<ParsedLog>& b) {
  std::vector<std::string> known = {"model", "input", "batch"};
  const auto add = [&](const std::string& key) {
    if (std::find(known.begin(), known.end(), key) == known.end()) known.push_back(key);
  };
  for (const FieldSpec& f : meta_line_spec().fields) add(std::string(f.key));
  for (const auto* logs : {&a, &b})
    for (const ParsedLog& log : *logs) {
      for (const MetaLine& meta : log.meta)
        for (const auto& item : meta.fields.items) add(item.first);
      for (const auto& label : log.labels) add(label.first);
    }
  for (const auto& [keys, name] : {std::make_pair(&options.pairing.match, "--match"),
                                   std::make_pair(&options.pairing.ignore_meta, "--ignore-meta")})
    for (const std::string& key : *keys) {
      if (std::find(known.begin(), known.end(), key) != known.end()) continue;
      throw usage_error(std::string(name) + " " + excerpt(key) + ": no log read has this key" +
                        did_you_mean(closest_option(key, known)) + " (keys of the logs read: " + joined(known) + ")");
    }
}

}  // namespace fmwork
