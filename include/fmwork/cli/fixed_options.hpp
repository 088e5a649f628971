// The values of the model's and the sweep's options (--platform ... --quiet) as FixedArgs, their readers and
// their checks against each other. Their rows (name, help, which commands take them, the reader) are
// options.hpp's one table, with driver serve's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

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
  // --save_outputs DIR: after the last rep, the inputs and outputs go to DIR (sweep/saved_outputs.hpp).
  std::optional<std::string> save_outputs;
  // --check_outputs DIR: every rep is fed the saved inputs instead of random ones; after the last rep a CHECK
  // line compares the outputs with the saved ones (the tolerances: --check_outputs:KEY, CheckOptions).
  std::optional<std::string> check_outputs;
  bool isolate = false;                      // --isolate: each combination in a process of its own (isolate.hpp)
  std::optional<int64_t> isolate_timeout;    // --isolate_timeout S: a child running past S seconds is killed
  // --profile DIR: after each combination's timed reps (and its output check), one more rep of the same inputs
  // under LibTorch's profiler writes DIR/<input>x<batch>.trace.json and the PROFILE lines of its top operators
  // (kTopOps per side, sweep.hpp: CPU operators, device kernels). Never inside the timed reps.
  std::optional<std::string> profile;
  bool quiet = false;                        // --quiet: no progress on stderr
  // --warmup N: the reps STAT and the verdicts leave out, instead of upstream's max(int(0.2*reps),1); at most
  // reps - 1. RES keeps upstream's rule whatever it is, so RES means what it means to upstream's readers.
  std::optional<int64_t> warmup;
  // --input_lengths SPEC: each request's length drawn from a distribution (workload/lengths.hpp) instead of
  // every row filled to the input size; each --input_sizes value is then the combination's longest length. The
  // sweep draws each rep's lengths (sweep/rep_lengths.hpp) seeded with --seed, each batch padded to its longest
  // (to the input size on a platform of one shape) or packed (--batching unpadded).
  std::optional<std::string> input_lengths;  // as given
  std::optional<LengthSpec> lengths;         // as read
  // --batching padded|sorted|unpadded (when not given: default_batching, sweep/bench_setup.hpp) and
  // --sort_window N (sorted: the requests sorted together; default all of a combination's reps' requests).
  std::optional<Batching> batching;
  std::optional<int64_t> sort_window;
};

// Whose an option is: upstream's options are always in the args JSON; ours only when given (not None, not False).
enum class Origin { upstream, ours };

// The readers of the fixed options' values (options.cpp's rows call them): each reads `text`, given to the
// option spelt `option` ("--reps"), through base/option_values.hpp's readers; a usage Error naming the option,
// saying what would be right. Sizes: a comma list of distinct positive integers of at most 18 digits; reps: 2
// to kMaxReps (explaining the warm-up rule); a count: 0 to kMaxReps - 1 in `unit`; a seed: an unsigned 64-bit
// integer.
std::vector<int64_t> read_sizes(const std::string& option, const std::string& text);
int64_t read_reps(const std::string& option, const std::string& text);
int64_t read_count(const std::string& option, const std::string& text, const char* unit);
uint64_t read_seed(const std::string& option, const std::string& text);

// The fixed options read (FixedArgs as the rows filled it) checked against each other, and model_path derived
// (model_root/model_name, as os.path.join, or model_name). A usage Error for an --isolate_timeout of 0 or
// without --isolate, a --warmup that leaves no rep of --reps, --input_lengths that can draw a length above the
// smallest --input_sizes, and --sort_window without --batching sorted (or below the largest batch size), or a
// default sorted window past kMaxSortWindow.
void check_fixed_args(FixedArgs& args);

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

}  // namespace fmwork
