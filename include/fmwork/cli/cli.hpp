// The command line: upstream's fixed options (parsed with CLI11), the dynamic sub-options
// `--SET:key[:key...][@] VALUE` gathered into one tree per set, and the ARGS echo upstream prints.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fmwork/base/python_value.hpp"

namespace fmwork {

// The most --reps admitted: the sweep keeps two timestamps a rep (and a duration), allocated before the
// first rep, so the count sizes memory (--reps 2147483648 asked for 2 x 16 GiB).
constexpr int64_t kMaxReps = 1'000'000;
// The most keys of a sub-option after its set (--compile:options:max_autotune has 2). A key of 20,000 parts
// (a 40 KB word) made the tree quadratic in memory (found by fuzz/cli_fuzz.cpp).
constexpr size_t kMaxSubOptionKeys = 31;

// Upstream's fixed options plus the few of ours. Sizes are positive; 2 <= reps <= kMaxReps; names without spaces.
struct FixedArgs {
  std::string platform;                   // --platform (required): cpu, cuda, cuda:N, or a plugin name
  std::string model_class;                // --model_class (required)
  std::optional<std::string> model_root;  // --model_root
  std::string model_name;                 // --model_name (required)
  std::string model_path;                 // derived: model_root/model_name, or model_name
  bool compile = false;                   // --compile
  bool eval = false;                      // --eval
  std::vector<int64_t> input_sizes;       // --input_sizes 64,128 (required)
  std::vector<int64_t> batch_sizes;       // --batch_sizes 1,4 (required)
  int64_t reps = 0;                       // --reps (required, 2 to kMaxReps)
  // Ours. Echoed in the args JSON only when given, so upstream command lines print upstream's output.
  uint64_t seed = 0;                      // --seed: the input generator's seed
  bool seed_given = false;
  std::optional<std::string> save_outputs;   // --save_outputs DIR
  std::optional<std::string> check_outputs;  // --check_outputs DIR
  bool isolate = false;                      // --isolate: each combination in a process of its own (isolate.hpp)
};

// The sub-option sets the driver accepts, in the order upstream lists them; `platform` (plugin options) and
// `check_outputs` (tolerances) are ours and appear in `subs` only when used.
extern const std::vector<std::string> kSubOptionSets;  // compile, model, torch.call, torch.set, platform, check_outputs

struct CommandLine {
  FixedArgs args;
  // Set name -> dict Value (nested keys become nested dicts). compile, model, torch.call and torch.set
  // are always present (possibly empty dicts); platform only when given. Keys are sorted recursively,
  // as upstream sorts them before use.
  std::map<std::string, Value> subs;
  // One entry per option as typed, "--batch_sizes 1,2", "--compile", "--compile:dynamic@ True",
  // sorted as strings: the text of the FMWORK ARG lines.
  std::vector<std::string> arg_words;
};

// Parses argv (argv[0] is the program). Throws a usage Error naming the option and what is accepted:
// missing required option, bad size list, reps < 2 (explaining the warm-up rule) or > kMaxReps, a space in
// model_name / model_class, an unknown sub-option set, a key without value or of more than kMaxSubOptionKeys
// keys, an unparsable `@` value.
// `--help` is not handled here (the executable handles it before calling this).
CommandLine parse_command_line(int argc, const char* const* argv);

// The ARGS section body as upstream prints it (without the banner): the sorted `FMWORK ARG` lines, an
// empty line, and the args JSON (4-space indent, keys sorted, subs last, leaves as Python repr strings,
// plain strings as is), ending with a newline.
std::string format_args_section(const CommandLine& command_line);

// The text printed by `driver --help`. The keys of --compile:, --model: and --check_outputs: come from
// option_sets' tables (option_set_docs), the ones the builders parse with.
std::string driver_usage();

}  // namespace fmwork
