// `process --compare A B`: the results of two sets of logs side by side, per matching combination, with a
// flag where the change is within the runs' own spread. No LibTorch here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fmwork/domain/statistics.hpp"
#include "fmwork/log/log_records.hpp"

namespace fmwork {

// One side's result of a combination: the RES latency (ms) and throughput, the STAT line's stddev_ms.
// Repeats of a campaign ("repeat": N, logs labelled repeat=k) are one side together: latency and
// throughput the median over the repeats, stddev_ms the sample stddev of their latencies (the spread
// between processes, which one run's STAT cannot show).
// latency_ms is precise_latency_ms() (formats.hpp: STAT's p50 where it agrees with RES), throughput and
// tokens_per_s are computed from it, so that ratios are not those of RES's figures rounded to 0.1. cov is the
// verdict's (stddev / mean of the kept reps), for repeats their stddev / median; verdict the verdict's word,
// "" when the log cannot tell; for repeats the worst of theirs.
// tokens_per_s: of a run of mixed lengths (STAT's real_tokens, `mixed`), STAT's tokens_per_s, the kept reps'
// real tokens over their summed durations (the work done); else batch x input over latency_ms. tokens_stddev
// is its spread: tokens_per_s x cov (the verdict's cov, at equal work for mixed lengths), for repeats the sample
// stddev of theirs; nullopt without a cov.
struct CompareSide {
  double latency_ms = 0, throughput = 0;
  std::optional<double> stddev_ms;  // nullopt when the record has no STAT line
  size_t repeats = 1;               // the records this side stands for
  double tokens_per_s = 0;
  std::optional<double> cov;
  std::string verdict;
  bool mixed = false;
  std::optional<double> tokens_stddev;
};

// What a comparison sets side by side. `latency`: each side's latency (--statistic's), as for runs of one
// fixed length. `real_tokens`: each side's real tokens per second (CompareSide::tokens_per_s), whenever a
// run of mixed lengths (--input_lengths) is in it: each rep of such a run is a batch of its own lengths, so a
// median batch latency ranks the batching modes by how their batches are cut, not by the work they do (sorted
// 3.23x above unpadded 2.57x by median latency, where real tokens per second of the same requests gave
// unpadded 2.88x, sorted 2.25x).
enum class Measure { latency, real_tokens };
// "latency" or "real_tokens_per_s": the word the CSV and JSON write.
const char* measure_name(Measure measure);

// How --compare pairs records (process --compare's --match and --ignore-meta). Empty: today's pairing (the
// run id, else model, class and precision; then input and batch). Else pairs are made on input, batch and
// the `match` keys alone. Either way a pair whose significant_meta_keys() differ is refused unless the key
// is in `match` or `ignore_meta`.
struct CompareOptions {
  std::vector<std::string> match;        // META keys, "model", or input / batch (always matched)
  std::vector<std::string> ignore_meta;  // keys that may differ within a pair
  Statistic statistic = Statistic::median;  // each side's latency (repeats: the median of theirs)
  // An empty comparison is no Error (--baseline: one value's runs may pair with none of the baseline's while
  // another's do; it refuses a table with no pair at all itself).
  bool allow_empty = false;
  bool explicit_keys() const { return !match.empty() || !ignore_meta.empty(); }
};

// The keys whose difference makes two results different experiments, in their columns' order, as the log schema
// marks them (log_schema.hpp's compared_keys): dtype, threads, runtime (else compile), platform, attention,
// gelu_epilogue, model (RES's model name, normalised: model_key), batching and lengths (META keys of mixed-length
// runs: `--baseline batching=padded`). A key only one side states is not held against the other (upstream's logs
// have no META line).
const std::vector<std::string>& significant_meta_keys();

// A key's value for a record: "model" is RES's model name normalised (model_key), "dtype" the record's precision, "input" and
// "batch" its sizes, any other the last META line of the log that has it, else the log's campaign label of
// that name (model:torch_dtype, torch.call:set_num_threads: a matrix column); nullopt when the log does not say.
std::optional<std::string> meta_value(const ParsedLog& log, const CombinationRecord& record, const std::string& key);

// A key's value for a whole log: meta_value() of its first result; for a log with no result its last META
// line that has the key, else its label of that name; nullopt when it does not say.
std::optional<std::string> log_value(const ParsedLog& log, const std::string& key);

// Whether two columns of values (one per record, of two keys) determine each other: each value of x goes
// with one value of y and each value of y with one of x (META dtype and the matrix column model:torch_dtype).
// Such keys tell the same records apart: --baseline and the report's legends keep one of them.
bool one_to_one(const std::vector<std::string>& x, const std::vector<std::string>& y);

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
  Measure measure = Measure::latency;  // the comparison's (Comparison::measure)
  double latency_ratio() const;     // B/A of latency (> 1: B is slower)
  double throughput_ratio() const;  // B/A of throughput
  double tokens_ratio() const;      // B/A of tokens_per_s (> 1: B does more work a second)
  // B's time for the same work over A's (> 1: B is slower), on the measure: latency_ratio(), or 1 /
  // tokens_ratio(). What the speedups, --fail-if-slower and the pages' colors read.
  double time_ratio() const;
  // |B - A| within the combined spread, on the measure: latency against sqrt(stddev_A^2 + stddev_B^2);
  // tokens_per_s against sqrt(tokens_stddev_A^2 + tokens_stddev_B^2). nullopt when a side has no spread.
  std::optional<bool> noise() const;
};
// The spread cell of the text tables: "noise", "beyond" (beyond noise, as the CSV writes it) or "?" (no spread).
std::string spread_word(const ComparedPair& pair);

// The sides of a pair whose verdict (formats.hpp's verdict_of(): contended, noisy, unstable, too-few-reps) is
// not ok, as "A contended, B noisy" (the sides named a_name and b_name); "" when both are ok or their logs
// cannot tell. Every table that shows a ratio (--compare, --baseline, the HTML report) shows it beside the
// ratio: a ratio of untrustworthy numbers is no speedup.
std::string verdict_mark(const ComparedPair& pair, const std::string& a_name = "A", const std::string& b_name = "B");

struct Comparison {
  std::vector<ComparedPair> pairs;            // in the order of key.text
  std::vector<CompareKey> only_a, only_b;     // combinations found on one side only, in that order too
  Statistic statistic = Statistic::median;    // what the sides' latencies are (CompareOptions::statistic)
  Measure measure = Measure::latency;         // real_tokens when a pair's side ran mixed lengths
  // The model names paired by their normalised name (model_key) though they are written differently: A's
  // name, B's name ("models/enc/model.pt", "/home/u/enc/model.pt"). The tables say so under them.
  std::vector<std::pair<std::string, std::string>> renamed_models;
};
// The lines the tables write under their rows about the measure (real tokens per second: why) and the model
// names paired by their normalised name; "" when neither applies.
std::string measure_lines(const Comparison& comparison);

// How a model name pairs: model_short_name() (formats.hpp), the folder's or file's name rather than the path
// RES holds, so that a campaign's model (its path relative to the campaign's folder) pairs with a run by
// hand of the same model from elsewhere.
std::string model_key(const std::string& model_name);

// The run a log belongs to across a campaign's repeats: its run_id label without the ".r<k>" that
// "repeat": N adds (the log's repeat label says k); the run_id as it is without a repeat label; "" without one.
std::string repeated_run(const ParsedLog& log);

// The run a record pairs by without --match / --ignore-meta (CompareKey::run): repeated_run(log), else
// "model class precision".
std::string compare_run(const ParsedLog& log, const CombinationRecord& record);

// Matches the records of A and B by key. Records of one key from logs labelled `repeat` are gathered into
// one side (CompareSide); otherwise a later record of the same key replaces an earlier one (a re-run). Each
// side's latency is options.statistic's (STAT's or the kept REP durations'); throughput and tokens/s follow from it. A record
// that cannot give it is a usage Error naming the statistic, the log, the combination and what would do.
// Throws a usage Error of one line naming the key and both values: when one side has a key twice with a
// significant key differing that is not matched ("name threads in --match"); when a pair differs in a
// significant key not matched or ignored. Nothing paired (unless allow_empty): a runtime Error when a side has
// no result or the sides have no input and batch in common; else a usage Error naming the significant key that
// differs (with explicit_keys() false) or the runs each side pairs by, and what to pass (--ignore-meta KEY,
// --match input,batch). Where a pair's side ran mixed lengths the measure is real_tokens, and a statistic
// other than the median is a usage Error (no single rep's statistic is the work of the kept reps).
Comparison compare_logs(const std::vector<ParsedLog>& a, const std::vector<ParsedLog>& b,
                        const CompareOptions& options = {});

// The pairs where B is slower than A beyond `percent` and beyond the noise: time_ratio() - 1 above
// percent / 100 and above 2 x the larger cov of the two sides (a side without cov counts as 0), in
// table order. process --fail-if-slower PCT exits 1 when there is one.
std::vector<const ComparedPair*> slower_pairs(const Comparison& comparison, double percent);
// One line per slower pair: "<key text>: B/A latency 1.120x (+12.0% > 5%, 2 x CoV 3.1%)" ("B/A time per real
// token" on real tokens).
std::string slower_lines(const Comparison& comparison, double percent);

// compare_logs() as a table, one row per pair: the key, A's and B's latency and the ratios of latency and
// throughput (on real tokens: A's and B's real tokens per second, B/A of them and of latency), the spread
// column (spread_word()) and the verdicts column (verdict_mark()). Then measure_lines(), a line counting the
// combinations found on one side only, and with repeats a line saying how many and what the columns then are.
std::string compare_report(const std::vector<ParsedLog>& a, const std::vector<ParsedLog>& b);
std::string compare_report(const Comparison& comparison);

}  // namespace fmwork
