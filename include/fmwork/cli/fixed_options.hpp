// The driver's fixed options (--platform ... --isolate): one table of FixedOption rows, the one place an
// option is declared. The word sorter (cli.cpp), the value checks and their messages, `driver --help`
// (usage.cpp), `args.NAME` in `@` values and the args JSON (args_section.cpp) all read it; adding an option
// is one row plus its field in FixedArgs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fmwork/base/python_literal.hpp"
#include "fmwork/base/python_value.hpp"
#include "fmwork/cli/option_row.hpp"
#include "fmwork/workload/lengths.hpp"

namespace fmwork {

// The most --reps admitted: the sweep keeps two timestamps a rep (and a duration), allocated before the
// first rep, so the count sizes memory (--reps 2147483648 asked for 2 x 16 GiB).
constexpr int64_t kMaxReps = 1'000'000;

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
  std::optional<int64_t> isolate_timeout;    // --isolate_timeout S: a child running past S seconds is killed
  std::optional<std::string> profile;        // --profile DIR: a traced rep after each combination's timed ones
  bool quiet = false;                        // --quiet: no progress on stderr
  // --warmup N: the reps STAT and the verdicts leave out, instead of upstream's max(int(0.2*reps),1); at most
  // reps - 1. RES keeps upstream's rule whatever it is, so RES means what it means to upstream's readers.
  std::optional<int64_t> warmup;
  // --input_lengths SPEC: each request's length drawn from a distribution (workload/lengths.hpp) instead of
  // every row filled to the input size; each --input_sizes value is then the combination's longest length.
  std::optional<std::string> input_lengths;  // as given
  std::optional<LengthSpec> lengths;         // as read
  // --batching padded|sorted|unpadded (when not given: default_batching, sweep/bench_setup.hpp) and
  // --sort_window N (sorted: the requests sorted together; default all of a combination's reps' requests).
  std::optional<Batching> batching;
  std::optional<int64_t> sort_window;
};

// Whether an option must be given, and whose it is: upstream's options are always in the args JSON; ours
// only when given (not None, not False).
enum class Presence { optional, required };
enum class Origin { upstream, ours };

// One fixed option: its row (name, value name, example, help), then how its value is read and kept.
struct FixedOption : OptionRow {
  Presence presence;
  Origin origin;
  // Reads `text`, given to the option spelt `option` ("--reps"), through base/option_values.hpp's readers and
  // stores it (a flag's: called with "" when given); a usage Error naming the option, saying what would be right.
  void (*read)(FixedArgs&, const std::string& option, const std::string& text);
  std::optional<Value> (*value)(const FixedArgs&);     // args.NAME; nullopt when no Value can hold it
  std::string (*echo)(const FixedArgs&) = nullptr;     // its args JSON text when str(value) cannot say it

  bool required() const { return presence == Presence::required; }
  bool upstream() const { return origin == Origin::upstream; }
};

// The rows, upstream's options in upstream's order, then ours: the order of --help and of the messages that
// list them.
const std::vector<FixedOption>& fixed_options();

// The row of `name` (without "--"), or nullptr.
const FixedOption* find_fixed_option(std::string_view name);

// The value `text` given to `option`, read by its row's reader into `args`. Throws a usage Error naming the
// option: an empty text or word ("--platform is empty; give ..."), whitespace in a word, a bad size list, reps
// out of range (explaining the warm-up rule), a seed that is no unsigned 64-bit integer, a count out of range.
void read_fixed_value(const FixedOption& option, FixedArgs& args, const std::string& text);

// The options given (rows of fixed_options(), each at most once, with its value as typed; a flag with "")
// as FixedArgs: a usage Error for missing required options (all of them, in table order), then for the
// first bad value in table order, then for a --warmup that leaves no rep of --reps, then for an
// --isolate_timeout of 0 or without --isolate, then for --input_lengths that can draw a length above the
// smallest --input_sizes, and --sort_window without --batching sorted (or below the largest batch size). model_path is derived: model_root/model_name (os.path.join), or model_name.
// `not_required` names required options this command does without (parse_command_line's).
FixedArgs fixed_args_from(const std::vector<std::pair<const FixedOption*, std::string>>& given,
                          const std::vector<std::string>& not_required = {});

// The longest row the run feeds against the positions the model folder's config.json gives
// (hf::folder_max_input_size), before anything is loaded: with --input_lengths its longest length, unless each
// row is padded to the input size (`padded_to_input`: a platform of one input size), else the largest
// --input_sizes. A usage Error, one line, "--input_lengths can draw lengths up to 100 (file:l.txt), beyond the
// positions of m/config.json: 64 tokens; ..." or "--input_sizes 600 is beyond the positions of m/config.json:
// 512 tokens; give --input_sizes up to 512". Nothing where config.json does not tell (a file, a package: its
// range is held after loading, sweep/fed_shapes.hpp). The driver's check and driver run's of each run alike.
void check_positions_before_loading(const FixedArgs& args, bool padded_to_input);

// A usage Error when --save_outputs and --check_outputs name one folder (through any path or link): the check
// would read what it writes. Nothing when either is not given or not there yet.
void check_output_folders_differ(const FixedArgs& args);

// `args.NAME` in an `@` value, as upstream's eval namespace holds `args`: each option's value, and
// args.model_path. Refers to `args`, which must outlive it.
NameResolver args_resolver(const FixedArgs& args);

// The fixed part of the args JSON, sorted by name: (name, its text as upstream's to_evaluable_strings writes
// it), upstream's options always, ours only when given, and model_path.
std::vector<std::pair<std::string, std::string>> args_json_fields(const FixedArgs& args);

}  // namespace fmwork
