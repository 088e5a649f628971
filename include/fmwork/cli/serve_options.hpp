// The options of `driver serve` beside the model's (the serving scenario, docs/serving.md): one table of rows
// (name, value, example, help, reader), which the word sorter, the checks and their messages, `driver serve
// --help` and docs/options.md all read. The model, platform and runtime options are the sweep's
// (fixed_options.hpp); in serve, --batch_sizes names the batcher's largest batch and --input_sizes a fixed
// query length, and --reps is not used.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fmwork/cli/fixed_options.hpp"
#include "fmwork/cli/option_row.hpp"
#include "fmwork/workload/latency_stats.hpp"
#include "fmwork/workload/lengths.hpp"

namespace fmwork {

// Defaults: short, as LoadGen's are for a quick look (its own minimums are 600 s and 270336 queries).
struct ServeArgs {
  std::vector<double> rates;           // --rates: open-loop levels, queries/s
  std::optional<int64_t> users;        // --users: a closed-loop level of N users
  double max_wait_ms = 0;              // --max_wait_ms (0: a batch leaves as soon as the device is free)
  int64_t max_tokens = 0;              // --max_tokens (0: no token budget)
  double warmup_s = 1;                 // --warmup_s
  double duration_s = 5;               // --duration_s
  int64_t min_queries = 100;           // --min_queries
  std::optional<LatencyBound> bound;   // --latency_bound: verdicts hold it; with it the capacity search runs
  std::optional<double> price_per_hour;  // --price_per_hour: the machine's price, for the cost per million
  std::optional<double> search_start;  // --search_start: the search's first rate
  int64_t search_steps = 12;           // --search_steps: the most levels the search runs
  double search_budget_s = 180;        // --search_budget_s: no search level starts that would end past it
  std::vector<std::string> arg_words;  // as typed, "--rates 20,40": echoed as FMWORK ARG lines
};

// One option of `driver serve`: its row (name, value name, example, help) and its reader, which reads the value
// through base/option_values.hpp's readers and stores it (a usage Error naming the option).
struct ServeOption : OptionRow {
  void (*read)(ServeArgs&, const std::string& value);
};

// The rows, in --help's order.
const std::vector<ServeOption>& serve_options();

// Takes the serve options out of `words` (the words after `serve`), read and stored; returns the other words,
// in order, for parse_command_line. Then checks them together: --rates or --users (not both), or
// --latency_bound alone (a search only); --price_per_hour and --search_start need --latency_bound. A usage
// Error for an option given twice or without its value, what each reader refuses, and a sweep-only option
// among the other words (--reps, --warmup, --isolate, --isolate_timeout, --save_outputs, --check_outputs,
// --profile, --sort_window): before the sweep's parser, whose checks of them speak of the sweep. An option
// that is neither serve's nor the sweep's is refused here too, with the closest of both tables' names
// ("unknown option --rate; did you mean --rates?").
ServeArgs take_serve_options(std::vector<std::string>& words);

// The sweep's required options that serve's command line does without (parse_command_line's `not_required`):
// --reps is not used, --input_sizes and --batch_sizes have defaults there (serve_shape).
inline const std::vector<std::string>& serve_not_required() {
  static const std::vector<std::string> names = {"reps", "input_sizes", "batch_sizes"};
  return names;
}

// What the sweep's options say in serve: the batcher's largest batch (--batch_sizes' one size, default 8) and the
// queries' lengths (--input_lengths, else --input_sizes' one size as fixed, default 128). --batching, or its
// default, is the setup's (prepare_bench: the default depends on the model).
// A usage Error for more than one batch or input size, and a --max_tokens below the longest query.
struct ServeShape {
  int64_t max_batch = 8;
  LengthSpec lengths;
};
ServeShape serve_shape(const FixedArgs& args, const ServeArgs& serve);

// `driver serve --help`: what it does, its options and the model options it shares with the sweep.
std::string serve_usage();

}  // namespace fmwork
