// `process --path TREE --baseline KEY=VALUE`: every configuration of a campaign as a speedup over the one
// named, per combination (input, batch), a campaign's repeats as their median. The pairs are --compare's
// (compare_logs with --match and --ignore-meta), so a speedup here and a ratio of --compare cannot disagree.
// No LibTorch here.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fmwork/log/log_records.hpp"
#include "fmwork/report/compare.hpp"

namespace fmwork {

// What --baseline names: a key (a META key such as dtype or threads, "model" for RES's model name, or a
// campaign's label such as model:torch_dtype: meta_value() reads it) and the baseline's value of it.
struct BaselineSpec {
  std::string key, value;
};

// "KEY=VALUE": the key up to the first '=', both non-empty. Throws a usage Error of one line otherwise.
BaselineSpec parse_baseline(const std::string& text);

// The runs of one other value of the key against the baseline's: A the baseline, B these.
struct BaselineGroup {
  std::string value;
  Comparison comparison;
};

struct BaselineTable {
  BaselineSpec spec;
  std::vector<std::string> paired_on;  // the keys a pair agrees on: those that tell configurations apart
  std::vector<std::string> differ;     // spec.key, then the keys that change with it: they differ within a pair
  std::vector<BaselineGroup> groups;   // one per other value of the key, in the order the logs first show them
  size_t unstated = 0;                 // logs with results that do not state the key: left out
  Statistic statistic = Statistic::median;  // what the latencies (and so the speedups) are made of
  Measure measure = Measure::latency;        // real_tokens where a run of mixed lengths is in a pair
};

// The table over `logs`. The candidate keys are the campaign's run name (label "run"), the keys --compare
// holds a pair to (significant_meta_keys()) and the logs' other labels (matrix columns; not run_id or
// repeat). Of those, a key that changes one to one with spec.key across the logs' results (the matrix
// column model:torch_dtype beside META dtype) differs within a pair like spec.key (`differ`); a key with one
// value everywhere, or one that changes one to one with a key already kept, cannot tell pairs apart and is
// left out; the rest are `paired_on`. Each group is compare_logs(baseline logs, the group's logs,
// {match: paired_on, ignore_meta: differ}); a log's value of the key is meta_value() of its first result.
// The run name is left out of the candidates where it is a function of the other keys (runs named after their
// configuration: pairing on it would pair nothing). "model" pairs by model_key() (compare.hpp), spec.value
// included. The measure is real_tokens for every pair when any pair is on it (compare_logs).
// Throws a usage Error of one line: a key no log states (with "did you mean" when one is close, else the
// keys there are), a value no run has (listing the values there are), no run with another value, or no pair at
// all though sizes are shared (naming the keys pairs agree on and each side's values of them); a runtime Error
// when no run shares an input and batch with the baseline's.
// `statistic` (process --statistic) is each side's latency, as compare_logs takes it (and refuses it).
BaselineTable baseline_table(const std::vector<ParsedLog>& logs, const BaselineSpec& spec,
                             Statistic statistic = Statistic::median);

// A pair's speedup over the baseline: the baseline's latency / its own (> 1: faster than the baseline), or on
// real tokens its real tokens per second / the baseline's: 1 / ComparedPair::time_ratio(), from the unrounded
// figures. Not throughput_ratio(): with repeats that
// is the ratio of median throughputs, which is not the inverse of the ratio of median latencies.
double speedup(const ComparedPair& pair);

// The table for people: a heading line (the baseline, what a speedup is, the keys pairs agree and differ
// on), one row per pair (the key's value, the pair's keys, input, batch, baseline and own latency in ms,
// the speedup, "noise" or "?" as ComparedPair::noise() says, the verdicts that are not ok: "baseline noisy,
// this contended"), then per group a line with the median, lowest and highest speedup (and how many rest on
// a verdict that is not ok), and lines counting what had no partner and the logs that do not state the key.
std::string baseline_text(const BaselineTable& table);

// A header, then one row per pair: key, value, pair, input, batch, baseline_latency_ms, latency_ms (with
// another statistic its heading: baseline_min_ms, min_ms), speedup,
// latency_ratio, baseline_repeats, repeats, baseline_cov, cov, noise (noise, beyond, ?), baseline_verdict,
// verdict (formats.hpp's verdict_of(); empty where the log cannot tell), measure (latency or
// real_tokens_per_s: what speedup is the ratio of), baseline_tokens_per_s, tokens_per_s. Numbers unrounded.
std::string baseline_csv(const BaselineTable& table);

// {"baseline": {"key", "value"}, "statistic": "median", "measure": "latency", "paired_on": [...], "differ": [...], "unstated_logs": N, "groups":
// [{"value", "speedup_median", "comparison": compare_json() of the group, each pair with "speedup" added}]}.
nlohmann::ordered_json baseline_json(const BaselineTable& table);

}  // namespace fmwork
