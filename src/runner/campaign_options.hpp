// The command line of `driver run`: its options and the combinations it refuses. Apart from the campaign
// itself (campaign.cpp) because it is the user's side of it: what may be asked, and what to do instead.
// Private to src/runner/.
#pragma once

#include <cstddef>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "fmwork/cli/command_args.hpp"
#include "fmwork/runner/slurm.hpp"

namespace fmwork {

// RunArgs as its rows read them, and the --slurm:KEY VALUE words as sbatch options.
struct RunnerOptions : RunArgs {
  std::vector<SbatchOption> sbatch;
};

// `driver run`'s words after "run" as options. --help: the help on `out` and nullopt. Throws a usage Error
// for a bad option, a missing or extra argument, or options that exclude each other (saying which).
std::optional<RunnerOptions> parse_runner_options(std::vector<std::string> args, std::ostream& out);

}  // namespace fmwork
