// The report's charts section (report_html's "charts", html_report.hpp says what it shows): the runs as
// the report names them (RunView), grouped by model, their series, charts and the tables of numbers beside
// them. Apart from html_report.cpp so that each file holds one concern. Private to src/report/.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "fmwork/log/log_records.hpp"
#include "fmwork/report/svg_chart.hpp"

namespace fmwork::report_page {

// One log as the report shows it.
struct RunView {
  const ParsedLog* log = nullptr;
  size_t style = 0;
  std::string name;    // unique among the logs of the page
  std::string anchor;  // the id of its section
  std::string file;    // its path under the folder read, or as named
};

// What the repeats of one run share: the folder of their logs and the run without ".r<k>".
std::string repeat_key(const ParsedLog& log);

// The section: one group per model, charts against batch and input size, a table beside each chart.
std::string charts_section(const std::vector<RunView>& views, ChartScale scale);

}  // namespace fmwork::report_page
