// What a benchmark's traffic looks like beyond one fixed size: the length of each request drawn from a
// distribution (a fixed length, a file of real token counts, uniform, log-normal with a cap), and how requests
// are batched (padded to the batch's longest, sorted by length in a window first, or unpadded). Torch-free:
// the driver's sweep and the serving scenario draw from the same sampler; the model layer turns a batch's
// lengths into tensors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace fmwork {

// The longest request length any distribution may hold: far beyond every model's position table, small
// enough that a batch's token count (batch x length) cannot overflow int64.
inline constexpr int64_t kMaxRequestLength = int64_t{1} << 24;
// A file of lengths holds at most this many lines (one per request), each at most kMaxLengthLineBytes bytes
// (spaces and a carriage return included), and at most kMaxLengthFileBytes bytes in all.
inline constexpr size_t kMaxLengthFileLines = 1'000'000;
inline constexpr size_t kMaxLengthLineBytes = 64;
inline constexpr size_t kMaxLengthFileBytes = size_t{16} << 20;
// Log-normal's sigma (of the natural log of the length) when the spec leaves it out: e^0.8 = 2.2, so about
// two requests in three lie within 2.2x of the median either way: short queries mixed with passages.
inline constexpr double kDefaultLognormalSigma = 0.8;

enum class LengthKind { fixed, file, uniform, lognormal };

// A length distribution, as parse_length_spec() reads it from an option's value:
//   N  or  fixed:N          every request N tokens
//   file:PATH               the lengths of PATH (one integer per line), drawn uniformly with replacement
//   uniform:MIN,MAX         uniform on the integers MIN..MAX
//   lognormal:MEDIAN,MAX[,SIGMA]  round(exp(N(ln MEDIAN, SIGMA))), redrawn while outside 1..MAX
//                           (a log-normal truncated to 1..MAX; SIGMA kDefaultLognormalSigma when left out)
struct LengthSpec {
  LengthKind kind = LengthKind::fixed;
  int64_t min = 1;                     // the shortest length it can draw (lognormal: 1)
  int64_t max = 1;                     // the longest length it can draw (fixed: N; file: the longest line)
  double median = 0;                   // lognormal
  double sigma = kDefaultLognormalSigma;  // lognormal
  std::string path;                    // file: the path as given
  std::vector<int64_t> lengths;        // file: the lengths in file order
};

// Reads `text` (the value of `option_name`, e.g. "--input_lengths") as a LengthSpec; a file's lengths are
// read here. Throws one usage Error per bad value, naming the option and what would be right: an unknown
// kind, a missing or non-integer number, a length below 1 or above kMaxRequestLength, MAX below MIN (or below
// the median), a sigma outside (0, 4], a path that does not exist or is no regular file (refuse_special_file),
// an empty file, a line that is no integer (with its line number), a line longer than kMaxLengthLineBytes,
// more than kMaxLengthFileLines lines or kMaxLengthFileBytes bytes. Blank lines and a final newline are
// skipped; spaces and a carriage return around a number are allowed.
LengthSpec parse_length_spec(std::string_view text, std::string_view option_name);

// The lengths of a file's text, one integer per line (what file:PATH reads): a UTF-8 byte order mark at its start,
// blank lines and a final newline skipped, spaces and a carriage return around a number allowed. A usage Error "<option_name>: <name> ..." for
// a line that is no integer in 1..kMaxRequestLength (with its number), a line longer than
// kMaxLengthLineBytes, more than kMaxLengthFileLines lengths, or none.
std::vector<int64_t> lengths_from_text(std::string_view text, std::string_view name, std::string_view option_name);

// The spec as one word for the META line and the option echo: "fixed:128", "uniform:16,512",
// "lognormal:64,512,0.8" (sigma always written), and for a file exactly "file:" + path (its lengths' count and
// range are not part of the word).
std::string length_spec_text(const LengthSpec& spec);

// Throws a usage Error when `spec` can draw a length above `limit` (the model's position table, or a
// platform's one input size): "<option_name> can draw lengths up to MAX (<spec>), beyond <limit_what> LIMIT;
// ...". `limit_what` says what the limit is, e.g. "the model's position table of".
void check_lengths_fit(const LengthSpec& spec, int64_t limit, std::string_view option_name,
                       std::string_view limit_what = "the model's limit of");

// Draws request lengths from a LengthSpec. Deterministic for a seed on every machine: the transforms are
// written here from std::mt19937_64's raw output (whose sequence the standard fixes), never through the
// standard library's distributions (whose output each library defines its own way). The log-normal goes
// through the C library's log, exp, cos and sqrt, then rounds to an integer, so a last-bit difference between
// C libraries changes a length only on an exact .5 tie.
class LengthSampler {
 public:
  LengthSampler(LengthSpec spec, uint64_t seed);

  // The next request's length, in spec.min..spec.max.
  int64_t next();
  // `n` lengths, one next() each.
  std::vector<int64_t> draw(size_t n);
  // The longest length next() can return (spec.max): what a batch is at most padded to.
  int64_t max() const { return spec_.max; }
  const LengthSpec& spec() const { return spec_; }

 private:
  uint64_t below(uint64_t n);  // uniform on 0..n-1, n >= 1, by rejection
  double unit_open();          // uniform on (0, 1]
  double normal();             // standard normal (Box-Muller, one value per pair kept for the next call)

  LengthSpec spec_;
  std::mt19937_64 engine_;
  bool has_spare_ = false;
  double spare_ = 0;
};

// How a batch of requests of different lengths is run:
//   padded    each batch padded to its longest member, the mask marking the padding (transformers, most
//             pipelines);
//   sorted    a window of requests sorted by length (longest first, as sentence-transformers' encode()
//             does) before it is cut into batches, each then padded to its longest;
//   unpadded  the batch's real tokens packed, no compute spent on padding.
enum class Batching { padded, sorted, unpadded };

// "padded", "sorted", "unpadded".
std::string_view batching_name(Batching mode);
// The modes in the order above, and their names: the one table the parser, the help and the docs read.
const std::vector<Batching>& batching_modes();
std::vector<std::string> batching_names();
// The mode named `text`; a usage Error "<option_name> expects one of padded, sorted, unpadded; got 'X'".
Batching parse_batching(std::string_view text, std::string_view option_name);

// The most requests one sorted window may hold: its lengths, their order and its batches are held at once
// (about 24 bytes a request), so 4 Mi requests cost about 100 MiB.
inline constexpr int64_t kMaxSortWindow = int64_t{1} << 22;

// The sorted mode's batches of one window: the indices of `window` (request lengths in arrival order) sorted
// by length, longest first (a stable sort: equal lengths keep their arrival order), cut into consecutive
// batches of `batch_size` (the last one shorter when the window is not a multiple). Each index appears once.
// `batch_size` >= 1.
std::vector<std::vector<size_t>> sorted_batches(const std::vector<int64_t>& window, int64_t batch_size);

// Token counts of one batch: `real` is the sum of the lengths, `padded` the batch size times its longest
// (what padded and sorted run), and the padding fraction 1 - real / padded.
struct TokenCounts {
  int64_t real = 0;
  int64_t padded = 0;
  double padding_fraction() const { return padded > 0 ? 1.0 - static_cast<double>(real) / padded : 0.0; }
};
TokenCounts token_counts(const std::vector<int64_t>& lengths);

}  // namespace fmwork
