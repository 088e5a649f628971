// The command line of `process`: its options, parsed with CLI11 and checked against each other (the checks
// that need the logs read: check_compare_keys). Apart from process_command.cpp, which reads the files and
// writes what the options ask for. Private to src/report/.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "fmwork/log/log_records.hpp"
#include "fmwork/report/baseline.hpp"
#include "fmwork/report/compare.hpp"
#include "fmwork/report/html_report.hpp"

namespace fmwork {

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

// The options, or nullopt after --help or --version has been written to `out`. Throws a usage Error for a bad
// option or value, or options that exclude each other (saying which, and what is close to a misspelt one).
std::optional<ProcessOptions> parse_options(int argc, const char* const* argv, std::ostream& out);

// The keys --match and --ignore-meta may name, once the logs are read: model, input, batch, the META
// keys of the field table and of the logs, and the campaign label keys (matrix columns). An unknown key
// would pair nothing differently, silently: a usage Error listing them.
void check_compare_keys(const ProcessOptions& options, const std::vector<ParsedLog>& a, const std::vector<ParsedLog>& b);

}  // namespace fmwork
