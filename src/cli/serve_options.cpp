// `driver serve`'s option table and its readers (serve_options.hpp).
#include "fmwork/cli/serve_options.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iterator>
#include <set>

#include <fmt/format.h>

#include "fmwork/base/error.hpp"
#include "fmwork/base/option_values.hpp"
#include "fmwork/base/text_format.hpp"
#include "fmwork/workload/arrivals.hpp"

namespace fmwork {

namespace {

// An arrival rate: a decimal, then the one range check of a rate (arrivals.hpp's bound), which the layers
// below hold as an invariant.
double arrival_rate(const std::string& option, const std::string& text, const std::string& expects) {
  const std::optional<double> rate = parse_decimal(text);
  if (!rate) throw usage_error(fmt::format("{} expects {}; got '{}'", option, expects, excerpt(text)));
  if (!(*rate > 0) || !(*rate <= kMaxArrivalRate))
    throw usage_error(fmt::format("{} {}: a rate must be a number of queries a second above 0 and at most {:g}",
                                  option, *rate, kMaxArrivalRate));
  return *rate;
}

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

std::vector<double> rate_list(const std::string& text) {
  std::vector<double> rates;
  read_items(text, 64, "--rates lists more than 64 rates; give at most 64 levels", [&](const std::string& part) {
    const double rate = arrival_rate("--rates", part,
                                     "comma-separated arrival rates in queries a second, decimal numbers like 20,40,80");
    // No rate runs twice (the capacity search takes a measured rate as it was): a repeat is a typo.
    if (std::find(rates.begin(), rates.end(), rate) != rates.end())
      throw usage_error(fmt::format("--rates lists {:g} twice; give each rate once", rate));
    rates.push_back(rate);
  });
  return rates;
}

const ServeOption kServe[] = {
    {{"rates", "R[,R...]", "20,40,80",
     "open loop: one load level per rate, queries arriving by a seeded Poisson process at R queries/s"},
     [](ServeArgs& a, const std::string& v) { a.rates = rate_list(v); }},
    {{"users", "N", "4", "closed loop: N users, each sending its next query when its last one is answered"},
     [](ServeArgs& a, const std::string& v) {
       a.users = read_integer("--users", v, {1, 100000, "a number of users from 1 to 100000"});
     }},
    {{"max_wait_ms", "MS", "2",
     "the longest the oldest waiting query waits for a fuller batch once the device is free (default 0: a batch "
     "leaves at once, holding what queued while the device was busy, as Triton's and TEI's batchers do)"},
     [](ServeArgs& a, const std::string& v) {
       a.max_wait_ms = read_decimal("--max_wait_ms", v, {0, false, 60000, "milliseconds from 0 to 60000"});
     }},
    {{"max_tokens", "T", "4096",
     "a batch's token budget: size x longest (padded, sorted); 0 for none (default)"},
     [](ServeArgs& a, const std::string& v) {
       a.max_tokens = read_integer("--max_tokens", v, {0, int64_t{1} << 40, "a token count (0 for no budget)"});
     }},
    {{"warmup_s", "S", "1", "seconds of each level run before anything is counted (default 1)"},
     [](ServeArgs& a, const std::string& v) {
       a.warmup_s = read_decimal("--warmup_s", v, {0, false, 3600, "seconds from 0 to 3600"});
     }},
    {{"duration_s", "S", "5", "each level's measured part lasts at least S seconds (default 5)"},
     [](ServeArgs& a, const std::string& v) {
       a.duration_s = read_decimal("--duration_s", v, {0, true, 3600, "seconds above 0 and at most 3600"});
     }},
    {{"min_queries", "N", "100", "... and holds at least N queries (default 100)"},
     [](ServeArgs& a, const std::string& v) {
       a.min_queries = read_integer("--min_queries", v, {1, kMaxServeQueries / 2,
                                  fmt::format("a count from 1 to {}", kMaxServeQueries / 2)});
     }},
    {{"latency_bound", "pQ:MS", "p99:50",
     "every level's verdict holds the Q-th percentile of the latency to MS milliseconds, and the capacity search "
     "finds the highest rate that does"},
     [](ServeArgs& a, const std::string& v) { a.bound = parse_latency_bound(v, "--latency_bound"); }},
    {{"search_start", "R", "20", "the capacity search's first rate (default: the highest VALID level's, else half the lowest INVALID one's, else 10)"},
     [](ServeArgs& a, const std::string& v) {
       a.search_start = arrival_rate("--search_start", v, "a decimal rate like 20");
     }},
    {{"search_steps", "N", "12",
     "the most levels the capacity search runs doubling and bisecting (default 12); from a failing start it halves "
     "down to its floor (the start / 64) whatever N is"},
     [](ServeArgs& a, const std::string& v) {
       a.search_steps = read_integer("--search_steps", v, {1, 64, "a number of levels from 1 to 64"});
     }},
    {{"search_budget_s", "S", "600",
     "the capacity search's time budget (default 180): a level that would end past it is not started, and the "
     "CAPACITY line gives the bracket found so far (result=partial), as it does on Ctrl-C"},
     [](ServeArgs& a, const std::string& v) {
       a.search_budget_s = read_decimal("--search_budget_s", v, {0, true, 7 * 24 * 3600.0, "seconds above 0, at most a week"});
     }},
    {{"price_per_hour", "USD", "3.20", "the machine's price per hour: the CAPACITY line adds the cost per million queries"},
     [](ServeArgs& a, const std::string& v) {
       // From 0.0001: the CAPACITY line's 4 decimals (1e-300 was written price_per_hour=0.0000).
       a.price_per_hour = read_decimal("--price_per_hour", v,
                                       {0.0001, false, 1e6, "a price from 0.0001 to 1000000 (USD an hour), like 3.20"});
     }},
};

const ServeOption* find_serve_option(const std::string& name) {
  for (const ServeOption& o : serve_options())
    if (name == o.name) return &o;
  return nullptr;
}

// The first "--" word of the words serve hands on that is neither the sweep's option nor a sub-option, read
// as the sweep's parser reads them (a sub-option's value, and a fixed option's value after a space, skipped):
// refused here, with the closest of serve's and the sweep's names, because the sweep's parser knows only its
// own (--rate was "unknown option --rate; the fixed options are ..." without --rates).
void refuse_unknown_options(const std::vector<std::string>& rest) {
  for (size_t i = 0; i < rest.size(); ++i) {
    const std::string& word = rest[i];
    if (word.rfind("--", 0) != 0) continue;
    const size_t eq = word.find('=');
    const std::string name = word.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
    if (name.find(':') != std::string::npos) {  // --SET:key VALUE: the next word is its value, whatever it is
      ++i;
      continue;
    }
    if (name == "cache" || name == "version") continue;  // the sweep's parser says where these belong
    if (const FixedOption* fixed = find_fixed_option(name)) {
      if (!fixed->flag() && eq == std::string::npos) ++i;
      continue;
    }
    std::vector<std::string> names = option_names(serve_options());
    for (const std::string& fixed : option_names(fixed_options())) names.push_back(fixed);
    throw usage_error(unknown_option("--" + name, names) + "; driver serve --help lists serve's options and the model's");
  }
}

}  // namespace

const std::vector<ServeOption>& serve_options() {
  static const std::vector<ServeOption> rows(std::begin(kServe), std::end(kServe));
  return rows;
}

ServeArgs take_serve_options(std::vector<std::string>& words) {
  refuse_control_characters(words);  // serve's words are echoed into the log too (FMWORK ARG)
  ServeArgs args;
  std::vector<std::string> rest;
  std::set<std::string> seen;
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string& word = words[i];
    const size_t eq = word.find('=');
    const std::string name = word.rfind("--", 0) == 0 ? word.substr(2, eq == std::string::npos ? std::string::npos : eq - 2) : "";
    const ServeOption* option = name.empty() ? nullptr : find_serve_option(name);
    if (!option) {
      rest.push_back(word);
      continue;
    }
    if (!seen.insert(name).second) throw usage_error("--" + name + " is given twice; give it once");
    std::string value;
    if (eq != std::string::npos) {
      value = word.substr(eq + 1);
    } else {
      if (i + 1 >= words.size() || words[i + 1].rfind("--", 0) == 0)
        throw usage_error(fmt::format("--{} needs a value, like {}", name, option->with_example()));
      value = words[++i];
    }
    option->read(args, value);
    args.arg_words.push_back("--" + name + " " + value);
  }
  // The sweep's own options, refused before the sweep's parser reads them (which would hold --warmup to the
  // --reps serve does not take, and say so in the sweep's words).
  for (const char* sweep_only : {"reps", "warmup", "isolate", "isolate_timeout", "save_outputs", "check_outputs",
                                 "profile", "sort_window"})
    for (const auto& word : rest)
      if (word == std::string("--") + sweep_only || word.rfind(std::string("--") + sweep_only + "=", 0) == 0)
        throw usage_error(fmt::format("--{} is the sweep's; driver serve runs load levels (driver serve --help)",
                                      sweep_only));
  refuse_unknown_options(rest);
  words = std::move(rest);
  if (!args.rates.empty() && args.users)
    throw usage_error("--rates (open loop) and --users (closed loop) are two scenarios: give one of them");
  if (args.rates.empty() && !args.users && !args.bound)
    throw usage_error("driver serve needs a load: --rates R[,R...] (open loop), --users N (closed loop), or "
                      "--latency_bound pQ:MS alone (the capacity search)");
  if (args.price_per_hour && !args.bound)
    throw usage_error("--price_per_hour prices the capacity the search finds: give --latency_bound too");
  for (const char* search : {"search_start", "search_steps", "search_budget_s"})
    if (seen.count(search) && !args.bound)
      throw usage_error(std::string("--") + search + " is the capacity search's: give --latency_bound too");
  // A level's length follows from its rate and the minimums: refused here, not found out after days.
  for (double rate : args.rates) check_level_length("--rates", rate, args);
  if (args.search_start) check_level_length("--search_start", *args.search_start, args);
  return args;
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

std::string serve_usage() {
  std::string out =
      "usage: driver serve --platform P --model_class C --model_name N [--input_sizes L] [--batch_sizes B]\n"
      "                    (--rates R[,R...] | --users N | --latency_bound pQ:MS) [OPTIONS]\n\n"
      "The serving scenario: queries arrive (open loop, seeded Poisson; or closed loop, N users), a dynamic batcher\n"
      "forms batches of at most --batch_sizes B queries (one size; default 8), and each query's latency runs from\n"
      "its scheduled arrival to its batch's outputs being ready on the device. One FMWORK SERVE line per load\n"
      "level (percentiles, achieved rate, batch sizes, busy fraction, VALID or INVALID); with --latency_bound,\n"
      "FMWORK CAPACITY: the highest rate that holds it, and the rates tried. docs/serving.md says more.\n\n"
      "serve's options:\n";
  for (const ServeOption& o : serve_options()) out += option_help_line("  " + o.usage(), 28, o.help);
  out += "\nthe model's options are the sweep's (driver --help): --platform, --model_class, --model_name, --model_root,\n"
         "--eval, --compile, --seed, --quiet, --input_lengths, --batching and the --model:, --compile:, --torch.call:,\n"
         "--torch.set: sets. --input_sizes L is a fixed query length (default 128; with --input_lengths SPEC, the\n"
         "longest), --batch_sizes B the batcher's largest batch (default 8); --batching padded takes the queue in\n"
         "order, sorted the oldest query with the waiting ones nearest its length, unpadded runs the real tokens\n"
         "packed (native encoders: their default with --input_lengths); --reps is not used.\n"
         "\nexample:\n  driver serve --platform cpu --model_class BertModel --model_name all-MiniLM-L6-v2 --eval \\\n"
         "      --input_sizes 128 --batch_sizes 8 --rates 20,40,80 --latency_bound p99:50 --price_per_hour 3.20\n";
  return out;
}

}  // namespace fmwork
