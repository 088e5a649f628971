// `process --compare A B`: the results of two sets of logs side by side, per matching combination, with a
// flag where the change is within the runs' own spread. No LibTorch here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fmwork/log/log_records.hpp"

namespace fmwork {

// One side's result of a combination: the RES latency (ms) and throughput, the STAT line's stddev_ms.
// Repeats of a campaign ("repeat": N, logs labelled repeat=k) are one side together: latency and
// throughput the median over the repeats, stddev_ms the sample stddev of their latencies (the spread
// between processes, which one run's STAT cannot show).
struct CompareSide {
  double latency_ms = 0, throughput = 0;
  std::optional<double> stddev_ms;  // nullopt when the record has no STAT line
  size_t repeats = 1;               // the records this side stands for
};

// A combination: the run (the campaign's run_id label, without the ".r<k>" of a repeat, when the logs have
// one, else "model class precision", precision "-" when unknown), input and batch. `text` is how the table names it (run, then
// input and batch right-aligned in 6 columns); combinations are ordered by it.
struct CompareKey {
  std::string run;
  int64_t input = 0, batch = 0;
  std::string text;
};

// A combination found in both A and B.
struct ComparedPair {
  CompareKey key;
  CompareSide a, b;
  double latency_ratio() const;     // B/A of latency (> 1: B is slower)
  double throughput_ratio() const;  // B/A of throughput
  // |B - A| of latency within the combined spread sqrt(stddev_A^2 + stddev_B^2); nullopt when a side has
  // no STAT line.
  std::optional<bool> noise() const;
};

struct Comparison {
  std::vector<ComparedPair> pairs;            // in the order of key.text
  std::vector<CompareKey> only_a, only_b;     // combinations found on one side only, in that order too
};

// The run a log belongs to across a campaign's repeats: its run_id label without the ".r<k>" that
// "repeat": N adds (the log's repeat label says k); the run_id as it is without a repeat label; "" without one.
std::string repeated_run(const ParsedLog& log);

// Matches the records of A and B by key. Records of one key from logs labelled `repeat` are gathered into
// one side (CompareSide); otherwise a later record of the same key replaces an earlier one (a re-run).
Comparison compare_logs(const std::vector<ParsedLog>& a, const std::vector<ParsedLog>& b);

// compare_logs() as a table, one row per pair: the key, A's and B's latency, the ratios, and the spread
// column ("noise", empty, or "?" as noise() says). Then a line counting the combinations found on one side
// only, and with repeats a line saying how many and what the columns then are.
std::string compare_report(const std::vector<ParsedLog>& a, const std::vector<ParsedLog>& b);

}  // namespace fmwork
