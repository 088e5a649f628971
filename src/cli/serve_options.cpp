// `driver serve`'s option table and its readers (serve_options.hpp).
#include "fmwork/cli/serve_options.hpp"

#include <cmath>
#include <cstdlib>
#include <iterator>
#include <set>

#include <fmt/format.h>

#include "fmwork/base/error.hpp"
#include "fmwork/base/text_format.hpp"
#include "fmwork/workload/arrivals.hpp"

namespace fmwork {

namespace {

double number_in(const std::string& option, const std::string& text, double low, bool low_open, double high,
                 const std::string& what) {
  const std::optional<double> v = parse_decimal(text);  // strict: "0x10" is no 16, "inf" no number
  if (!v || (low_open ? !(*v > low) : !(*v >= low)) || *v > high)
    throw usage_error(fmt::format("--{} expects {}; got '{}'", option, what, excerpt(text)));
  return *v;
}

int64_t integer_in(const std::string& option, const std::string& text, int64_t low, int64_t high,
                   const std::string& what) {
  const bool digits = !text.empty() && text.size() <= 18 && text.find_first_not_of("0123456789") == std::string::npos;
  const int64_t v = digits ? std::stoll(text) : -1;
  if (!digits || v < low || v > high) throw usage_error(fmt::format("--{} expects {}; got '{}'", option, what, excerpt(text)));
  return v;
}

std::vector<double> rate_list(const std::string& text) {
  std::vector<double> rates;
  size_t start = 0;
  for (;;) {
    const size_t comma = text.find(',', start);
    const std::string part = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const std::optional<double> rate = parse_decimal(part);
    if (!rate)
      throw usage_error(fmt::format("--rates expects comma-separated arrival rates in queries a second, decimal "
                                    "numbers like 20,40,80; got '{}'", excerpt(part)));
    check_arrival_rate(*rate);  // the one range check, which the level's loop and its arrivals apply too
    rates.push_back(*rate);
    if (comma == std::string::npos || rates.size() > 64) break;
    start = comma + 1;
  }
  if (rates.size() > 64) throw usage_error("--rates lists more than 64 rates; give at most 64 levels");
  return rates;
}

const ServeOption kServe[] = {
    {"rates", "R[,R...]", "20,40,80",
     "open loop: one load level per rate, queries arriving by a seeded Poisson process at R queries/s",
     [](ServeArgs& a, const std::string& v) { a.rates = rate_list(v); }},
    {"users", "N", "4", "closed loop: N users, each sending its next query when its last one is answered",
     [](ServeArgs& a, const std::string& v) {
       a.users = integer_in("users", v, 1, 100000, "a number of users from 1 to 100000");
     }},
    {"max_wait_ms", "MS", "2",
     "the longest the oldest waiting query waits for a fuller batch once the device is free (default 0: a batch "
     "leaves at once, holding what queued while the device was busy, as Triton's and TEI's batchers do)",
     [](ServeArgs& a, const std::string& v) {
       a.max_wait_ms = number_in("max_wait_ms", v, 0, false, 60000, "milliseconds from 0 to 60000");
     }},
    {"max_tokens", "T", "4096",
     "a batch's token budget: size x longest (padded, sorted); 0 for none (default)",
     [](ServeArgs& a, const std::string& v) {
       a.max_tokens = integer_in("max_tokens", v, 0, int64_t{1} << 40, "a token count (0 for no budget)");
     }},
    {"warmup_s", "S", "1", "seconds of each level run before anything is counted (default 1)",
     [](ServeArgs& a, const std::string& v) {
       a.warmup_s = number_in("warmup_s", v, 0, false, 3600, "seconds from 0 to 3600");
     }},
    {"duration_s", "S", "5", "each level's measured part lasts at least S seconds (default 5)",
     [](ServeArgs& a, const std::string& v) {
       a.duration_s = number_in("duration_s", v, 0, true, 3600, "seconds above 0 and at most 3600");
     }},
    {"min_queries", "N", "100", "... and holds at least N queries (default 100)",
     [](ServeArgs& a, const std::string& v) {
       a.min_queries = integer_in("min_queries", v, 1, kMaxServeQueries / 2,
                                  fmt::format("a count from 1 to {}", kMaxServeQueries / 2));
     }},
    {"latency_bound", "pQ:MS", "p99:50",
     "every level's verdict holds the Q-th percentile of the latency to MS milliseconds, and the capacity search "
     "finds the highest rate that does",
     [](ServeArgs& a, const std::string& v) { a.bound = parse_latency_bound(v, "--latency_bound"); }},
    {"search_start", "R", "20", "the capacity search's first rate (default: the highest VALID level's, else 10)",
     [](ServeArgs& a, const std::string& v) {
       const std::optional<double> rate = parse_decimal(v);
       if (!rate) throw usage_error(fmt::format("--search_start expects a decimal rate like 20; got '{}'", excerpt(v)));
       check_arrival_rate(*rate, "--search_start");
       a.search_start = *rate;
     }},
    {"search_steps", "N", "12",
     "the most levels the capacity search runs doubling and bisecting (default 12); from a failing start it halves "
     "down to its floor (the start / 64) whatever N is",
     [](ServeArgs& a, const std::string& v) {
       a.search_steps = integer_in("search_steps", v, 1, 64, "a number of levels from 1 to 64");
     }},
    {"price_per_hour", "USD", "3.20", "the machine's price per hour: the CAPACITY line adds the cost per million queries",
     [](ServeArgs& a, const std::string& v) {
       a.price_per_hour = number_in("price_per_hour", v, 0, true, 1e6, "a price above 0, like 3.20");
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
      if (fixed->kind != FixedKind::flag && eq == std::string::npos) ++i;
      continue;
    }
    std::vector<std::string> names;
    for (const ServeOption& o : serve_options()) names.push_back(std::string("--") + o.name);
    for (const FixedOption& o : fixed_options()) names.push_back(std::string("--") + o.name);
    throw usage_error("unknown option --" + name + did_you_mean(closest_option("--" + name, names)) +
                      "; driver serve --help lists serve's options and the model's");
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
        throw usage_error(fmt::format("--{} needs a value, like --{} {}", name, name, option->example));
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
  for (const char* search : {"search_start", "search_steps"})
    if (seen.count(search) && !args.bound)
      throw usage_error(std::string("--") + search + " is the capacity search's: give --latency_bound too");
  // A level's length follows from its rate and the minimums: refused here, not found out after days.
  for (double rate : args.rates) check_level_length("--rates", rate, args.warmup_s, args.duration_s, args.min_queries);
  if (args.search_start)
    check_level_length("--search_start", *args.search_start, args.warmup_s, args.duration_s, args.min_queries);
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
  shape.batching = args.batching.value_or(Batching::padded);
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
  for (const ServeOption& o : serve_options()) {
    std::string left = fmt::format("  --{} {}", o.name, o.value_name);
    if (left.size() < 28) left.resize(28, ' ');
    else left += "  ";
    out += left + o.help + "\n";
  }
  out += "\nthe model's options are the sweep's (driver --help): --platform, --model_class, --model_name, --model_root,\n"
         "--eval, --compile, --seed, --quiet, --input_lengths, --batching and the --model:, --compile:, --torch.call:,\n"
         "--torch.set: sets. --input_sizes L is a fixed query length (default 128; with --input_lengths SPEC, the\n"
         "longest), --batch_sizes B the batcher's largest batch (default 8); --batching padded takes the queue in\n"
         "order, sorted the oldest query with the waiting ones nearest its length, unpadded runs the real tokens\n"
         "packed (native encoders); --reps is not used.\n"
         "\nexample:\n  driver serve --platform cpu --model_class BertModel --model_name all-MiniLM-L6-v2 --eval \\\n"
         "      --input_sizes 128 --batch_sizes 8 --rates 20,40,80 --latency_bound p99:50 --price_per_hour 3.20\n";
  return out;
}

}  // namespace fmwork
