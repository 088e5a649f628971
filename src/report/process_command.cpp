// The `process` command: reading the files, and the format asked for (its options: process_options).
#include "fmwork/report/process_command.hpp"
#include "process_options.hpp"
#include "fmwork/report/serve_report.hpp"

#include <utility>

#include <fmt/format.h>

#include "fmwork/report/baseline.hpp"
#include "fmwork/report/compare.hpp"
#include "fmwork/report/compare_output.hpp"
#include "fmwork/base/text_format.hpp"
#include "fmwork/base/error.hpp"
#include "fmwork/log/log_records.hpp"
#include "fmwork/report/html_report.hpp"
#include "fmwork/report/process_io.hpp"
#include "fmwork/report/formats.hpp"
#include "fmwork/base/python_text.hpp"
#include "fmwork/base/regular_file.hpp"

namespace fmwork {

namespace {

// The files `options` reads, by argument, in order: [0] and [1] are A and B with --compare.
std::vector<std::vector<LogFile>> input_files(const ProcessOptions& options) {
  std::vector<std::vector<LogFile>> inputs;
  const bool compare = !options.compare.empty();
  for (const std::string& path : compare ? options.compare : options.paths)
    inputs.push_back(log_files(path, compare ? "--compare" : "--path"));
  return inputs;
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
  const BaselineTable table = baseline_table(logs, *options.baseline, options.pairing.statistic);
  if (!options.format_given || options.format == "summary") return baseline_text(table);
  if (options.format == "csv") return baseline_csv(table);
  if (options.format == "html") return baseline_html(table, options.paths);
  return python_json_dumps(baseline_json(table), BadBytes::replace) + "\n";
}

// Whether the output of the options is written log by log (json, csv and summary of --path logs): its
// memory is one log's, whatever the number of logs. Everything else needs every log at once.
bool streamed(const ProcessOptions& options) {
  return options.compare.empty() && !options.baseline && options.format != "html";
}

// Every argument has a log once the skipped ones are left out (process_io's require_logs).
void require_logs(const ProcessOptions& options, const std::vector<std::vector<LogFile>>& inputs,
                  const LogSource& source) {
  const bool compare = !options.compare.empty();
  fmwork::require_logs(compare ? "--compare" : "--path", compare ? options.compare : options.paths, inputs, source);
}

// The first reading of the --path logs (each one checked: a bad one refused, or skipped), which counts the logs
// of driver serve (no RES line; SERVE and CAPACITY lines), whose lines are the CSV and JSON records: a JSON list
// holds both kinds, CSV's columns are one kind's, and upstream's JSON has no record for a serve log (--upstream
// leaves them out, saying so, or refuses them all). Returns whether every log is serve's (their CSV or JSON).
bool read_kinds_of_logs(const ProcessOptions& options, std::vector<std::vector<LogFile>>& inputs, LogSource& source) {
  size_t serve_logs = 0, logs = 0;
  for (auto& files : inputs)
    read_checked(files, source, [&](ParsedLog log) { serve_logs += is_serve_log(log), ++logs; });
  require_logs(options, inputs, source);
  const bool serving = options.format != "summary" && serve_logs > 0 && serve_logs == logs;
  if (options.format == "csv" && serve_logs > 0 && !serving)
    throw usage_error(fmt::format("--format csv: {} of the {} logs are driver serve's (SERVE and CAPACITY lines) and "
                                  "the others sweeps' (RES lines), whose columns differ; give process each kind apart "
                                  "(a campaign's logs/<id>.log files), or --format json, which holds both",
                                  serve_logs, logs));
  if (options.upstream_only)
    refuse_or_note_serve_logs("--upstream", "writes upstream's records of the sweep's results",
                              fmwork::joined(options.paths, " "), serve_logs, logs, source.err);
  return serving;
}

// Records appended to the JSON list being written: "\n    " before the list's first, ",\n    " before each next.
template <class Records>
void append_json_records(std::string& text, bool& first, const Records& records) {
  for (const auto& record : records) {
    text += (first ? "\n    " : ",\n    ") + python_json_dumps(record, BadBytes::replace, 1);
    first = false;
  }
}

// The --path logs as json, csv or summary, read a second time and written one at a time: every log has been
// read once already (read_kinds_of_logs), so a bad one was refused, or skipped, before anything is written.
void write_streamed(const ProcessOptions& options, std::vector<std::vector<LogFile>>& inputs, LogSource& source,
                    Output& output) {
  const bool serving = read_kinds_of_logs(options, inputs, source);
  const std::vector<std::string> labels = options.format == "csv" ? label_columns_of(inputs, source) : std::vector<std::string>();
  std::vector<ParsedLog> searches;  // the summary's: each log's CAPACITY lines and labels, for one table at the end
  output.open();
  bool first = true, open = true;
  if (options.format == "csv") open = output.write(serving ? serve_csv_header(labels) : csv_header_row(labels));
  else if (options.format == "json") open = output.write("[");
  for (const auto& files : inputs)
    for (const LogFile& f : files) {
      if (!open) return;  // the reader has gone: nothing more to read for it
      std::vector<ParsedLog> log;  // one: what the writers of many take
      log.push_back(read_log(f.path, source, true));
      std::string text;
      if (serving && options.format == "csv") {
        text = serve_csv_rows(log[0], labels);
      } else if (options.format == "json" && is_serve_log(log[0])) {
        if (options.upstream_only) continue;
        append_json_records(text, first, serve_json(log[0]));
      } else if (options.format == "csv") {
        text = csv_rows(log[0], options.metadata_id, labels);
        note_serve_lines_left_out(log[0], "--format csv", "driver serve's columns are not the sweep's; --format json "
                                  "holds both", source.err);
      } else if (options.format == "summary") {
        text = (first ? "" : "\n") + to_summary(log) + serve_summary(log[0]);
        first = false;
        if (!log[0].capacity.empty()) {
          ParsedLog kept;
          kept.source = log[0].source;
          kept.capacity = log[0].capacity;
          kept.labels = log[0].labels;
          searches.push_back(std::move(kept));
        }
      } else {
        append_json_records(text, first, to_upstream_json(log, options.metadata_id, options.upstream_only));
        // A log with both kinds of lines (a sweep's and a serve's output in one file): its SERVE and CAPACITY
        // records after its RES ones, as for a serve log; they were dropped without a word.
        if (options.upstream_only)
          note_serve_lines_left_out(log[0], "--upstream", "upstream's records are the sweep's RES lines", source.err);
        else
          append_json_records(text, first, serve_json(log[0]));
      }
      open = output.write(text);
    }
  if (open && options.format == "json") open = output.write(first ? "]\n" : "\n]\n");
  const std::string capacities = serve_capacity_table(searches);
  if (open && !capacities.empty()) open = output.write("\n" + capacities);
  if (open) output.commit();
}

// What --compare writes, and with --fail-if-slower the runtime Error's text when B is slower (written after
// the output, so that the table or data says which combinations).
struct Rendered {
  std::string text;
  std::optional<std::string> failure;
};

Rendered render_compare(const ProcessOptions& options, const std::vector<ParsedLog>& a, const std::vector<ParsedLog>& b,
                        std::ostream& err) {
  if (options.format == "html") {
    check_html_size({&a, &b});
    return {compare_html(a, b, options.compare[0], options.compare[1], options.pairing.statistic), std::nullopt};
  }
  check_compare_keys(options, a, b);
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
  else if (slower > 0) err << lines;
  if (slower > 0)
    out.failure = fmt::format("--fail-if-slower {:g}: {} of {} combinations are slower beyond {:g}% and beyond 2x "
                              "their CoV",
                              *options.fail_percent, slower, comparison.pairs.size(), *options.fail_percent);
  return out;
}

// The output of the options that need every log at once (--compare, --format html, --baseline), every file
// read before anything is written (a bad file leaves no output).
Rendered render_whole(const ProcessOptions& options, std::vector<std::vector<LogFile>>& inputs, LogSource& source) {
  std::vector<std::vector<ParsedLog>> sets = read_all(inputs, source);
  require_logs(options, inputs, source);
  if (!options.compare.empty()) {
    for (size_t i = 0; i < 2; ++i) leave_out_serve_logs("--compare", options.compare[i], sets[i], source.err);
    return render_compare(options, sets[0], sets[1], source.err);
  }
  std::vector<ParsedLog> logs = joined(std::move(sets));
  if (options.baseline) {
    leave_out_serve_logs("--baseline", fmwork::joined(options.paths, " "), logs, source.err);
    return {render_baseline(options, logs), std::nullopt};
  }
  check_html_size({&logs});
  return {report_html(logs, options.paths, options.chart_scale), std::nullopt};
}

}  // namespace

void run_process(int argc, const char* const* argv, std::istream& in, std::ostream& out, std::ostream& err) {
  const std::optional<ProcessOptions> options = parse_options(argc, argv, out);
  if (!options) return;
  std::vector<std::vector<LogFile>> inputs = input_files(*options);
  if (options->out_file) refuse_output_among_inputs(*options->out_file, inputs);
  LogSource source{in, err, {}, std::nullopt, {}, 0, options->compare.empty() ? "--path" : "--compare"};
  Output output(out, options->out_file);
  std::optional<std::string> failure;
  if (streamed(*options)) {
    write_streamed(*options, inputs, source, output);
  } else {
    const Rendered rendered = render_whole(*options, inputs, source);
    output.open();
    if (output.write(rendered.text)) output.commit();
    failure = rendered.failure;
  }
  const std::optional<std::string> skipped = skipped_failure(source);
  if (failure && skipped) throw runtime_error(*failure + "; and " + *skipped);
  if (failure || skipped) throw runtime_error(failure ? *failure : *skipped);
}

}  // namespace fmwork
