// `driver run`'s options (see campaign_options.hpp): one table of rows, from which the CLI11 App is set up and
// each value read; the `--slurm:KEY VALUE` words by hand; then the combinations refused.
#include "campaign_options.hpp"

#include <CLI/CLI.hpp>

#include "fmwork/base/error.hpp"
#include "fmwork/base/option_values.hpp"
#include "fmwork/base/text_format.hpp"
#include "fmwork/cli/cli11_rows.hpp"
#include "fmwork/cli/parse_errors.hpp"

namespace fmwork {
namespace {

// Takes the `--slurm:KEY VALUE` (or `--slurm:KEY=VALUE`) words out of `args` (CLI11 has no open-ended keys).
std::vector<SbatchOption> take_sbatch_options(std::vector<std::string>& args) {
  std::vector<SbatchOption> options;
  std::vector<std::string> rest;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].rfind("--slurm:", 0) != 0) {
      rest.push_back(args[i]);
      continue;
    }
    std::string key = args[i].substr(8), value;
    if (const size_t eq = key.find('='); eq != std::string::npos) {
      value = key.substr(eq + 1);
      key.resize(eq);
    } else if (i + 1 < args.size()) {
      value = args[++i];
    } else {
      throw usage_error(args[i] + ": a value is missing (--slurm:KEY VALUE; an empty VALUE \"\" for a flag)");
    }
    options.push_back(sbatch_option(key, value));
  }
  args = rest;
  return options;
}

using V = const std::vector<std::string>&;

// The rows of `driver run`'s options, each with its reader into RunnerOptions, in --help's order.
const Cli11Row<RunnerOptions> kRunnerOptions[] = {
  {{"experiment", "EXPERIMENT", "bert.json",
    "the experiment file (JSON); the paths in it are relative to its folder, and are\n"
    "checked before anything is made"},
   OptionWords::positional, [](RunnerOptions& o, V v) { o.experiment = v[0]; }},
  {{"out", "ROOT", "results", "root of the result tree"}, OptionWords::one,
   [](RunnerOptions& o, V v) { o.out = v[0]; }},
  {{"resume", "DIR", "results/me/host/20260101-120000",
    "a campaign folder: run again the runs whose log is missing or incomplete (Ctrl-C\n"
    "prints this command for the campaign it stops)"},
   OptionWords::one, [](RunnerOptions& o, V v) { o.resume = read_text("--resume", v[0], "a campaign folder"); }},
  // CLI11 leaves an empty value as if the option were absent: --devices "" ran on the runs' own platforms.
  {{"devices", "LIST", "cuda:0,cuda:1",
    "comma-separated platforms, one run at a time on each, the run's --platform set to it;\n"
    "a name given N times runs N at once (cpu,cpu). Default: each run's own --platform, one at a time"},
   OptionWords::one,
   [](RunnerOptions& o, V v) {
     o.devices = read_text("--devices", v[0], "platforms such as cpu or cuda:0,cuda:1, or leave it out");
   }},
  {{"list", "", "", "print the expanded command lines and run nothing"}, OptionWords::flag,
   [](RunnerOptions& o, V) { o.list = true; }},
  {{"slurm", "", "",
    "submit the runs to do as a Slurm job array (one task a run) and return; the tree must be on a\n"
    "file system the nodes share. sbatch options as --slurm:KEY VALUE (partition, time, gres, account)"},
   OptionWords::flag, [](RunnerOptions& o, V) { o.slurm = true; }},
  {{"wait", "", "", "with --slurm: wait until the job has ended, with progress, and exit 1 when a run is incomplete"},
   OptionWords::flag, [](RunnerOptions& o, V) { o.wait = true; }},
  // Decimal digits: CLI11 read it with strtoull's base 0, so "0x10" ran 16 tasks at once and "010" 8.
  {{"max-tasks", "N", "8", "with --slurm: at most N runs at once (sbatch --array=...%N)"}, OptionWords::one,
   [](RunnerOptions& o, V v) {
     o.max_tasks = static_cast<size_t>(
         read_integer("--max-tasks", v[0], {1, 1000000, "a whole number from 1 to 1000000 (runs at once)"}));
   }},
  {{"no-submit", "", "", "with --slurm: write the sbatch script into DIR/slurm/ and submit nothing"}, OptionWords::flag,
   [](RunnerOptions& o, V) { o.no_submit = true; }},
  {{"task", "DIR INDEX", "results/me/host/20260101-120000 0",
    "run plan.json's run INDEX of the campaign DIR (what each Slurm array task runs)"},
   OptionWords::two, [](RunnerOptions& o, V v) { o.task = v; }},
};

// The combinations of options the runner refuses, each with what to do instead.
void check_runner_options(const RunnerOptions& o) {
  if (!o.task.empty()) {
    if (!o.experiment.empty() || !o.resume.empty() || !o.out.empty() || o.slurm || o.list || !o.devices.empty())
      throw usage_error("driver run --task DIR INDEX runs one run of a campaign (a Slurm array task) and takes "
                        "no other option");
    return;
  }
  if (o.resume.empty() == o.experiment.empty())
    throw usage_error("driver run: give an EXPERIMENT file or --resume DIR (one of them)");
  if (!o.resume.empty() && !o.out.empty())
    throw usage_error("driver run --resume " + excerpt(o.resume, 200) + ": the campaign stays in its folder; --out names the root "
                      "of a new campaign's tree: leave it out");
  if (!o.experiment.empty() && !o.list && o.out.empty())
    throw usage_error("driver run " + excerpt(o.experiment, 200) + ": --out ROOT is missing (or --list to print the runs)");
  // --list prints the plan's command lines and runs nothing: an option about running would do nothing.
  if (o.list && (!o.out.empty() || !o.devices.empty() || o.slurm))
    throw usage_error(std::string("driver run --list prints the runs' command lines and runs nothing; leave out ") +
                      (!o.out.empty() ? "--out" : !o.devices.empty() ? "--devices" : "--slurm"));
  if (!o.slurm && (o.wait || o.no_submit || o.max_tasks || !o.sbatch.empty()))
    throw usage_error(std::string("driver run: ") +
                      (o.wait ? "--wait" : o.no_submit ? "--no-submit" : o.max_tasks ? "--max-tasks" : "--slurm:KEY") +
                      " is an option of --slurm: add --slurm, or leave it out");
  if (o.slurm && !o.devices.empty())
    throw usage_error("driver run --slurm: Slurm chooses each task's node and devices; leave out --devices and "
                      "ask for devices with --slurm:gres gpu:1");
  if (o.wait && o.no_submit) throw usage_error("driver run --slurm: --wait and --no-submit exclude each other");
}

}  // namespace

std::optional<RunnerOptions> parse_runner_options(std::vector<std::string> args, std::ostream& out) {
  CLI::App app{"Runs an experiment file: each expanded run is a driver process; results go to\n"
               "ROOT/<user>/<host>/<time>/ (docs/campaigns.md).",
               "driver run"};
  GivenOptions given;
  for (const Cli11Row<RunnerOptions>& row : kRunnerOptions) given.add(app, row);
  refuse_control_characters(args);  // its values reach plan.json, the runs' command lines and their logs
  RunnerOptions o;
  o.sbatch = take_sbatch_options(args);
  std::vector<const char*> words = {"driver run"};
  for (const auto& a : args) words.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(words.size()), words.data());
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return std::nullopt;
  } catch (const CLI::ParseError& e) {
    throw usage_error(parse_error_line(app, e.what(), args) + " (see driver run --help)");
  }
  for (const Cli11Row<RunnerOptions>& row : kRunnerOptions)
    if (given.given(row.name)) row.read(o, given.values(row.name));
  check_runner_options(o);
  return o;
}

}  // namespace fmwork
