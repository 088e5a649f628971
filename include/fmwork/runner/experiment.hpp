// Experiment files: a JSON document of defaults and runs, each run the driver's own options, expanded over
// a `matrix` of option values (and, with "sizes": "split", over its batch x input sizes) into a plan of
// driver command lines. docs/campaigns.md has the schema; the runner (campaign.hpp) executes a plan and
// `process` reads the plan file it writes. No LibTorch here.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "fmwork/cli/cli.hpp"

namespace fmwork {

// The most runs a plan holds unless the file's "max_runs" raises it, and the most "max_runs" may say: each
// run is a command line checked by the driver's parser and held in memory (10^6 runs take ~50 s to list).
constexpr size_t kDefaultMaxRuns = 100'000;
constexpr size_t kMaxRunsLimit = 1'000'000;
// The longest run "id" of an experiment file: files are named after it, with suffixes.
constexpr size_t kMaxRunIdLength = 100;

// One expanded run: a command line a user could type (`driver` + argv).
struct PlannedRun {
  std::string id;   // unique in the plan: the run's "id", then ".N" (1-based) when the run expands to several
  std::string run;  // the run's "id" in the experiment file
  // The matrix values of this run, in expansion order: column (the option without "--" and a trailing "@",
  // "model:torch_dtype") and the value as it is typed; with "sizes": "split" also input_sizes and batch_sizes.
  std::vector<std::pair<std::string, std::string>> matrix;
  // the driver's options, without the program; a serve run's ("command": "serve") start with the word serve
  std::vector<std::string> argv;
};

struct Plan {
  std::string source;  // the experiment file, as named to load_experiment
  std::vector<PlannedRun> runs;
};

// Validates and expands an experiment file's document. Every expanded
// command line is checked as the driver checks it before loading anything (cli's parse_command_line and
// the option sets' builders), so that a plan never holds a run the driver would refuse. Throws a one-line
// usage Error naming the file, the run and the key: `x.json: run "minilm" (model:torch_dtype=bfloat16):
// <the driver's message>`, `x.json: runs[1]: unknown key "option" (known: id, options, matrix, sizes)`.
// The runs are counted before any is expanded: a plan of more than "max_runs" (kDefaultMaxRuns) is refused
// with the count and its factors, `x.json: run "big" expands to 1000000000000 runs (1000 values of --reps x ...)`.
// A secret option's value (cli's is_secret_option: --model:token) is checked, then planned as kNotShown in
// argv and matrix (argv_without_secrets): a plan is written into plan.json and listed, and the driver
// ignores those keys.
// expand_experiment touches no file; load_experiment (experiment_paths.hpp) reads the file, expands it and
// resolves and checks the runs' paths.
Plan expand_experiment(const nlohmann::json& doc, const std::string& source);

// The plan as plan.json holds it, and back (plan_from_json throws a runtime Error "<source>: ..." on a
// plan that is not one: a missing or mistyped key, a repeated id; a secret in an older plan is read as
// kNotShown).
nlohmann::ordered_json plan_to_json(const Plan& plan);
Plan plan_from_json(const nlohmann::json& doc, const std::string& source);

// `program` and the run's argv, each word quoted for a POSIX shell when it needs it: what `driver run
// --list` prints, and what a user can paste.
std::string command_text(const std::string& program, const std::vector<std::string>& argv);

// A run's argv checked as the driver checks its command line before loading anything: its parser (typed
// values, one option against another), the option sets' builders (every --model:, --compile:, --torch.call:
// and --torch.set: value read as the driver reads it); for a `serve` command line (its first word) serve's
// options and shape first, as `driver serve` reads them. Returns the parsed command line; throws their usage
// Errors. What needs the model's folder is resolve_plan_paths' (experiment_paths.hpp).
CommandLine check_like_the_driver(const std::vector<std::string>& argv);

// "run \"minilm\" (model:torch_dtype=bfloat16 ...)": how messages name a planned run.
std::string describe_run(const PlannedRun& run);

}  // namespace fmwork
