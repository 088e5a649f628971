// The one option table (options.hpp): every row of the driver's and `driver serve`'s command lines and what
// `args.NAME` and the args JSON show of them. Reading the options given against it: option_reading.cpp.
#include "fmwork/cli/options.hpp"
#include "fmwork/cli/extra_option.hpp"

#include <iterator>
#include <limits>

#include <fmt/format.h>

#include "fmwork/base/error.hpp"
#include "fmwork/base/option_values.hpp"
#include "fmwork/domain/statistics.hpp"
#include "fmwork/workload/arrivals.hpp"

namespace fmwork {

namespace {

Value int_list(const std::vector<int64_t>& values) {
  std::vector<Value> items;
  for (int64_t v : values) items.push_back(Value::of_int(v));
  return Value::of_list(std::move(items));
}

Value optional_string(const std::optional<std::string>& text) { return text ? Value::of_string(*text) : Value::none(); }

using A = FixedArgs;
using G = OptionGroups;
using T = const std::string&;

// The readers and `args.NAME` of the rows alike: a flag, a folder of ours, a count of ours, a required word.
template <bool FixedArgs::*field>
void set_flag(G& g, T, T) { g.args.*field = true; }
template <bool FixedArgs::*field>
std::optional<Value> flag_value(const A& a) { return Value::of_bool(a.*field); }
template <std::optional<std::string> FixedArgs::*field>
void read_folder(G& g, T option, T text) { g.args.*field = read_text(option, text, "a folder"); }
template <std::optional<std::string> FixedArgs::*field>
std::optional<Value> text_value(const A& a) { return optional_string(a.*field); }
template <std::string FixedArgs::*field>
std::optional<Value> word_value(const A& a) { return Value::of_string(a.*field); }
template <std::optional<int64_t> FixedArgs::*field>
std::optional<Value> count_value(const A& a) { return (a.*field) ? Value::of_int(*(a.*field)) : Value::none(); }

// The most keys --match and --ignore-meta take together: far more than META has, far fewer than would cost.
constexpr size_t kMaxCompareKeys = 32;

// --match / --ignore-meta's value ("dtype,threads") added to `keys`, each a META key's shape.
void add_compare_keys(std::vector<std::string>& keys, T option, T value) {
  read_items(value, kMaxCompareKeys - keys.size(), option + " takes at most " + std::to_string(kMaxCompareKeys) + " keys",
             [&](const std::string& key) {
               if (key.empty() || key.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                        "0123456789_.:-") != std::string::npos)
                 throw usage_error(option + " takes META keys separated by commas (dtype,threads); got '" + excerpt(value) + "'");
               keys.push_back(key);
             });
}

// --statistic's help and choices: a line, and a name, per row of the statistics' table (domain/statistics.hpp).
#define FMWORK_STATISTIC_HELP(id, name, heading, help) "\n  " name ": " help
constexpr const char* kStatisticHelp = "with --compare or --baseline: each side's latency (repeats: the median of "
                                       "theirs):" FMWORK_STATISTICS(FMWORK_STATISTIC_HELP);
#undef FMWORK_STATISTIC_HELP
std::vector<std::string> statistic_names() {
  std::vector<std::string> names;
  for (const StatisticSpec& s : statistics()) names.emplace_back(s.name);
  return names;
}

// A row of a command that does not run the model: no `args.NAME`, ours, required only through required().
constexpr Option row_of(Command command, OptionRow text, void (*read)(G&, T, T), OptionWords words = OptionWords::one,
              std::vector<std::string> (*choices)() = nullptr, const char* positional = nullptr) {
  return {text, only(command), kNoCommand, Origin::ours, read, nullptr, nullptr, words, choices, positional};
}
constexpr Command P = Command::process, R = Command::run, C = Command::cache;

// `row`, needed by the command that takes it.
constexpr Option required(Option row) {
  row.required = row.commands;
  return row;
}

// Each count in its own unit (its row's): --warmup's bound involves --reps, --isolate_timeout's is seconds (0 is
// refused by check_fixed_args), --sort_window's requests (it said "seconds" too).

// An array of constants (no constructor runs), so the table is whole before any other file's statics use it;
// options() holds the one copy whose rows everything else points to.
const Option kOptions[] = {
    {{"platform", "P", "cpu", "cpu, cuda, cuda:N, or the name of a device plugin"}, kBothCommands, kBothCommands, Origin::upstream,
     [](G& g, T o, T t) { g.args.platform = read_text(o, t, "cpu, cuda, cuda:N or a plugin name"); },
     word_value<&A::platform>},
    {{"model_class", "C", "BertModel",
     "the architecture (BertModel, RobertaModel, AutoModel, ...); labels the RES line"},
     kBothCommands, kBothCommands, Origin::upstream,
     [](G& g, T o, T t) { g.args.model_class = read_text(o, t, "the model's class, e.g. BertModel", true); },
     word_value<&A::model_class>},
    {{"model_root", "R", "/models", "folder the model name is relative to"}, kBothCommands, kNoCommand, Origin::upstream,
     [](G& g, T, T t) { g.args.model_root = t; }, text_value<&A::model_root>},
    {{"model_name", "N", "bert-base-uncased",
     "the model: a Hugging Face model folder, an AOTInductor package (.pt2) or a TorchScript file (under --model_root)"},
     kBothCommands, kBothCommands, Origin::upstream,
     [](G& g, T o, T t) { g.args.model_name = read_text(o, t, "the model's name or path", true); },
     word_value<&A::model_name>},
    {{"compile", "", "", "compile the model before the sweep (see --compile:KEY)"}, kBothCommands, kNoCommand, Origin::upstream,
     set_flag<&A::compile>, flag_value<&A::compile>},
    {{"eval", "", "", "put the model in evaluation mode"}, kBothCommands, kNoCommand, Origin::upstream,
     set_flag<&A::eval>, flag_value<&A::eval>},
    {{"input_sizes", "I[,I...]", "64,128", "comma-separated sequence lengths, e.g. 128,512"}, kBothCommands, kSweepOnly, Origin::upstream,
     [](G& g, T o, T t) { g.args.input_sizes = read_sizes(o, t); }, [](const A& a) { return std::optional(int_list(a.input_sizes)); }},
    {{"batch_sizes", "B[,B...]", "1,8", "comma-separated batch sizes, e.g. 1,8"}, kBothCommands, kSweepOnly, Origin::upstream,
     [](G& g, T o, T t) { g.args.batch_sizes = read_sizes(o, t); }, [](const A& a) { return std::optional(int_list(a.batch_sizes)); }},
    {{"reps", "N", "20",
     "repetitions per combination (at least 2; the first max(int(0.2*reps),1) are warm-up)"},
     kSweepOnly, kSweepOnly, Origin::upstream,
     [](G& g, T o, T t) { g.args.reps = read_reps(o, t); }, [](const A& a) { return std::optional(Value::of_int(a.reps)); }},
    {{"seed", "S", "7",
     "seed of the random input tokens (ours; fixed by default so runs repeat)"},
     kBothCommands, kNoCommand, Origin::ours,
     [](G& g, T o, T t) { g.args.seed = read_seed(o, t), g.args.seed_given = true; },
     [](const A& a) -> std::optional<Value> {
       if (!a.seed_given) return Value::none();
       if (a.seed > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return std::nullopt;
       return Value::of_int(static_cast<int64_t>(a.seed));
     },
     [](const A& a) { return std::to_string(a.seed); }},
    {{"save_outputs", "DIR", "outputs",
     "folder: after each combination's last rep, write <input>x<batch>.safetensors with its inputs and outputs (ours)"},
     kSweepOnly, kNoCommand, Origin::ours,
     read_folder<&A::save_outputs>, text_value<&A::save_outputs>},
    {{"check_outputs", "DIR", "outputs",
     "folder of such files: feed their inputs, compare the outputs, print FMWORK CHECK lines (ours; "
     "--check_outputs:atol@ / rtol@ / cosine@ set the tolerances)"},
     kSweepOnly, kNoCommand, Origin::ours,
     read_folder<&A::check_outputs>, text_value<&A::check_outputs>},
    {{"profile", "DIR", "prof",
     "folder: after each combination's timed reps, one more rep under LibTorch's profiler writes "
     "<input>x<batch>.trace.json (Chrome trace: Perfetto, chrome://tracing) and FMWORK PROFILE lines of its top "
     "operators; the timed reps are not profiled (ours)"},
     kSweepOnly, kNoCommand, Origin::ours,
     read_folder<&A::profile>, text_value<&A::profile>},
    {{"isolate", "", "",
     "run each batch x input combination in a child process that loads the model itself (ours)"},
     kSweepOnly, kNoCommand, Origin::ours,
     set_flag<&A::isolate>, flag_value<&A::isolate>},
    {{"isolate_timeout", "S", "600",
     "with --isolate: a child still running after S seconds (a hung kernel, a stopped process) is killed and its "
     "combination is a FAIL line; the sweep goes on (ours; default: no limit)"},
     kSweepOnly, kNoCommand, Origin::ours,
     [](G& g, T o, T t) { g.args.isolate_timeout = read_count(o, t, " seconds"); },
     count_value<&A::isolate_timeout>},
    {{"warmup", "N", "4",
     "leave the first N reps of each combination out of STAT and the noise verdicts instead of upstream's "
     "max(int(0.2*reps),1); RES keeps upstream's rule (ours; echoed as META warmup=)"},
     kSweepOnly, kNoCommand, Origin::ours,
     [](G& g, T o, T t) { g.args.warmup = read_count(o, t, " (and below --reps)"); },
     count_value<&A::warmup>},
    {{"input_lengths", "SPEC", "uniform:16,64",
     "each request's length drawn from a distribution instead of every row filled: N, uniform:MIN,MAX, "
     "lognormal:MEDIAN,MAX[,SIGMA] (SIGMA 0.8 by default) or file:PATH (one token count per line, drawn with "
     "replacement); seeded by --seed, drawn outside the timed region; each --input_sizes value is then the "
     "combination's longest length (ours)"},
     kBothCommands, kNoCommand, Origin::ours,
     [](G& g, T o, T t) { g.args.input_lengths = t, g.args.lengths = parse_length_spec(t, o); },
     text_value<&A::input_lengths>},
    {{"batching", "MODE", "padded",
     "how a batch of mixed lengths runs: unpadded (the real tokens packed; the default where the model runs it: "
     "native encoders), padded (to its longest, the mask marking the padding; the default elsewhere) or sorted "
     "(a window of requests sorted by length, then cut into batches) (ours)"},
     kBothCommands, kNoCommand, Origin::ours,
     [](G& g, T o, T t) { g.args.batching = parse_batching(t, o); },
     [](const A& a) {
       return std::optional(a.batching ? Value::of_string(std::string(batching_name(*a.batching))) : Value::none());
     }},
    {{"sort_window", "N", "1024",
     "with --batching sorted: the requests sorted together before they are cut into batches, rounded up to whole "
     "batches (default: all of the kept reps' requests, as one encode() call over them; the warm-up's apart) (ours)"},
     kSweepOnly, kNoCommand, Origin::ours,
     [](G& g, T o, T t) { g.args.sort_window = read_count(o, t, " requests"); },
     count_value<&A::sort_window>},
    {{"quiet", "", "",
     "no progress on stderr (by default: a live line on a terminal, else a line per combination and setup step; "
     "errors and warnings still go there) (ours)"},
     kBothCommands, kNoCommand, Origin::ours,
     set_flag<&A::quiet>, flag_value<&A::quiet>},
    // serve's own.
    {{"rates", "R[,R...]", "20,40,80",
     "open loop: one load level per rate, queries arriving by a seeded Poisson process at R queries/s"}, kServeOnly, kNoCommand, Origin::ours,
     [](G& g, T, T v) { g.serve.rates = read_rates(v); }},
    {{"users", "N", "4", "closed loop: N users, each sending its next query when its last one is answered"}, kServeOnly, kNoCommand, Origin::ours,
     [](G& g, T, T v) {
       g.serve.users = read_integer("--users", v, {1, 100000, "a number of users from 1 to 100000"});
     }},
    {{"max_wait_ms", "MS", "2",
     "the longest the oldest waiting query waits for a fuller batch once the device is free (default 0: a batch "
     "leaves at once, holding what queued while the device was busy, as Triton's and TEI's batchers do)"}, kServeOnly, kNoCommand, Origin::ours,
     [](G& g, T, T v) {
       g.serve.max_wait_ms = read_decimal("--max_wait_ms", v, {0, false, 60000, "milliseconds from 0 to 60000"});
     }},
    {{"max_tokens", "T", "4096",
     "a batch's token budget: size x longest (padded, sorted); 0 for none (default)"}, kServeOnly, kNoCommand, Origin::ours,
     [](G& g, T, T v) {
       g.serve.max_tokens = read_integer("--max_tokens", v, {0, int64_t{1} << 40, "a token count (0 for no budget)"});
     }},
    {{"warmup_s", "S", "1", "seconds of each level run before anything is counted (default 1)"}, kServeOnly, kNoCommand, Origin::ours,
     [](G& g, T, T v) {
       g.serve.warmup_s = read_decimal("--warmup_s", v, {0, false, 3600, "seconds from 0 to 3600"});
     }},
    {{"duration_s", "S", "5", "each level's measured part lasts at least S seconds (default 5)"}, kServeOnly, kNoCommand, Origin::ours,
     [](G& g, T, T v) {
       g.serve.duration_s = read_decimal("--duration_s", v, {0, true, 3600, "seconds above 0 and at most 3600"});
     }},
    {{"min_queries", "N", "100", "... and holds at least N queries (default 100)"}, kServeOnly, kNoCommand, Origin::ours,
     [](G& g, T, T v) {
       g.serve.min_queries = read_integer("--min_queries", v, {1, kMaxServeQueries / 2,
                                  fmt::format("a count from 1 to {}", kMaxServeQueries / 2)});
     }},
    {{"latency_bound", "pQ:MS", "p99:50",
     "every level's verdict holds the Q-th percentile of the latency to MS milliseconds, and the capacity search "
     "finds the highest rate that does"}, kServeOnly, kNoCommand, Origin::ours,
     [](G& g, T, T v) { g.serve.bound = parse_latency_bound(v, "--latency_bound"); }},
    {{"search_start", "R", "20", "the capacity search's first rate (default: the highest VALID level's, else half the lowest INVALID one's, else 10)"}, kServeOnly, kNoCommand, Origin::ours,
     [](G& g, T, T v) {
       g.serve.search_start = read_arrival_rate("--search_start", v, "a decimal rate like 20");
     }},
    {{"search_steps", "N", "12",
     "the most levels the capacity search runs doubling and bisecting (default 12); from a failing start it halves "
     "down to its floor (the start / 64) whatever N is"}, kServeOnly, kNoCommand, Origin::ours,
     [](G& g, T, T v) {
       g.serve.search_steps = read_integer("--search_steps", v, {1, 64, "a number of levels from 1 to 64"});
     }},
    {{"search_budget_s", "S", "600",
     "the capacity search's time budget (default 180): a level that would end past it is not started, and the "
     "CAPACITY line gives the bracket found so far (result=partial), as it does on Ctrl-C"}, kServeOnly, kNoCommand, Origin::ours,
     [](G& g, T, T v) {
       g.serve.search_budget_s = read_decimal("--search_budget_s", v, {0, true, 7 * 24 * 3600.0, "seconds above 0, at most a week"});
     }},
    {{"price_per_hour", "USD", "3.20", "the machine's price per hour: the CAPACITY line adds the cost per million queries"}, kServeOnly, kNoCommand, Origin::ours,
     [](G& g, T, T v) {
       // From 0.0001: the CAPACITY line's 4 decimals (1e-300 was written price_per_hour=0.0000).
       g.serve.price_per_hour = read_decimal("--price_per_hour", v,
                                       {0.0001, false, 1e6, "a price from 0.0001 to 1000000 (USD an hour), like 3.20"});
     }},
    // process's, in its --help's order: what is read and written (the logs, --format, --out), then --compare and
    // --baseline, the two ways of setting runs against each other.
    row_of(P, {"path", "FILE", "run.log",
               "Driver logs, read in the order given into one output; - is standard input;\n"
               "a folder: every *.log under it (a campaign tree: docs/campaigns.md).\n"
               "--path may be repeated or left out."},
           [](G& g, T, T v) { g.process.paths.push_back(v); }, OptionWords::list, nullptr, "paths"),
    row_of(P, {"metadata_id", "ID", "run1", "Written into each JSON record (null when not given)."},
           [](G& g, T, T v) { g.process.metadata_id = v; }),
    row_of(P, {"format", "FORMAT", "csv",
               "json: upstream's list of records; csv: one row per RES and FAIL line;\n"
               "summary: an aligned table per log; html: a self-contained page with charts\n"
               "(docs/report.md)."},
           [](G& g, T, T v) { g.process.format = v, g.process.format_given = true; }, OptionWords::one,
           [] { return std::vector<std::string>{"json", "csv", "summary", "html"}; }),
    row_of(P, {"out", "FILE", "report.html",
               "write the output to FILE instead of standard output: a regular file is\n"
               "replaced whole or left untouched (written beside it, then renamed); a FIFO or\n"
               "a device is written into; a file process reads (a log, a plan.json) is refused"},
           [](G& g, T, T v) { g.process.out_file = v; }),
    row_of(P, {"upstream", "", "",
               "JSON exactly as upstream's process writes it: precision, warmup, setup null;\n"
               "engine fmwork/embed/tf."},
           [](G& g, T, T) { g.process.upstream_only = true; }),
    row_of(P, {"compare", "A B", "a.log b.log",
               "two logs or campaign folders: B/A latency and throughput per matching combination,\n"
               "flagged noise when the change is within their STAT stddev (a table; --format json|csv:\n"
               "the pairs as data; --format html: a page)"},
           [](G& g, T, T v) { g.process.compare.push_back(v); }, OptionWords::two),
    row_of(P, {"match", "KEYS", "dtype,threads",
               "with --compare: pair on input, batch and these META keys (dtype,threads; model is\n"
               "RES's model name, by its folder's name) instead of the run; the other keys that\n"
               "matter (dtype, threads, runtime, platform, attention, gelu_epilogue, model,\n"
               "batching, lengths) must then agree within a pair"},
           [](G& g, T o, T v) { add_compare_keys(g.process.match, o, v); }, OptionWords::each),
    row_of(P, {"ignore-meta", "KEYS", "dtype",
               "with --compare: let these keys differ within a pair (fp32 against bf16: dtype);\n"
               "a pair differing in another key that matters is refused, naming it"},
           [](G& g, T o, T v) { add_compare_keys(g.process.ignore_meta, o, v); }, OptionWords::each),
    row_of(P, {"fail-if-slower", "PCT", "5",
               "with --compare: exit 1 when B is slower than A beyond PCT percent and beyond\n"
               "twice the larger CoV of the pair, listing those combinations"},
           [](G& g, T o, T v) {
             g.process.fail_percent = read_decimal(o, v, {0, false, std::numeric_limits<double>::max(), "a percentage >= 0, such as 5"});
           }),
    row_of(P, {"statistic", "STAT", "p10", kStatisticHelp}, [](G& g, T, T v) { g.process.statistic = v; },
           OptionWords::one, statistic_names),
    row_of(P, {"baseline", "KEY=VALUE", "dtype=float32",
               "with --path: every other configuration as speedups over the runs whose KEY is VALUE\n"
               "(dtype=float32, threads=1, model:torch_dtype=float32), per input and batch, repeats\n"
               "as their median: a table, or --format csv|json|html"},
           [](G& g, T, T v) { g.process.baseline_text = v; }),
    row_of(P, {"chart-scale", "SCALE", "linear",
               "with --format html: the y axis of the latency and tokens/s charts: log,\n"
               "linear (from 0), or auto (default: log where a chart spans more than 10x)"},
           [](G& g, T, T v) { g.process.chart_scale_text = v; }, OptionWords::one,
           [] { return std::vector<std::string>{"auto", "linear", "log"}; }),
    row_of(P, {"version", "", "", "print process's version and exit"}, [](G& g, T, T) { g.process.version = true; }),
    row_of(P, {"schema", "", "",
               "print the log lines' fields as JSON (the keys of each line, their kinds, the\n"
               "required ones; upstream's lines' positions) and exit: what bench/log_schema.json holds"},
           [](G& g, T, T) { g.process.schema = true; }),
    // driver run's, in its --help's order.
    row_of(R, {"experiment", "EXPERIMENT", "bert.json",
               "the experiment file (JSON); the paths in it are relative to its folder, and are\n"
               "checked before anything is made"},
           [](G& g, T, T v) { g.run.experiment = v; }, OptionWords::positional),
    row_of(R, {"out", "ROOT", "results", "root of the result tree"},
           [](G& g, T o, T v) { g.run.out = read_text(o, v, "the root of the result tree"); }),
    row_of(R, {"resume", "DIR", "results/me/host/20260101-120000",
               "a campaign folder: run again the runs whose log is missing or incomplete (Ctrl-C\n"
               "prints this command for the campaign it stops)"},
           [](G& g, T o, T v) { g.run.resume = read_text(o, v, "a campaign folder"); }),
    row_of(R, {"devices", "LIST", "cuda:0,cuda:1",
               "comma-separated platforms, one run at a time on each, the run's --platform set to it;\n"
               "a name given N times runs N at once (cpu,cpu). Default: each run's own --platform, one at a time"},
           [](G& g, T o, T v) { g.run.devices = read_text(o, v, "platforms such as cpu or cuda:0,cuda:1, or leave it out"); }),
    row_of(R, {"list", "", "", "print the expanded command lines and run nothing"}, [](G& g, T, T) { g.run.list = true; }),
    row_of(R, {"slurm", "", "",
               "submit the runs to do as a Slurm job array (one task a run) and return; the tree must be on a\n"
               "file system the nodes share. sbatch options as --slurm:KEY VALUE (partition, time, gres, account)"},
           [](G& g, T, T) { g.run.slurm = true; }),
    row_of(R, {"wait", "", "", "with --slurm: wait until the job has ended, with progress, and exit 1 when a run is incomplete"},
           [](G& g, T, T) { g.run.wait = true; }),
    row_of(R, {"max-tasks", "N", "8", "with --slurm: at most N runs at once (sbatch --array=...%N)"},
           [](G& g, T o, T v) {
             g.run.max_tasks = static_cast<size_t>(read_integer(o, v, {1, 1000000, "a whole number from 1 to 1000000 (runs at once)"}));
           }),
    row_of(R, {"no-submit", "", "", "with --slurm: write the sbatch script into DIR/slurm/ and submit nothing"},
           [](G& g, T, T) { g.run.no_submit = true; }),
    row_of(R, {"task", "DIR INDEX", "results/me/host/20260101-120000 0",
               "run plan.json's run INDEX of the campaign DIR (what each Slurm array task runs)"},
           [](G& g, T, T v) { g.run.task.push_back(v); }, OptionWords::two),
    // driver --cache's: what it does (named --cache in its messages), and the cache's folder.
    // Its choices are the command's synopsis and the message without one (command_synopsis, command_options_from).
    required(row_of(C, {"cache", "COMMAND", "list", "list, report (a table) or clear the cache's entries"},
                    [](G& g, T, T v) { g.cache.command = v; }, OptionWords::positional,
                    [] { return std::vector<std::string>{"list", "report", "clear"}; })),
    row_of(C, {"cache_dir", "DIR", "/tmp/fmwork-cache", "the cache's folder (default: $FMWORK_CACHE, else under "
               "$XDG_CACHE_HOME or $HOME)"},
           [](G& g, T o, T v) { g.cache.cache_dir = read_text(o, v, "the cache's folder"); }),
};

}  // namespace

const CommandText& command_text(Command command) {
  static const CommandText texts[] = {
      {"driver", "the sweep's", "the sweep runs batch x input combinations"},
      {"driver serve", "driver serve's", "driver serve runs load levels"},
      {"process", "process's", "",
       "Turns fmwork driver logs into upstream's JSON (default), a CSV table, a readable summary or an HTML page.\n"
       "Reads FMWORK ARG / SETUP / REP / RES lines and the META / STAT / MEM / FAIL / CHECK extensions.",
       " (see process --help)"},
      {"driver run", "driver run's", "",
       "Runs an experiment file: each expanded run is a driver process; results go to\n"
       "ROOT/<user>/<host>/<time>/ (docs/campaigns.md).",
       " (see driver run --help)", "slurm"},
      {"driver --cache", "driver --cache's", "", "", " (see driver --cache --help)"},
  };
  return texts[static_cast<size_t>(command)];
}

namespace {

// The table's one copy: kOptions' rows, and an ExtraOption's while it lives.
std::vector<Option>& rows() {
  static std::vector<Option> rows(std::begin(kOptions), std::end(kOptions));
  return rows;
}

}  // namespace

const std::vector<Option>& options() { return rows(); }

ExtraOption::ExtraOption(const Option& row) {
  if (rows().size() != std::size(kOptions)) throw runtime_error("an ExtraOption is alive already: one at a time");
  for (const Option& other : rows())
    if (std::string_view(other.name) == row.name && (other.commands.bits & row.commands.bits))
      throw runtime_error(std::string("--") + row.name + " is a row of the table already");
  rows().push_back(row);
}

ExtraOption::~ExtraOption() { rows().pop_back(); }

}  // namespace fmwork
