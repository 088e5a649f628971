// The command line of `process`: its options, read by the one tokenizer (cli/cli.hpp) and checked against each
// other (the checks that need the logs read: check_compare_keys). Apart from process_command.cpp, which reads the files and
// writes what the options ask for. Private to src/report/.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "fmwork/cli/command_args.hpp"
#include "fmwork/log/log_records.hpp"
#include "fmwork/report/baseline.hpp"
#include "fmwork/report/compare.hpp"
#include "fmwork/report/html_report.hpp"

namespace fmwork {

// The command line of `process`: ProcessArgs as its rows read them, and its values in report/'s types.
struct ProcessOptions : ProcessArgs {
  CompareOptions pairing;               // --match, --ignore-meta, --statistic
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
