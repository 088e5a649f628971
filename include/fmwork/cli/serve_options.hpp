// The values of `driver serve`'s own options (the serving scenario, docs/serving.md) as ServeArgs, their
// readers and their checks against each other. Their rows are options.hpp's one table, beside the model's
// options it shares with the sweep (fixed_options.hpp); in serve, --batch_sizes names the batcher's largest
// batch and --input_sizes a fixed query length, and --reps is not used.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fmwork/cli/fixed_options.hpp"
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
};

// The readers of serve's rates (options.cpp's rows call them): a decimal above 0 and at most
// kMaxArrivalRate, `expects` saying what the option takes when it is no decimal; a comma list of at most 64
// distinct rates. A usage Error naming the option.
double read_arrival_rate(const std::string& option, const std::string& text, const std::string& expects);
std::vector<double> read_rates(const std::string& text);

// serve's options read (ServeArgs as the rows filled them; `given`: the names of the options given, without
// "--") checked together: --rates or --users (not both), or --latency_bound alone (a search only);
// --price_per_hour and the --search_ options need --latency_bound; every level the options name ends within
// arrivals.hpp's bounds. A usage Error saying what would be right.
void check_serve_args(const ServeArgs& args, const std::vector<std::string>& given);

// What the sweep's options say in serve: the batcher's largest batch (--batch_sizes' one size, default 8) and the
// queries' lengths (--input_lengths, else --input_sizes' one size as fixed, default 128). --batching, or its
// default, is the setup's (load_bench and finish_bench: the default depends on the model).
// A usage Error for more than one batch or input size, and a --max_tokens below the longest query.
struct ServeShape {
  int64_t max_batch = 8;
  LengthSpec lengths;
};
ServeShape serve_shape(const FixedArgs& args, const ServeArgs& serve);

}  // namespace fmwork
