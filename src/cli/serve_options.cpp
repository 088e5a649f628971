// `driver serve`'s values: their readers and their checks against each other (serve_options.hpp).
#include "fmwork/cli/serve_options.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "fmwork/base/error.hpp"
#include "fmwork/base/option_values.hpp"
#include "fmwork/base/text_format.hpp"
#include "fmwork/workload/arrivals.hpp"

namespace fmwork {

namespace {

// A rate for a message, at 4 significant digits rounded away from the bound it must pass (up for a lowest rate,
// down for a highest), after a 1e-4 margin: a figure the message gives is one the check takes. Rounding to the
// nearest ("{:.4g}") gave 3e+05 for a highest rate of 299953.
double rate_to_give(double rate, bool up) {
  const double margined = up ? rate * 1.0001 : rate * 0.9999;
  const double unit = std::pow(10.0, std::floor(std::log10(margined)) - 3);
  return (up ? std::ceil(margined / unit) : std::floor(margined / unit)) * unit;
}

// A level out of arrivals.hpp's bounds, refused saying what would be right: --warmup_s and --duration_s when they
// alone make it last past kMaxLevelSeconds; `option` (--rates, --search_start) with the highest rate that fits
// when the level would schedule too many queries (above highest_level_rate); `option` with the slowest rate that
// fits, and the --min_queries that would fit where a lower one can, when the level would wait past
// kMaxLevelSeconds for its queries. Checked for every level the options name, before any runs.
void check_level_length(const std::string& option, double rate_per_s, const ServeArgs& args) {
  const double warmup_s = args.warmup_s, duration_s = args.duration_s;
  const int64_t min_queries = args.min_queries;
  if (warmup_s + duration_s > kMaxLevelSeconds)
    throw usage_error(fmt::format("--warmup_s {:g} and --duration_s {:g} make every level last at least {:g} s, past "
                                  "the {:g} s a level may last; give them at most {:g} s together",
                                  warmup_s, duration_s, warmup_s + duration_s, kMaxLevelSeconds, kMaxLevelSeconds));
  // Too many queries: a high rate over the warm-up and the minimum duration. Checked for every level before the
  // first one runs (a list's last rate was refused only once the levels before it had run).
  const double highest = highest_level_rate(warmup_s, duration_s, min_queries);
  if (rate_per_s > highest)
    throw usage_error(fmt::format("{} {:g}: warm-up and the minimum duration would schedule about {:.0f} queries, more "
                                  "than the {} a level may hold; give a rate of at most {:g} queries/s, or a shorter "
                                  "--warmup_s or --duration_s", option, rate_per_s,
                                  rate_per_s * (warmup_s + duration_s) + static_cast<double>(min_queries),
                                  kMaxServeQueries, rate_to_give(highest, false)));
  // Too long: a low rate waiting for --min_queries queries.
  const double seconds = expected_level_seconds(rate_per_s, warmup_s, duration_s, min_queries);
  if (seconds <= kMaxLevelSeconds) return;
  const double window = kMaxLevelSeconds - warmup_s;  // > 0: the first check holds warm-up below the bound
  const double slowest = static_cast<double>(min_queries) / window;
  // A lower --min_queries helps only down to 1 query: below 1 / window queries/s no minimum fits, and saying
  // "or a lower --min_queries" there pointed the wrong way.
  const auto fitting_minimum = static_cast<int64_t>(std::floor(rate_per_s * window));
  const std::string or_fewer =
      fitting_minimum >= 1 ? fmt::format(", or --min_queries {} or fewer", fitting_minimum) : std::string();
  throw usage_error(fmt::format("{} {:g}: a level at {:g} queries/s takes about {:.0f} s to hold --min_queries {}, "
                                "past the {:g} s a level may last; give a rate of at least {:g} queries/s{}", option,
                                rate_per_s, rate_per_s, seconds, min_queries, kMaxLevelSeconds, rate_to_give(slowest, true),
                                or_fewer));
}

}  // namespace

// An arrival rate: a decimal, then the one range check of a rate (arrivals.hpp's bound), which the layers
// below hold as an invariant.
double read_arrival_rate(const std::string& option, const std::string& text, const std::string& expects) {
  const std::optional<double> rate = parse_decimal(text);
  if (!rate) throw usage_error(fmt::format("{} expects {}; got '{}'", option, expects, excerpt(text)));
  if (!(*rate > 0) || !(*rate <= kMaxArrivalRate))
    throw usage_error(fmt::format("{} {}: a rate must be a number of queries a second above 0 and at most {:g}",
                                  option, *rate, kMaxArrivalRate));
  return *rate;
}

std::vector<double> read_rates(const std::string& text) {
  std::vector<double> rates;
  read_items(text, 64, "--rates lists more than 64 rates; give at most 64 levels", [&](const std::string& part) {
    const double rate = read_arrival_rate("--rates", part,
                                     "comma-separated arrival rates in queries a second, decimal numbers like 20,40,80");
    // No rate runs twice (the capacity search takes a measured rate as it was): a repeat is a typo.
    if (std::find(rates.begin(), rates.end(), rate) != rates.end())
      throw usage_error(fmt::format("--rates lists {:g} twice; give each rate once", rate));
    rates.push_back(rate);
  });
  return rates;
}

void check_serve_args(const ServeArgs& args, const std::vector<std::string>& given) {
  if (!args.rates.empty() && args.users)
    throw usage_error("--rates (open loop) and --users (closed loop) are two scenarios: give one of them");
  if (args.rates.empty() && !args.users && !args.bound)
    throw usage_error("driver serve needs a load: --rates R[,R...] (open loop), --users N (closed loop), or "
                      "--latency_bound pQ:MS alone (the capacity search)");
  if (args.price_per_hour && !args.bound)
    throw usage_error("--price_per_hour prices the capacity the search finds: give --latency_bound too");
  for (const char* search : {"search_start", "search_steps", "search_budget_s"})
    if (std::find(given.begin(), given.end(), search) != given.end() && !args.bound)
      throw usage_error(std::string("--") + search + " is the capacity search's: give --latency_bound too");
  // A level's length follows from its rate and the minimums: refused here, not found out after days.
  for (double rate : args.rates) check_level_length("--rates", rate, args);
  if (args.search_start) check_level_length("--search_start", *args.search_start, args);
}

ServeShape serve_shape(const FixedArgs& args, const ServeArgs& serve) {
  if (args.batch_sizes.size() > 1)
    throw usage_error("driver serve takes one --batch_sizes: the largest batch the batcher forms (default 8)");
  if (args.input_sizes.size() > 1)
    throw usage_error("driver serve takes one --input_sizes (a fixed query length); for a mix give --input_lengths");
  ServeShape shape;
  shape.max_batch = args.batch_sizes.empty() ? 8 : args.batch_sizes[0];
  shape.lengths = args.lengths ? *args.lengths
                               : parse_length_spec(std::to_string(args.input_sizes.empty() ? 128 : args.input_sizes[0]),
                                                   "--input_sizes");
  if (serve.max_tokens > 0 && serve.max_tokens < shape.lengths.max)
    throw usage_error(fmt::format("--max_tokens {} is below the longest query ({} tokens), which could never be served; "
                                  "give at least {}", serve.max_tokens, shape.lengths.max, shape.lengths.max));
  return shape;
}

}  // namespace fmwork
