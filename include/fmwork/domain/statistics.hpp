// The statistics a side of a comparison may stand for (process --statistic): one table that --statistic's row
// (cli/options.cpp: its choices and help), the outputs' headings (report/), docs/campaigns.md and the tests read.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace fmwork {

// What latency a side stands for (process --statistic, for --compare and --baseline): the median of the kept
// reps (the default: what RES reports), or a statistic that a busy machine moves less. A neighbour that takes
// the CPU for part of a run slows some reps, not the fastest: min and p10 keep closer to the machine's own
// speed than the median, and are what a comparison under load should use (three loaded runs of one campaign
// gave bf16 speedups of 3.19x, 8.50x and 1.85x by the median; 3.3x on a quiet machine).
enum class Statistic { median, min, p10, mean };

// The table's rows, X(id, name, heading, help): name is what --statistic takes.
#define FMWORK_STATISTICS(X)                                                                                       \
  X(Statistic::median, "median", "latency_ms", "the median of the kept reps (RES's latency; the default)")          \
  X(Statistic::min, "min", "min_ms", "the fastest kept rep: what a neighbour taking the CPU moves least")            \
  X(Statistic::p10, "p10", "p10_ms",                                                                                \
    "the 10th percentile of the kept reps (REP lines): near the fastest, not one lucky rep")                        \
  X(Statistic::mean, "mean", "mean_ms", "the mean of the kept reps: every slow rep counts")

// One row of the statistics' table: its name for --statistic, the column heading ("p10_ms"), and what it is.
struct StatisticSpec {
  Statistic id;
  const char* name;
  const char* heading;
  const char* help;
};

inline const std::vector<StatisticSpec>& statistics() {
#define FMWORK_STATISTIC_ROW(id, name, heading, help) {id, name, heading, help},
  static const std::vector<StatisticSpec> table = {FMWORK_STATISTICS(FMWORK_STATISTIC_ROW)};
#undef FMWORK_STATISTIC_ROW
  return table;
}

inline const StatisticSpec& statistic_spec(Statistic statistic) {
  for (const StatisticSpec& s : statistics())
    if (s.id == statistic) return s;
  return statistics().front();
}

// The statistic `name` names; nullopt for any other word.
inline std::optional<Statistic> statistic_named(const std::string& name) {
  for (const StatisticSpec& s : statistics())
    if (name == s.name) return s.id;
  return std::nullopt;
}

}  // namespace fmwork
