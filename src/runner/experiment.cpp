// Experiment files into plans: the document's shape checked key by key, options merged (defaults, run,
// matrix values), the matrix expanded, sizes split, and every command line checked by the driver's parser.
#include "fmwork/runner/experiment.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <set>

#include "fmwork/cli/cli.hpp"
#include "fmwork/base/error.hpp"
#include "fmwork/base/text_format.hpp"
#include "fmwork/base/json_input.hpp"
#include "fmwork/cli/option_sets.hpp"
#include "fmwork/cli/serve_options.hpp"

namespace fmwork {
namespace {

using json = nlohmann::json;
using Options = std::map<std::string, json>;  // option as typed ("--reps") -> its JSON value
using Matrix = std::vector<std::pair<std::string, std::vector<json>>>;

// A run's settings after the defaults: its options, matrix, size mode and the driver's command.
struct RunSpec {
  std::string id;
  Options options;
  Matrix matrix;
  std::string sizes = "batch";
  std::string command = "sweep";  // "serve": `driver serve` command lines (argv's first word)
};

void check_keys(const json& object, const std::set<std::string>& known, const std::string& where) {
  if (!object.is_object()) throw usage_error(where + ": must be an object, not " + json_excerpt(object));
  for (const auto& item : object.items()) {
    if (known.count(item.key())) continue;
    std::string list;
    for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
    throw usage_error(where + ": unknown key \"" + excerpt(item.key()) + "\" (known: " + list + ")");
  }
}

bool scalar_value(const json& v) { return v.is_string() || v.is_number() || v.is_boolean() || v.is_null(); }

// A value as typed: strings as they are, numbers as JSON writes them, a list joined with commas (sizes).
std::string value_text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_array()) {
    std::string text;
    for (const auto& e : v) text += (text.empty() ? "" : ",") + value_text(e);
    return text;
  }
  return v.dump();
}

void check_value(const json& v, const std::string& where) {
  const bool list_of_scalars =
      v.is_array() && !v.empty() && std::all_of(v.begin(), v.end(), [](const json& e) {
        return (e.is_string() || e.is_number());
      });
  if (!scalar_value(v) && !list_of_scalars)
    throw usage_error(where + ": a value is a string, a number, true (a flag), false or null (left out) or a list of "
                              "strings and numbers (joined with commas), not " + json_excerpt(v));
}

void check_option_name(const std::string& key, const std::string& where) {
  if (key.size() < 3 || key.compare(0, 2, "--") != 0 || key.find_first_of(" \t") != std::string::npos)
    throw usage_error(where + ": \"" + excerpt(key) + "\" is not a driver option (written as typed: \"--reps\", "
                              "\"--model:torch_dtype\", \"--torch.call:set_num_threads@\")");
}

Options options_of(const json& object, const std::string& where) {
  if (!object.is_object()) throw usage_error(where + ": must be an object of options, not " + json_excerpt(object));
  Options options;
  for (const auto& item : object.items()) {
    check_option_name(item.key(), where);
    check_value(item.value(), where + ": \"" + item.key() + "\"");
    options[item.key()] = item.value();
  }
  return options;
}

Matrix matrix_of(const json& object, const std::string& where) {
  if (!object.is_object()) throw usage_error(where + ": must be an object of options, not " + json_excerpt(object));
  Matrix matrix;
  for (const auto& item : object.items()) {
    const std::string at = where + ": \"" + item.key() + "\"";
    check_option_name(item.key(), where);
    if (!item.value().is_array() || item.value().empty())
      throw usage_error(at + ": must be a non-empty list of values, not " + json_excerpt(item.value()));
    std::set<std::string> seen;
    for (const auto& v : item.value()) {
      check_value(v, at);
      // [1, 1] (or [1, "1"]: one word) ran the same command line twice under two ids, without a word; runs
      // of one configuration again are "repeat": N, which interleaves them.
      const std::string word = v.is_null() || v == false ? "\x01left out" : v == true ? "\x01flag" : value_text(v);
      if (!seen.insert(word).second)
        throw usage_error(at + ": lists " + json_excerpt(v) + " twice; give each value once (\"repeat\": N runs "
                          "the plan again)");
    }
    matrix.emplace_back(item.key(), std::vector<json>(item.value().begin(), item.value().end()));
  }
  return matrix;
}

std::string sizes_of(const json& v, const std::string& where) {
  if (v != "split" && v != "batch")
    throw usage_error(where + ": must be \"split\" (one run per batch x input size) or \"batch\" (all sizes in one "
                              "run), not " + json_excerpt(v));
  return v.get<std::string>();
}

std::string command_of(const json& v, const std::string& where) {
  if (v != "sweep" && v != "serve")
    throw usage_error(where + ": must be \"sweep\" (the driver's batch x input sweep, the default) or \"serve\" "
                              "(driver serve: the serving scenario, docs/serving.md), not " + json_excerpt(v));
  return v.get<std::string>();
}

// Folds an object's "options", "matrix", "sizes" and "command" over `spec` (the defaults' or a run's).
void apply_settings(const json& object, const std::string& where, RunSpec& spec) {
  if (object.contains("command")) spec.command = command_of(object["command"], where + ": command");
  if (object.contains("options"))
    for (auto& [k, v] : options_of(object["options"], where + ": options")) spec.options[k] = v;
  if (object.contains("matrix")) {
    for (auto& entry : matrix_of(object["matrix"], where + ": matrix")) {  // no structured binding: clang 14
      // cannot capture one in a lambda (C++17), and the fuzz build compiles this with clang
      const std::string& key = entry.first;
      auto same = std::find_if(spec.matrix.begin(), spec.matrix.end(), [&](const auto& m) { return m.first == key; });
      if (same != spec.matrix.end()) same->second = entry.second; else spec.matrix.emplace_back(key, entry.second);
    }
  }
  if (object.contains("sizes")) spec.sizes = sizes_of(object["sizes"], where + ": sizes");
}

std::string column_of(std::string key) {
  key.erase(0, 2);
  if (!key.empty() && key.back() == '@') key.pop_back();
  return key;
}

std::vector<std::string> argv_of(const Options& options) {
  std::vector<std::string> argv;
  for (const auto& [key, value] : options) {
    if (value.is_null() || value == false) continue;
    argv.push_back(key);
    if (value != true) argv.push_back(value_text(value));
  }
  return argv;
}

}  // namespace

CommandLine check_like_the_driver(const std::vector<std::string>& argv_in) {
  const bool serve = !argv_in.empty() && argv_in[0] == "serve";
  CommandLine cl = parse_command_line(std::vector<std::string>(argv_in.begin() + (serve ? 1 : 0), argv_in.end()),
                                      serve ? Command::serve : Command::sweep);
  if (serve) serve_shape(cl.args, cl.serve);
  compile_options_from(cl.subs.at("compile"));
  model_options_from(cl.subs.at("model"));
  torch_calls_from(cl.subs.at("torch.call"));
  torch_sets_from(cl.subs.at("torch.set"));
  if (auto it = cl.subs.find("platform"); it != cl.subs.end()) platform_options_from(it->second);
  if (auto it = cl.subs.find("check_outputs"); it != cl.subs.end()) check_options_from(it->second);
  check_tuned_options(cl);
  return cl;
}

namespace {

PlannedRun checked(PlannedRun run, const std::string& source, CommandLine* parsed = nullptr) {
  try {
    // Before the words become C strings (the check, the runs' argv), where a NUL would cut a value short in silence.
    refuse_control_characters(run.argv);
    CommandLine cl = check_like_the_driver(run.argv);
    if (parsed) *parsed = std::move(cl);
  } catch (const Error& e) {
    throw usage_error(source + ": " + escape_controls(describe_run(run)) + ": " + e.what());
  }
  // Checked with its secrets (a --model:token that is no literal is refused as the driver refuses it), then
  // planned without them: the plan goes into plan.json, --list, the runs' logs. The driver ignores them.
  run.argv = argv_without_secrets(std::move(run.argv));
  return run;
}

// One matrix point's run, or with "split" one per batch x input size (batch outer, input inner, as the sweep).
void expand_point(const RunSpec& spec, PlannedRun run, const std::string& source, std::vector<PlannedRun>& out) {
  CommandLine cl;
  run = checked(std::move(run), source, &cl);
  if (spec.sizes == "batch") {
    out.push_back(std::move(run));
    return;
  }
  for (int64_t batch : cl.args.batch_sizes) {
    for (int64_t input : cl.args.input_sizes) {
      PlannedRun one = run;
      for (size_t i = 0; i + 1 < one.argv.size(); ++i) {
        if (one.argv[i] == "--batch_sizes") one.argv[i + 1] = std::to_string(batch);
        if (one.argv[i] == "--input_sizes") one.argv[i + 1] = std::to_string(input);
      }
      one.matrix.emplace_back("input_sizes", std::to_string(input));
      one.matrix.emplace_back("batch_sizes", std::to_string(batch));
      out.push_back(checked(std::move(one), source));
    }
  }
}

void expand_run(const RunSpec& spec, const std::string& source, std::vector<PlannedRun>& out) {
  const size_t first = out.size();
  std::vector<size_t> at(spec.matrix.size(), 0);  // an odometer over the matrix, first key (alphabetically: json's objects are sorted) outermost
  while (true) {
    Options options = spec.options;
    PlannedRun run;
    run.run = run.id = spec.id;
    for (size_t k = 0; k < spec.matrix.size(); ++k) {
      const auto& [key, values] = spec.matrix[k];
      options[key] = values[at[k]];
      run.matrix.emplace_back(column_of(key), is_secret_option(key) ? kNotShown : value_text(values[at[k]]));
    }
    run.argv = argv_of(options);
    if (spec.command == "serve") run.argv.insert(run.argv.begin(), "serve");
    expand_point(spec, std::move(run), source, out);
    size_t k = spec.matrix.size();
    while (k > 0 && ++at[k - 1] == spec.matrix[k - 1].second.size()) at[--k] = 0;
    if (k == 0) break;
  }
  if (out.size() - first > 1)
    for (size_t i = first; i < out.size(); ++i) out[i].id += "." + std::to_string(i - first + 1);
}

std::string run_id_of(const json& run, const std::string& where) {
  if (!run.contains("id")) throw usage_error(where + ": has no \"id\" (a name for its logs: letters, digits, - and _)");
  const json& id = run["id"];
  // Bounded so that every file named after it (<id>.<N>.r<K>.log.partial, .environment.json) fits a file
  // name: a longer id would pass here and fail once the campaign's tree exists.
  if (!id.is_string() || id.get<std::string>().empty() || id.get<std::string>().size() > kMaxRunIdLength ||
      id.get<std::string>().find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") !=
          std::string::npos)
    throw usage_error(where + ": \"id\" must be letters, digits, - and _, at most " +
                      std::to_string(kMaxRunIdLength) + " (it names the run's logs), not " + json_excerpt(id));
  return id.get<std::string>();
}

// A top-level whole number from 1 to `most`, `fallback` when absent ("repeat", "max_runs").
size_t count_key(const json& doc, const char* key, size_t fallback, size_t most, const std::string& what,
                 const std::string& source) {
  if (!doc.contains(key)) return fallback;
  const json& v = doc[key];
  if (!v.is_number_integer() || v.get<int64_t>() < 1 || v.get<int64_t>() > static_cast<int64_t>(most))
    throw usage_error(source + ": \"" + key + "\" must be a whole number of " + what + " from 1 to " +
                      std::to_string(most) + ", not " + json_excerpt(v));
  return v.get<size_t>();
}

// The plan `times` over, interleaved (every run once, then every run again ...) so that a drift of the
// machine spreads over all runs instead of landing on one: ids "<id>.r<k>", the column "repeat" = k.
std::vector<PlannedRun> repeated(const std::vector<PlannedRun>& runs, size_t times) {
  std::vector<PlannedRun> out;
  for (size_t k = 1; k <= times; ++k) {
    for (PlannedRun run : runs) {
      run.id += ".r" + std::to_string(k);
      run.matrix.emplace_back("repeat", std::to_string(k));
      out.push_back(std::move(run));
    }
  }
  return out;
}

// ---- runs that would write the same files ----

// The value of `option` in a planned run's argv ("--save_outputs", "DIR"), nullopt when it is not given.
std::optional<std::string> argv_value(const std::vector<std::string>& argv, const std::string& option) {
  for (size_t i = 0; i + 1 < argv.size(); ++i)
    if (argv[i] == option) return argv[i + 1];
  return std::nullopt;
}

// The sizes of a planned run's `option` ("--batch_sizes"), read by the driver's own reader (checked() has read
// every run's line with it, so this does not throw), not a second reading of the text; none when not given.
std::vector<int64_t> driver_sizes(const std::vector<std::string>& argv, const std::string& option) {
  const std::optional<std::string> text = argv_value(argv, option);
  return text ? read_sizes(option, *text) : std::vector<int64_t>{};
}

// Two runs of one folder given to --save_outputs or --profile write <input>x<batch>.* there: a run with other
// options at a shared size replaced the files of the one before it, without a word (a matrix over dtypes with
// one --save_outputs kept the last dtype's outputs only). Refused, naming both runs. Runs whose options are
// the same but for the sizes ("sizes": "split", "repeat") write what the other would, and pass. The check
// stops after 1,000,000 sizes: a plan past that is a campaign no one keeps outputs of.
void refuse_shared_output_folders(const std::vector<PlannedRun>& runs, const std::string& source) {
  size_t budget = 1000000;
  for (const std::string option : {"--save_outputs", "--profile"}) {
    // folder -> (input, batch) -> the first run writing it there and its options without the sizes
    std::map<std::string, std::map<std::pair<int64_t, int64_t>, std::pair<const PlannedRun*, std::string>>> written;
    for (const PlannedRun& run : runs) {
      const std::optional<std::string> folder = argv_value(run.argv, option);
      if (!folder) continue;
      std::string options;
      for (size_t i = 0; i < run.argv.size(); ++i) {
        if (run.argv[i] == "--input_sizes" || run.argv[i] == "--batch_sizes") {
          ++i;
          continue;
        }
        options += run.argv[i] + '\0';
      }
      for (int64_t input : driver_sizes(run.argv, "--input_sizes"))
        for (int64_t batch : driver_sizes(run.argv, "--batch_sizes")) {
          if (budget-- == 0) return;
          const auto [at, fresh] = written[*folder].try_emplace({input, batch}, &run, options);
          if (fresh || at->second.second == options) continue;
          throw usage_error(source + ": runs \"" + at->second.first->id + "\" and \"" + run.id + "\" both write " +
                            option + " " + *folder + " for input " + std::to_string(input) + ", batch " +
                            std::to_string(batch) + ": the later would replace the earlier's files; give each run a "
                            "folder of its own (put " + option + " in the matrix)");
        }
    }
  }
}

// ---- the size of a plan, counted before it is expanded ----

// A count for a message: whole below 10^15, else in exponent form ("1.00e+12").
std::string count_text(long double n) {
  char buf[64];
  std::snprintf(buf, sizeof buf, n < 1e15L ? "%.0Lf" : "%.2Le", n);
  return buf;
}

// How many sizes a --batch_sizes / --input_sizes value holds, as value_text joins it: "8,16" and [8, 16] are 2.
long double sizes_in(const json& v) {
  const std::string text = value_text(v);
  return 1.0L + static_cast<long double>(std::count(text.begin(), text.end(), ','));
}

// The sizes of `option` over a split run's matrix points: summed over its matrix values, else its one value.
long double split_sizes(const RunSpec& spec, const std::string& option) {
  for (const auto& [key, values] : spec.matrix) {
    if (key != option) continue;
    long double n = 0;
    for (const json& v : values) n += sizes_in(v);
    return n;
  }
  const auto it = spec.options.find(option);
  return it == spec.options.end() ? 1.0L : sizes_in(it->second);
}

// How many runs `spec` expands to (in long double: a matrix of many keys overflows any integer), and the
// factors it comes from, for the message.
std::pair<long double, std::string> count_runs(const RunSpec& spec) {
  long double runs = 1;
  std::string from;
  auto factor = [&](long double n, const std::string& what) {
    runs *= n;
    from += (from.empty() ? "" : " x ") + count_text(n) + " " + what;
  };
  const bool split = spec.sizes == "split";
  for (const auto& [key, values] : spec.matrix)
    if (!split || (key != "--batch_sizes" && key != "--input_sizes"))
      factor(static_cast<long double>(values.size()), "values of " + key);
  if (split) {
    factor(split_sizes(spec, "--batch_sizes"), "batch sizes (split)");
    factor(split_sizes(spec, "--input_sizes"), "input sizes (split)");
  }
  return {runs, from.empty() ? std::string("no matrix") : from};
}

// Refuses a plan of more than `max_runs` runs before one is expanded: expanding (and checking each command
// line) a matrix of 10^12 points would grow memory for hours and print nothing.
void check_plan_size(const std::vector<RunSpec>& specs, size_t repeat, size_t max_runs, const std::string& source) {
  const std::string remedy = " narrow the matrix or the sizes, or set \"max_runs\" (at most " +
                             std::to_string(kMaxRunsLimit) + ") in the file";
  long double total = 0;
  for (const RunSpec& spec : specs) {
    const auto [runs, from] = count_runs(spec);
    if (runs > max_runs)
      throw usage_error(source + ": run \"" + spec.id + "\" expands to " + count_text(runs) + " runs (" +
                        excerpt(from, 300) + "), more than the " + std::to_string(max_runs) + " a plan may hold;" +
                        remedy);
    total += runs;
  }
  if (total * repeat > max_runs)
    throw usage_error(source + ": the runs expand to " + count_text(total * repeat) + " runs (" + count_text(total) +
                      " x \"repeat\" " + std::to_string(repeat) + "), more than the " + std::to_string(max_runs) +
                      " a plan may hold;" + remedy);
}

}  // namespace

std::string describe_run(const PlannedRun& run) {
  std::string text = "run \"" + run.run + "\"";
  if (run.matrix.empty()) return text;
  text += " (";
  for (size_t i = 0; i < run.matrix.size(); ++i)
    text += (i ? " " : "") + run.matrix[i].first + "=" + run.matrix[i].second;
  return text + ")";
}

Plan expand_experiment(const json& doc, const std::string& source) {
  check_keys(doc, {"description", "defaults", "runs", "repeat", "max_runs"}, source);
  const size_t repeat = count_key(doc, "repeat", 1, 1000, "times", source);
  const size_t max_runs = count_key(doc, "max_runs", kDefaultMaxRuns, kMaxRunsLimit, "runs", source);
  RunSpec defaults;
  if (doc.contains("defaults")) {
    check_keys(doc["defaults"], {"options", "matrix", "sizes", "command"}, source + ": defaults");
    apply_settings(doc["defaults"], source + ": defaults", defaults);
  }
  if (!doc.contains("runs") || !doc["runs"].is_array() || doc["runs"].empty())
    throw usage_error(source + ": \"runs\" must be a non-empty list of runs ({\"id\": ..., \"options\": {...}})");
  std::vector<RunSpec> specs;  // every run's shape first: a file's mistakes of form come before the driver's
  std::set<std::string> ids;
  for (size_t i = 0; i < doc["runs"].size(); ++i) {
    const json& r = doc["runs"][i];
    std::string where = source + ": runs[" + std::to_string(i) + "]";
    check_keys(r, {"id", "description", "options", "matrix", "sizes", "command"}, where);
    RunSpec spec = defaults;
    spec.id = run_id_of(r, where);
    if (!ids.insert(spec.id).second) throw usage_error(where + ": the id \"" + spec.id + "\" is taken by an earlier run");
    apply_settings(r, source + ": run \"" + spec.id + "\"", spec);
    if (spec.command == "serve" && spec.sizes == "split")
      throw usage_error(source + ": run \"" + spec.id + "\": \"sizes\": \"split\" splits a sweep's batch x input "
                        "sizes; a serve run has one batch limit and one query length (put them in the matrix)");
    specs.push_back(std::move(spec));
  }
  check_plan_size(specs, repeat, max_runs, source);
  Plan plan{source, {}};
  for (const RunSpec& spec : specs) expand_run(spec, source, plan.runs);
  if (repeat > 1) plan.runs = repeated(plan.runs, repeat);
  refuse_shared_output_folders(plan.runs, source);
  return plan;
}

nlohmann::ordered_json plan_to_json(const Plan& plan) {
  nlohmann::ordered_json runs = nlohmann::ordered_json::array();
  for (const auto& r : plan.runs) {
    nlohmann::ordered_json matrix = nlohmann::ordered_json::object();
    for (const auto& [k, v] : r.matrix) matrix[k] = v;
    runs.push_back({{"id", r.id}, {"run", r.run}, {"matrix", matrix}, {"argv", r.argv}});
  }
  return {{"experiment", plan.source}, {"runs", runs}};
}

Plan plan_from_json(const json& doc, const std::string& source) {
  Plan plan;
  std::set<std::string> ids;
  try {
    plan.source = doc.at("experiment").get<std::string>();
    for (const auto& r : doc.at("runs")) {
      PlannedRun run;
      run.id = r.at("id").get<std::string>();
      run.run = r.at("run").get<std::string>();
      run.argv = argv_without_secrets(r.at("argv").get<std::vector<std::string>>());  // a plan of an older driver
      for (const auto& item : r.at("matrix").items())
        run.matrix.emplace_back(item.key(), is_secret_option("--" + item.key()) ? std::string(kNotShown)
                                                                                 : item.value().get<std::string>());
      if (run.id.empty() || run.id.find('/') != std::string::npos || !ids.insert(run.id).second)
        throw runtime_error("the run id \"" + excerpt(run.id) + "\" is empty, holds a / or is repeated");
      plan.runs.push_back(std::move(run));
    }
  } catch (const nlohmann::json::exception& e) {
    throw runtime_error(source + ": not a plan written by driver run (" + json_error_reason(e) + ")");
  } catch (const Error& e) {
    throw runtime_error(source + ": " + e.what());
  }
  return plan;
}

std::string command_text(const std::string& program, const std::vector<std::string>& argv) {
  std::string text = program;
  for (const auto& w : argv) {
    const bool plain = !w.empty() && w.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                         "0123456789_-.,:/@=+%") == std::string::npos;
    if (plain) {
      text += " " + w;
      continue;
    }
    std::string quoted = "'";
    for (char c : w) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    text += " " + quoted + "'";
  }
  return text;
}

}  // namespace fmwork
