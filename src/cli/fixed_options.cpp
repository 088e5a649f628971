// The fixed options' values (fixed_options.hpp): how each kind of value is read, and the checks of the
// values against each other.
#include "fmwork/cli/fixed_options.hpp"

#include <algorithm>
#include <filesystem>
#include <limits>
#include <set>

#include <fmt/format.h>

#include "fmwork/base/error.hpp"
#include "fmwork/base/option_values.hpp"
#include "fmwork/hf/config.hpp"

namespace fmwork {

namespace {

// os.path.join(root, name) for two parts.
std::string path_join(const std::string& root, const std::string& name) {
  if (!name.empty() && name[0] == '/') return name;
  if (root.empty() || root.back() == '/') return root + name;
  return root + "/" + name;
}

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

// The largest size a list takes: 18 digits, so that it is read into an int64_t without overflow.
constexpr const char* kMaxSizeText = "999999999999999999";

}  // namespace

std::vector<int64_t> read_sizes(const std::string& option, const std::string& text) {
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

int64_t read_reps(const std::string& option, const std::string& text) {
  const IntegerRule rule{2, kMaxReps, "an integer (at least 2)", std::string(" (each rep's timestamps are kept in memory)"),
                         true};
  const std::optional<int64_t> reps = parse_python_int(text);
  if (reps && *reps < 2)
    throw usage_error(option + " must be at least 2, got " +
                      (*reps == std::numeric_limits<int64_t>::min() ? excerpt(text, 40) : std::to_string(*reps)) +
                      ": the first max(int(0.2*reps),1) reps are dropped as warm-up, so at least 2 are needed");
  return read_integer(option, text, rule);
}

int64_t read_count(const std::string& option, const std::string& text, const char* unit) {
  return read_integer(option, text, {0, kMaxReps - 1, "a non-negative integer", std::string(unit), true});
}

uint64_t read_seed(const std::string& option, const std::string& text) {
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

void check_fixed_args(FixedArgs& args) {
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
}

}  // namespace fmwork
