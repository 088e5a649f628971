// `driver run`'s options (see campaign_options.hpp): its rows of the one option table (cli/options.cpp) and its
// `--slurm:KEY VALUE` words, read by the one tokenizer; then the combinations refused.
#include "campaign_options.hpp"

#include "fmwork/base/error.hpp"
#include "fmwork/cli/cli.hpp"
#include "fmwork/cli/usage.hpp"

namespace fmwork {
namespace {

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
  if (asks_for_help(args)) {
    out << command_usage(Command::run);
    return std::nullopt;
  }
  const CommandLine line = parse_command_line(args, Command::run);
  RunnerOptions o;
  static_cast<RunArgs&>(o) = line.run;
  for (const auto& [key, value] : line.keyed) o.sbatch.push_back(sbatch_option(key, value));
  check_runner_options(o);
  return o;
}

}  // namespace fmwork
