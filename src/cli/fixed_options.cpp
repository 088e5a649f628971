// The fixed options' table (fixed_options.hpp): the rows, how each kind of value is checked and read, the
// FixedArgs they fill, and what `args.NAME` and the args JSON show of them.
#include "fmwork/cli/fixed_options.hpp"

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <limits>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "fmwork/base/error.hpp"
#include "fmwork/base/option_values.hpp"
#include "fmwork/hf/config.hpp"

namespace fmwork {

namespace {

// The largest size a list takes: 18 digits, so that it is read into an int64_t without overflow.
constexpr const char* kMaxSizeText = "999999999999999999";

std::vector<int64_t> parse_sizes(const std::string& option, const std::string& text) {
  std::vector<int64_t> sizes;
  std::set<int64_t> seen;
  read_items(text, std::numeric_limits<size_t>::max(), "", [&](const std::string& part) {
    const std::optional<int64_t> size = parse_digits(part);
    if (!size && !part.empty() && part.find_first_not_of("0123456789") == std::string::npos)  // past 18 digits
      throw usage_error(option + " " + excerpt(part) + " is out of range: a size is from 1 to " + kMaxSizeText);
    if (!size || *size <= 0)
      throw usage_error(option + " expects comma-separated positive integers like 64,128; got '" + excerpt(text) + "'");
    // The sweep would run the combination twice and the log would hold two RES lines for it.
    if (!seen.insert(*size).second)
      throw usage_error(option + " lists " + std::to_string(*size) + " twice in '" + excerpt(text) +
                        "'; give each size once");
    sizes.push_back(*size);
  });
  return sizes;
}

int64_t parse_reps(const std::string& option, const std::string& text) {
  const IntegerRule rule{2, kMaxReps, "an integer (at least 2)", std::string(" (each rep's timestamps are kept in memory)"),
                         true};
  const std::optional<int64_t> reps = parse_python_int(text);
  if (reps && *reps < 2)
    throw usage_error(option + " must be at least 2, got " +
                      (*reps == std::numeric_limits<int64_t>::min() ? excerpt(text, 40) : std::to_string(*reps)) +
                      ": the first max(int(0.2*reps),1) reps are dropped as warm-up, so at least 2 are needed");
  return read_integer(option, text, rule);
}

int64_t parse_count(const std::string& option, const std::string& text, const char* unit) {
  return read_integer(option, text, {0, kMaxReps - 1, "a non-negative integer", std::string(unit), true});
}

uint64_t parse_seed(const std::string& option, const std::string& text) {
  uint64_t seed = 0;
  bool ok = !text.empty() && text.size() <= 20 && text.find_first_not_of("0123456789") == std::string::npos;
  if (ok) {
    try {
      seed = std::stoull(text);
    } catch (const std::exception&) {  // above 2^64 - 1
      ok = false;
    }
  }
  if (!ok) throw usage_error(option + " expects a non-negative integer below 2^64; got '" + excerpt(text) + "'");
  return seed;
}

// os.path.join(root, name) for two parts.
std::string path_join(const std::string& root, const std::string& name) {
  if (!name.empty() && name[0] == '/') return name;
  if (root.empty() || root.back() == '/') return root + name;
  return root + "/" + name;
}

Value int_list(const std::vector<int64_t>& values) {
  std::vector<Value> items;
  for (int64_t v : values) items.push_back(Value::of_int(v));
  return Value::of_list(std::move(items));
}

Value optional_string(const std::optional<std::string>& text) { return text ? Value::of_string(*text) : Value::none(); }

using A = FixedArgs;
using T = const std::string&;

// The readers and `args.NAME` of the rows alike: a flag, a folder of ours, a count of ours, a required word.
template <bool FixedArgs::*field>
void set_flag(A& a, T, T) { a.*field = true; }
template <bool FixedArgs::*field>
std::optional<Value> flag_value(const A& a) { return Value::of_bool(a.*field); }
template <std::optional<std::string> FixedArgs::*field>
void read_folder(A& a, T option, T text) { a.*field = read_text(option, text, "a folder"); }
template <std::optional<std::string> FixedArgs::*field>
std::optional<Value> text_value(const A& a) { return optional_string(a.*field); }
template <std::string FixedArgs::*field>
std::optional<Value> word_value(const A& a) { return Value::of_string(a.*field); }
template <std::optional<int64_t> FixedArgs::*field>
std::optional<Value> count_value(const A& a) { return (a.*field) ? Value::of_int(*(a.*field)) : Value::none(); }

// Each count in its own unit (its row's): --warmup's bound involves --reps, --isolate_timeout's is seconds (0 is
// refused by fixed_args_from), --sort_window's requests (it said "seconds" too).

// An array of constants (no constructor runs), so the table is whole before any other file's statics use it;
// fixed_options() holds the one copy whose rows everything else points to.
const FixedOption kFixed[] = {
    {{"platform", "P", "cpu", "cpu, cuda, cuda:N, or the name of a device plugin"}, Presence::required, Origin::upstream,
     [](A& a, T o, T t) { a.platform = read_text(o, t, "cpu, cuda, cuda:N or a plugin name"); },
     word_value<&A::platform>},
    {{"model_class", "C", "BertModel",
     "the architecture (BertModel, RobertaModel, AutoModel, ...); labels the RES line"},
     Presence::required, Origin::upstream,
     [](A& a, T o, T t) { a.model_class = read_text(o, t, "the model's class, e.g. BertModel", true); },
     word_value<&A::model_class>},
    {{"model_root", "R", "/models", "folder the model name is relative to"}, Presence::optional, Origin::upstream,
     [](A& a, T, T t) { a.model_root = t; }, text_value<&A::model_root>},
    {{"model_name", "N", "bert-base-uncased",
     "the model: a Hugging Face model folder, an AOTInductor package (.pt2) or a TorchScript file (under --model_root)"},
     Presence::required, Origin::upstream,
     [](A& a, T o, T t) { a.model_name = read_text(o, t, "the model's name or path", true); },
     word_value<&A::model_name>},
    {{"compile", "", "", "compile the model before the sweep (see --compile:KEY)"}, Presence::optional, Origin::upstream,
     set_flag<&A::compile>, flag_value<&A::compile>},
    {{"eval", "", "", "put the model in evaluation mode"}, Presence::optional, Origin::upstream,
     set_flag<&A::eval>, flag_value<&A::eval>},
    {{"input_sizes", "I[,I...]", "64,128", "comma-separated sequence lengths, e.g. 128,512"}, Presence::required, Origin::upstream,
     [](A& a, T o, T t) { a.input_sizes = parse_sizes(o, t); }, [](const A& a) { return std::optional(int_list(a.input_sizes)); }},
    {{"batch_sizes", "B[,B...]", "1,8", "comma-separated batch sizes, e.g. 1,8"}, Presence::required, Origin::upstream,
     [](A& a, T o, T t) { a.batch_sizes = parse_sizes(o, t); }, [](const A& a) { return std::optional(int_list(a.batch_sizes)); }},
    {{"reps", "N", "20",
     "repetitions per combination (at least 2; the first max(int(0.2*reps),1) are warm-up)"},
     Presence::required, Origin::upstream,
     [](A& a, T o, T t) { a.reps = parse_reps(o, t); }, [](const A& a) { return std::optional(Value::of_int(a.reps)); }},
    {{"seed", "S", "7",
     "seed of the random input tokens (ours; fixed by default so runs repeat)"},
     Presence::optional, Origin::ours,
     [](A& a, T o, T t) { a.seed = parse_seed(o, t), a.seed_given = true; },
     [](const A& a) -> std::optional<Value> {
       if (!a.seed_given) return Value::none();
       if (a.seed > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return std::nullopt;
       return Value::of_int(static_cast<int64_t>(a.seed));
     },
     [](const A& a) { return std::to_string(a.seed); }},
    {{"save_outputs", "DIR", "outputs",
     "folder: after each combination's last rep, write <input>x<batch>.safetensors with its inputs and outputs (ours)"},
     Presence::optional, Origin::ours,
     read_folder<&A::save_outputs>, text_value<&A::save_outputs>},
    {{"check_outputs", "DIR", "outputs",
     "folder of such files: feed their inputs, compare the outputs, print FMWORK CHECK lines (ours; "
     "--check_outputs:atol@ / rtol@ / cosine@ set the tolerances)"},
     Presence::optional, Origin::ours,
     read_folder<&A::check_outputs>, text_value<&A::check_outputs>},
    {{"profile", "DIR", "prof",
     "folder: after each combination's timed reps, one more rep under LibTorch's profiler writes "
     "<input>x<batch>.trace.json (Chrome trace: Perfetto, chrome://tracing) and FMWORK PROFILE lines of its top "
     "operators; the timed reps are not profiled (ours)"},
     Presence::optional, Origin::ours,
     read_folder<&A::profile>, text_value<&A::profile>},
    {{"isolate", "", "",
     "run each batch x input combination in a child process that loads the model itself (ours)"},
     Presence::optional, Origin::ours,
     set_flag<&A::isolate>, flag_value<&A::isolate>},
    {{"isolate_timeout", "S", "600",
     "with --isolate: a child still running after S seconds (a hung kernel, a stopped process) is killed and its "
     "combination is a FAIL line; the sweep goes on (ours; default: no limit)"},
     Presence::optional, Origin::ours,
     [](A& a, T o, T t) { a.isolate_timeout = parse_count(o, t, " seconds"); },
     count_value<&A::isolate_timeout>},
    {{"warmup", "N", "4",
     "leave the first N reps of each combination out of STAT and the noise verdicts instead of upstream's "
     "max(int(0.2*reps),1); RES keeps upstream's rule (ours; echoed as META warmup=)"},
     Presence::optional, Origin::ours,
     [](A& a, T o, T t) { a.warmup = parse_count(o, t, " (and below --reps)"); },
     count_value<&A::warmup>},
    {{"input_lengths", "SPEC", "uniform:16,64",
     "each request's length drawn from a distribution instead of every row filled: N, uniform:MIN,MAX, "
     "lognormal:MEDIAN,MAX[,SIGMA] (SIGMA 0.8 by default) or file:PATH (one token count per line, drawn with "
     "replacement); seeded by --seed, drawn outside the timed region; each --input_sizes value is then the "
     "combination's longest length (ours)"},
     Presence::optional, Origin::ours,
     [](A& a, T o, T t) { a.input_lengths = t, a.lengths = parse_length_spec(t, o); },
     text_value<&A::input_lengths>},
    {{"batching", "MODE", "padded",
     "how a batch of mixed lengths runs: unpadded (the real tokens packed; the default where the model runs it: "
     "native encoders), padded (to its longest, the mask marking the padding; the default elsewhere) or sorted "
     "(a window of requests sorted by length, then cut into batches) (ours)"},
     Presence::optional, Origin::ours,
     [](A& a, T o, T t) { a.batching = parse_batching(t, o); },
     [](const A& a) {
       return std::optional(a.batching ? Value::of_string(std::string(batching_name(*a.batching))) : Value::none());
     }},
    {{"sort_window", "N", "1024",
     "with --batching sorted: the requests sorted together before they are cut into batches, rounded up to whole "
     "batches (default: all of the kept reps' requests, as one encode() call over them; the warm-up's apart) (ours)"},
     Presence::optional, Origin::ours,
     [](A& a, T o, T t) { a.sort_window = parse_count(o, t, " requests"); },
     count_value<&A::sort_window>},
    {{"quiet", "", "",
     "no progress on stderr (by default: a live line on a terminal, else a line per combination and setup step; "
     "errors and warnings still go there) (ours)"},
     Presence::optional, Origin::ours,
     set_flag<&A::quiet>, flag_value<&A::quiet>},
};

// The length options against each other and the sizes: lengths within every combination's input size, a
// sort window that holds at least one batch and is only given to the sorted mode.
void check_lengths_options(const FixedArgs& args) {
  if (args.lengths && !args.input_sizes.empty()) {
    const int64_t smallest = *std::min_element(args.input_sizes.begin(), args.input_sizes.end());
    check_lengths_fit(*args.lengths, smallest, "--input_lengths", "--input_sizes'");
  }
  if (args.sort_window && args.batching != Batching::sorted)
    throw usage_error("--sort_window sizes --batching sorted's window: give --batching sorted too, or leave it out");
  if (args.batching != Batching::sorted || args.batch_sizes.empty()) return;
  const int64_t largest = *std::max_element(args.batch_sizes.begin(), args.batch_sizes.end());
  if (args.sort_window && *args.sort_window < largest)
    throw usage_error(fmt::format("--sort_window {} holds less than one batch of {}; give at least {}",
                                  *args.sort_window, largest, largest));
  // The default window is every rep's requests of a combination, drawn and sorted at once: --reps 1000000 of
  // --batch_sizes 4096 asked for 4e9 lengths and ended as a bare "std::bad_alloc" FAIL line. Compared by
  // division: the product can pass int64. (driver serve has no reps: its batcher sorts what waits.)
  if (!args.sort_window && args.reps > 0 && largest > kMaxSortWindow / args.reps)
    throw usage_error(fmt::format("--batching sorted sorts a combination's requests of all its reps together by "
                                  "default: --batch_sizes {} x --reps {} is more than the {} requests a window may "
                                  "hold; give --sort_window N (at least one batch, {}) or fewer --reps",
                                  largest, args.reps, kMaxSortWindow, largest));
}

}  // namespace

const std::vector<FixedOption>& fixed_options() {
  static const std::vector<FixedOption> rows(std::begin(kFixed), std::end(kFixed));
  return rows;
}

const FixedOption* find_fixed_option(std::string_view name) {
  for (const auto& option : fixed_options())
    if (name == option.name) return &option;
  return nullptr;
}

void read_fixed_value(const FixedOption& option, FixedArgs& args, const std::string& text) {
  option.read(args, option.option(), text);
}

void check_positions_before_loading(const FixedArgs& args, bool padded_to_input) {
  const std::optional<int64_t> limit = hf::folder_max_input_size(args.model_path);
  if (!limit) return;
  const std::string positions = fmt::format("the positions of {}/config.json:", excerpt(args.model_path, 200));
  if (args.lengths && !padded_to_input) return check_lengths_fit(*args.lengths, *limit, "--input_lengths", positions);
  if (args.input_sizes.empty()) return;
  const int64_t longest = *std::max_element(args.input_sizes.begin(), args.input_sizes.end());
  if (longest <= *limit) return;
  throw usage_error(fmt::format("--input_sizes {} is beyond {} {} tokens; give --input_sizes up to {}", longest,
                                positions, *limit, *limit));
}

void check_output_folders_differ(const FixedArgs& args) {
  std::error_code ec;
  if (args.save_outputs && args.check_outputs && std::filesystem::equivalent(*args.save_outputs, *args.check_outputs, ec))
    throw usage_error("--save_outputs and --check_outputs name the same folder; the check would read what it writes");
}

FixedArgs fixed_args_from(const std::vector<std::pair<const FixedOption*, std::string>>& given,
                          const std::vector<std::string>& not_required) {
  auto given_text = [&](const FixedOption& option) -> const std::string* {
    for (const auto& [which, text] : given)
      if (which == &option) return &text;
    return nullptr;
  };
  std::vector<std::string> missing;
  for (const auto& option : fixed_options())
    if (option.required() && !given_text(option) &&
        std::find(not_required.begin(), not_required.end(), option.name) == not_required.end())
      missing.push_back(std::string("--") + option.name);
  if (missing.size() == 1) throw usage_error("missing required option " + missing[0]);
  if (!missing.empty()) throw usage_error("missing required options " + fmt::format("{}", fmt::join(missing, ", ")));
  FixedArgs args;
  for (const auto& option : fixed_options())
    if (const std::string* text = given_text(option)) read_fixed_value(option, args, *text);
  if (args.isolate_timeout && *args.isolate_timeout == 0)
    throw usage_error("--isolate_timeout 0 would kill every child at once; give the seconds a combination may take, "
                      "at least 1");
  if (args.isolate_timeout && !args.isolate)
    throw usage_error("--isolate_timeout bounds --isolate's children: give --isolate too, or leave it out");
  if (args.warmup && *args.warmup >= args.reps)
    throw usage_error(fmt::format("--warmup {} leaves none of --reps {} to time; give at most {} (or more --reps)",
                                  *args.warmup, args.reps, args.reps - 1));
  check_lengths_options(args);
  args.model_path = args.model_root && !args.model_root->empty() ? path_join(*args.model_root, args.model_name)
                                                                 : args.model_name;
  return args;
}

NameResolver args_resolver(const FixedArgs& args) {
  return [&args](std::string_view name) -> std::optional<Value> {
    if (name.substr(0, 5) != "args.") return std::nullopt;
    const std::string_view field = name.substr(5);
    if (field == "model_path") return Value::of_string(args.model_path);
    const FixedOption* option = find_fixed_option(field);
    return option ? option->value(args) : std::nullopt;
  };
}

std::vector<std::pair<std::string, std::string>> args_json_fields(const FixedArgs& args) {
  std::vector<std::pair<std::string, std::string>> fields = {{"model_path", args.model_path}};
  for (const auto& option : fixed_options()) {
    const std::optional<Value> value = option.value(args);  // nullopt only where `echo` says it
    const bool given = !value || !(value->type == Value::Type::none ||
                                   (value->type == Value::Type::boolean && !value->boolean));
    if (option.upstream() || given) fields.emplace_back(option.name, option.echo ? option.echo(args) : str(value.value()));
  }
  std::sort(fields.begin(), fields.end());
  return fields;
}

}  // namespace fmwork
