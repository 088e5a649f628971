// The command line of `process` (see process_options.hpp): one table of rows, from which the CLI11 App is
// set up and each value read, and the checks of the options against each other.
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
#include "fmwork/cli/cli11_rows.hpp"
#include "fmwork/cli/parse_errors.hpp"
#include "fmwork/log/log_schema.hpp"

namespace fmwork {
namespace {

// --statistic's help: one line per row of the statistics' table (compare.hpp).
const char* statistic_help() {
  static const std::string text = [] {
    std::string t = "with --compare or --baseline: each side's latency (repeats: the median of theirs):";
    for (const StatisticSpec& s : statistics()) t += std::string("\n  ") + s.name + ": " + s.help;
    return t;
  }();
  return text.c_str();
}

std::vector<std::string> statistic_names() {
  std::vector<std::string> names;
  for (const StatisticSpec& s : statistics()) names.emplace_back(s.name);
  return names;
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

// One option of `process`: its row and its reader into ProcessOptions.
using ProcessOption = Cli11Row<ProcessOptions>;

using W = OptionWords;
using V = const std::vector<std::string>&;

// The rows, in --help's order: what is read and written (the logs, --format, --out), then --compare and
// --baseline, the two ways of setting runs against each other.
const ProcessOption kProcessOptions[] = {
  {{"path", "FILE", "run.log",
    "Driver logs, read in the order given into one output; - is standard input;\n"
    "a folder: every *.log under it (a campaign tree: docs/campaigns.md).\n"
    "--path may be repeated or left out."},
   W::list, [](ProcessOptions& o, V v) { o.paths = v; }, nullptr, "paths"},
  {{"metadata_id", "ID", "run1", "Written into each JSON record (null when not given)."}, W::one,
   [](ProcessOptions& o, V v) { o.metadata_id = v[0]; }},
  {{"format", "FORMAT", "csv",
    "json: upstream's list of records; csv: one row per RES and FAIL line;\n"
    "summary: an aligned table per log; html: a self-contained page with charts\n"
    "(docs/report.md)."},
   W::one,
   [](ProcessOptions& o, V v) {
     o.format = v[0];
     o.format_given = true;
   },
   [] { return std::vector<std::string>{"json", "csv", "summary", "html"}; }},
  {{"out", "FILE", "report.html",
    "write the output to FILE instead of standard output: a regular file is\n"
    "replaced whole or left untouched (written beside it, then renamed); a FIFO or\n"
    "a device is written into; a file process reads (a log, a plan.json) is refused"},
   W::one, [](ProcessOptions& o, V v) { o.out_file = v[0]; }},
  {{"upstream", "", "",
    "JSON exactly as upstream's process writes it: precision, warmup, setup null;\n"
    "engine fmwork/embed/tf."},
   W::flag, [](ProcessOptions& o, V) { o.upstream_only = true; }},
  {{"compare", "A B", "a.log b.log",
    "two logs or campaign folders: B/A latency and throughput per matching combination,\n"
    "flagged noise when the change is within their STAT stddev (a table; --format json|csv:\n"
    "the pairs as data; --format html: a page)"},
   W::two, [](ProcessOptions& o, V v) { o.compare = v; }},
  {{"match", "KEYS", "dtype,threads",
    "with --compare: pair on input, batch and these META keys (dtype,threads; model is\n"
    "RES's model name, by its folder's name) instead of the run; the other keys that\n"
    "matter (dtype, threads, compile, platform, attention, gelu_epilogue, model,\n"
    "batching, lengths) must then agree within a pair"},
   W::each, [](ProcessOptions& o, V v) { o.pairing.match = compare_keys(v, "--match"); }},
  {{"ignore-meta", "KEYS", "dtype",
    "with --compare: let these keys differ within a pair (fp32 against bf16: dtype);\n"
    "a pair differing in another key that matters is refused, naming it"},
   W::each, [](ProcessOptions& o, V v) { o.pairing.ignore_meta = compare_keys(v, "--ignore-meta"); }},
  {{"fail-if-slower", "PCT", "5",
    "with --compare: exit 1 when B is slower than A beyond PCT percent and beyond\n"
    "twice the larger CoV of the pair, listing those combinations"},
   W::one,
   [](ProcessOptions& o, V v) {
     o.fail_percent = read_decimal("--fail-if-slower", v[0],
                                   {0, false, std::numeric_limits<double>::max(), "a percentage >= 0, such as 5"});
   }},
  {{"statistic", "STAT", "p50", statistic_help()}, W::one,
   [](ProcessOptions& o, V v) { o.pairing.statistic = *statistic_named(v[0]); }, statistic_names},
  {{"baseline", "KEY=VALUE", "dtype=float32",
    "with --path: every other configuration as speedups over the runs whose KEY is VALUE\n"
    "(dtype=float32, threads=1, model:torch_dtype=float32), per input and batch, repeats\n"
    "as their median: a table, or --format csv|json|html"},
   W::one, [](ProcessOptions& o, V v) { o.baseline = parse_baseline(v[0]); }},
  {{"chart-scale", "SCALE", "linear",
    "with --format html: the y axis of the latency and tokens/s charts: log,\n"
    "linear (from 0), or auto (default: log where a chart spans more than 10x)"},
   W::one, [](ProcessOptions& o, V v) { o.chart_scale = *chart_scale_named(v[0]); },
   [] { return std::vector<std::string>{"auto", "linear", "log"}; }},
  {{"version", "", "", "print process's version and exit"}, W::flag, [](ProcessOptions&, V) {}},
  {{"schema", "", "",
    "print the log lines' fields as JSON (the keys of each line, their kinds, the\n"
    "required ones; upstream's lines' positions) and exit: what bench/log_schema.json holds"},
   W::flag, [](ProcessOptions&, V) {}},
};

// The checks of the --compare options against each other, once their values are read.
void check_compare_options(const ProcessOptions& options, const GivenOptions& given) {
  const bool compare = !options.compare.empty();
  for (const char* name : {"match", "ignore-meta", "fail-if-slower"})
    if (given.given(name) && !compare)
      throw usage_error(std::string("--") + name + " is for --compare A B; add --compare or leave it out");
  if (compare && options.format_given && options.format == "summary")
    throw usage_error("--compare writes a table, or json, csv or html with --format; --format summary is not for --compare");
  if (compare && !options.paths.empty())
    throw usage_error("--path and --compare A B: --compare reads its two logs, --path is not read; give one of them");
  // The page of a comparison draws every pair: it pairs by run and flags nothing.
  for (const char* name : {"match", "ignore-meta", "fail-if-slower"})
    if (given.given(name) && options.format == "html")
      throw usage_error(std::string("--") + name + " is for --compare's table, json or csv; the html page does not use it: leave "
                        "it out or pick another --format");
}

// The options that only some outputs use, refused where they would do nothing: --metadata_id goes into the
// records of json and csv, --upstream is a way of writing the json records.
void check_output_options(const ProcessOptions& options) {
  // Defect: --out '' wrote the output beside "" and removed it, exit 0: nothing written, nothing said.
  if (options.out_file && options.out_file->empty())
    throw usage_error("--out is empty; give the file to write, or leave --out out for standard output");
  const bool records = options.compare.empty() && !options.baseline && (options.format == "json" || options.format == "csv");
  if (options.metadata_id && !records)
    throw usage_error("--metadata_id goes into the records of --path ... --format json or csv (the default json); "
                      "this output has none: leave it out");
  if (options.upstream_only && !(records && options.format == "json"))
    throw usage_error("--upstream writes the records of --path ... --format json (the default) as upstream does; "
                      "this output is not those records: leave it out");
}

// The checks of --baseline, --chart-scale and --statistic against the other options.
void check_report_options(const ProcessOptions& options, const GivenOptions& given) {
  if (options.baseline && !options.compare.empty())
    throw usage_error("--baseline is for --path; with --compare A B, A is the baseline: leave one out");
  if (given.given("chart-scale") && (options.format != "html" || !options.compare.empty() || options.baseline))
    throw usage_error("--chart-scale is for the report's charts: --path ... --format html");
  // --statistic is --compare's and --baseline's alone (the latency of each side).
  if (given.given("statistic") && options.compare.empty() && !options.baseline)
    throw usage_error("--statistic is for --compare A B and --baseline KEY=VALUE (the latency of each side); add one "
                      "of them or leave it out");
}

}  // namespace

std::optional<ProcessOptions> parse_options(int argc, const char* const* argv, std::ostream& out) {
  CLI::App app{
      "Turns fmwork driver logs into upstream's JSON (default), a CSV table, a readable summary or an HTML page.\n"
      "Reads FMWORK ARG / SETUP / REP / RES lines and the META / STAT / MEM / FAIL / CHECK extensions.",
      "process"};
  GivenOptions given;
  for (const ProcessOption& o : kProcessOptions) given.add(app, o);
  if (argc > 1) refuse_control_characters(std::vector<std::string>(argv + 1, argv + argc));  // a line of its own
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return std::nullopt;
  } catch (const CLI::ParseError& e) {
    throw usage_error(parse_error_line(app, e.what(), std::vector<std::string>(argv + 1, argv + argc)) + " (see process --help)");
  }
  if (given.given("version")) {
    out << version_text("process");
    return std::nullopt;
  }
  if (given.given("schema")) {
    out << log_schema_json();
    return std::nullopt;
  }
  if (!given.given("path") && !given.given("compare"))
    throw usage_error("no log given: pass --path FILE (or FILE; - reads standard input)");
  ProcessOptions options;
  for (const ProcessOption& o : kProcessOptions)
    if (given.given(o.name)) o.read(options, given.values(o.name));
  check_compare_options(options, given);
  check_report_options(options, given);
  check_output_options(options);
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
