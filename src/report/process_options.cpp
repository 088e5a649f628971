// The command line of `process` (see process_options.hpp): its rows of the one option table (cli/options.cpp)
// read by the one tokenizer, their values turned into report/'s types, and the checks of the options against
// each other.
#include "process_options.hpp"

#include <algorithm>
#include <set>
#include <utility>

#include "fmwork/base/error.hpp"
#include "fmwork/base/text_format.hpp"
#include "fmwork/base/version.hpp"
#include "fmwork/cli/cli.hpp"
#include "fmwork/cli/usage.hpp"
#include "fmwork/log/log_schema.hpp"

namespace fmwork {
namespace {

// The checks of the --compare options against each other, once their values are read.
void check_compare_options(const ProcessOptions& options, const std::set<std::string>& given) {
  const bool compare = !options.compare.empty();
  for (const char* name : {"match", "ignore-meta", "fail-if-slower"})
    if (given.count(name) && !compare)
      throw usage_error(std::string("--") + name + " is for --compare A B; add --compare or leave it out");
  if (compare && options.format_given && options.format == "summary")
    throw usage_error("--compare writes a table, or json, csv or html with --format; --format summary is not for --compare");
  if (compare && !options.paths.empty())
    throw usage_error("--path and --compare A B: --compare reads its two logs, --path is not read; give one of them");
  // The page of a comparison draws every pair: it pairs by run and flags nothing.
  for (const char* name : {"match", "ignore-meta", "fail-if-slower"})
    if (given.count(name) && options.format == "html")
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
void check_report_options(const ProcessOptions& options, const std::set<std::string>& given) {
  if (options.baseline && !options.compare.empty())
    throw usage_error("--baseline is for --path; with --compare A B, A is the baseline: leave one out");
  if (given.count("chart-scale") && (options.format != "html" || !options.compare.empty() || options.baseline))
    throw usage_error("--chart-scale is for the report's charts: --path ... --format html");
  // --statistic is --compare's and --baseline's alone (the latency of each side).
  if (given.count("statistic") && options.compare.empty() && !options.baseline)
    throw usage_error("--statistic is for --compare A B and --baseline KEY=VALUE (the latency of each side); add one "
                      "of them or leave it out");
}

}  // namespace

std::optional<ProcessOptions> parse_options(int argc, const char* const* argv, std::ostream& out) {
  std::vector<std::string> words;
  for (int i = 1; i < argc; ++i) words.emplace_back(argv[i] ? argv[i] : "");
  if (asks_for_help(words)) {
    out << command_usage(Command::process);
    return std::nullopt;
  }
  const CommandLine line = parse_command_line(argc, argv, Command::process);
  if (line.process.version || line.process.schema) {
    out << (line.process.version ? version_text("process") : log_schema_json());
    return std::nullopt;
  }
  if (line.process.paths.empty() && line.process.compare.empty())
    throw usage_error("no log given: pass --path FILE (or FILE; - reads standard input)");
  ProcessOptions options;
  static_cast<ProcessArgs&>(options) = line.process;
  options.pairing.match = options.match;
  options.pairing.ignore_meta = options.ignore_meta;
  options.pairing.statistic = *statistic_named(options.statistic);
  if (options.baseline_text) options.baseline = parse_baseline(*options.baseline_text);
  if (options.chart_scale_text) options.chart_scale = *chart_scale_named(*options.chart_scale_text);
  check_compare_options(options, line.given);
  check_report_options(options, line.given);
  check_output_options(options);
  return options;
}

void check_compare_keys(const ProcessOptions& options, const std::vector<ParsedLog>& a, const std::vector<ParsedLog>& b) {
  std::vector<std::string> known = {std::string(compared_key::model), std::string(res_position::input),
                                    std::string(res_position::batch)};
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
