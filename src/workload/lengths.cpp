// Length distributions, their sampler, and the batching modes' table (lengths.hpp).
#include "fmwork/workload/lengths.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>

#include <fmt/format.h>

#include "fmwork/base/error.hpp"
#include "fmwork/base/option_values.hpp"
#include "fmwork/base/regular_file.hpp"
#include "fmwork/base/text_format.hpp"

namespace fmwork {
namespace {

constexpr const char* kSyntax = "N, fixed:N, uniform:MIN,MAX, lognormal:MEDIAN,MAX[,SIGMA] or file:PATH";

std::string_view trim(std::string_view text) {
  const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
  while (!text.empty() && blank(text.front())) text.remove_prefix(1);
  while (!text.empty() && blank(text.back())) text.remove_suffix(1);
  return text;
}

// DIGITS[.DIGITS] (at most 12 digits on each side), read digit by digit: the same double on every machine
// and in every locale; nullopt otherwise.
std::optional<double> parse_decimal(std::string_view text) {
  const size_t dot = text.find('.');
  const std::string_view whole = text.substr(0, dot);
  const std::string_view fraction = dot == std::string_view::npos ? std::string_view() : text.substr(dot + 1);
  if (whole.empty() && fraction.empty()) return std::nullopt;
  if (dot != std::string_view::npos && fraction.empty()) return std::nullopt;
  const auto digits = [](std::string_view part) {
    return part.size() <= 12 && part.find_first_not_of("0123456789") == std::string_view::npos;
  };
  if (!digits(whole) || !digits(fraction)) return std::nullopt;
  double value = 0;
  for (const char c : whole) value = value * 10 + (c - '0');
  double scale = 1;
  int64_t part = 0;
  for (const char c : fraction) part = part * 10 + (c - '0'), scale *= 10;
  return value + static_cast<double>(part) / scale;
}

class SpecParser {
 public:
  SpecParser(std::string_view text, std::string_view option) : text_(text), option_(option) {}

  LengthSpec parse() {
    const size_t colon = text_.find(':');
    const std::string_view kind = colon == std::string_view::npos ? std::string_view() : text_.substr(0, colon);
    const std::string_view rest = colon == std::string_view::npos ? text_ : text_.substr(colon + 1);
    LengthSpec spec;
    if (colon == std::string_view::npos || kind == "fixed") {
      spec.kind = LengthKind::fixed;
      spec.min = spec.max = length(rest, "the length");
    } else if (kind == "uniform") {
      const auto parts = numbers(rest, 2, 2, "uniform:MIN,MAX");
      spec.kind = LengthKind::uniform;
      spec.min = length(parts[0], "MIN");
      spec.max = length(parts[1], "MAX");
      if (spec.max < spec.min)
        fail(fmt::format("uniform's MAX {} is below its MIN {}; give MIN <= MAX", spec.max, spec.min));
    } else if (kind == "lognormal") {
      const auto parts = numbers(rest, 2, 3, "lognormal:MEDIAN,MAX[,SIGMA]");
      spec.kind = LengthKind::lognormal;
      const std::optional<double> median = parse_decimal(parts[0]);
      if (!median || *median < 1 || *median > static_cast<double>(kMaxRequestLength))
        fail(fmt::format("lognormal's MEDIAN '{}' is no number from 1 to {}", excerpt(parts[0], 40), kMaxRequestLength));
      spec.median = *median;
      spec.min = 1;
      spec.max = length(parts[1], "MAX");
      if (static_cast<double>(spec.max) < spec.median)
        fail(fmt::format("lognormal's MAX {} is below its MEDIAN {}; give MEDIAN <= MAX", spec.max,
                         excerpt(parts[0], 40)));
      if (parts.size() == 3) {
        const std::optional<double> sigma = parse_decimal(parts[2]);
        if (!sigma || *sigma <= 0 || *sigma > 4)
          fail(fmt::format("lognormal's SIGMA '{}' is no number in (0, 4] (the spread of ln(length); {} when left "
                           "out)", excerpt(parts[2], 40), kDefaultLognormalSigma));
        spec.sigma = *sigma;
      }
    } else if (kind == "file") {
      spec.kind = LengthKind::file;
      spec.path = std::string(rest);
      read_lengths(spec);
    } else {
      fail(fmt::format("'{}' is no length distribution; give {}", excerpt(text_), kSyntax));
    }
    return spec;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const { throw usage_error(std::string(option_) + ": " + what); }

  std::vector<std::string_view> numbers(std::string_view rest, size_t least, size_t most, const char* form) const {
    const auto parts = split(rest, ',');
    if (parts.size() < least || parts.size() > most)
      fail(fmt::format("'{}' expects {}; got {}", excerpt(text_), form, parts.size() == 1 ? "1 value" :
                       std::to_string(parts.size()) + " values"));
    return parts;
  }

  int64_t length(std::string_view text, const char* what) const {
    const std::optional<int64_t> value = parse_digits(text);
    if (!value) fail(fmt::format("{} '{}' in '{}' is no integer; give {}", what, excerpt(text, 40), excerpt(text_), kSyntax));
    if (*value < 1 || *value > kMaxRequestLength)
      fail(fmt::format("{} {} is out of range: a length is from 1 to {} tokens", what, excerpt(text, 40),
                       kMaxRequestLength));
    return *value;
  }

  void read_lengths(LengthSpec& spec) const {
    const std::string& path = spec.path;
    const std::string name = std::string(option_) + " file " + excerpt(path, 200);
    if (path.empty()) fail("file: needs a path, e.g. file:lengths.txt (one token count per line)");
    try {
      refuse_special_file(path);
    } catch (const Error& e) {
      fail(e.what());
    }
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0)
      fail(fmt::format("{} does not exist; give a file of lengths, one per line", excerpt(path, 200)));
    if (static_cast<uint64_t>(st.st_size) > kMaxLengthFileBytes)
      fail(fmt::format("{} has {} bytes, more than the {} a file of lengths may hold", excerpt(path, 200),
                       st.st_size, kMaxLengthFileBytes));
    std::string text;
    try {
      text = read_file(path, kMaxLengthFileBytes, name);
    } catch (const Error& e) {
      throw usage_error(e.what());
    }
    spec.lengths = lengths_from_text(text, excerpt(path, 200), option_);
    const auto [low, high] = std::minmax_element(spec.lengths.begin(), spec.lengths.end());
    spec.min = *low;
    spec.max = *high;
  }

  std::string_view text_;
  std::string_view option_;
};

}  // namespace

std::vector<int64_t> lengths_from_text(std::string_view text, std::string_view name, std::string_view option_name) {
  const auto fail = [&](const std::string& what) {
    throw usage_error(fmt::format("{}: {} {}", option_name, name, what));
  };
  std::vector<int64_t> lengths;
  size_t line_number = 0;
  // A UTF-8 byte order mark, which Windows editors write first and no one sees: it made line 1 "no integer"
  // with the bytes invisible in the message. Skipped, as Python's utf-8-sig reads it.
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  // UTF-16 (Windows' "Unicode" text, PowerShell's `>`): line 1 was "'\xff\xfe1\x002\x00' is no integer".
  if (text.substr(0, 2) == "\xFF\xFE" || text.substr(0, 2) == "\xFE\xFF" || text.find('\0') != std::string_view::npos)
    fail("is not UTF-8 or ASCII text (a UTF-16 byte order mark, or NUL bytes, as Windows' \"Unicode\" text has): "
         "save it as UTF-8 or ASCII, one token count per line");
  while (!text.empty()) {
    const size_t newline = text.find('\n');
    const std::string_view line = text.substr(0, newline);
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    ++line_number;
    if (line.size() > kMaxLengthLineBytes)
      fail(fmt::format("line {} is longer than {} bytes; each line holds one length", line_number, kMaxLengthLineBytes));
    const std::string_view word = trim(line);
    if (word.empty()) continue;
    if (lengths.size() == kMaxLengthFileLines)
      fail(fmt::format("holds more than {} lengths; give a sample of them", kMaxLengthFileLines));
    const std::optional<int64_t> value = parse_digits(word);
    if (!value)
      fail(fmt::format("line {}: '{}' is no integer; each line holds one token count", line_number, excerpt(word, 40)));
    if (*value < 1 || *value > kMaxRequestLength)
      fail(fmt::format("line {}: {} is out of range: a length is from 1 to {} tokens", line_number, *value,
                       kMaxRequestLength));
    lengths.push_back(*value);
  }
  if (lengths.empty()) fail("holds no lengths; give one token count per line");
  return lengths;
}

LengthSpec parse_length_spec(std::string_view text, std::string_view option_name) {
  if (text.empty())
    throw usage_error(fmt::format("{} is empty; give {}", option_name, kSyntax));
  return SpecParser(text, option_name).parse();
}

std::string length_spec_text(const LengthSpec& spec) {
  switch (spec.kind) {
    case LengthKind::fixed: return fmt::format("fixed:{}", spec.max);
    case LengthKind::uniform: return fmt::format("uniform:{},{}", spec.min, spec.max);
    case LengthKind::lognormal: return fmt::format("lognormal:{:g},{},{:g}", spec.median, spec.max, spec.sigma);
    case LengthKind::file: return "file:" + spec.path;
  }
  return "";
}

void check_lengths_fit(const LengthSpec& spec, int64_t limit, std::string_view option_name, std::string_view limit_what) {
  if (spec.max <= limit) return;
  throw usage_error(fmt::format("{} can draw lengths up to {} ({}), beyond {} {} tokens; give a distribution whose "
                                "longest length is at most {}", option_name, spec.max, excerpt(length_spec_text(spec), 200),
                                limit_what, limit, limit));
}

LengthSampler::LengthSampler(LengthSpec spec, uint64_t seed) : spec_(std::move(spec)), engine_(seed) {}

uint64_t LengthSampler::below(uint64_t n) {
  // The largest multiple of n that fits in 2^64, as 2^64 - (2^64 mod n): draws at or above it are redrawn so
  // that every residue is equally likely.
  const uint64_t reject_from = n == 0 ? 0 : (~uint64_t{0} - n + 1) % n;  // (2^64 - n) mod n == 2^64 mod n
  for (;;) {
    const uint64_t x = engine_();
    if (x >= reject_from) return x % n;
  }
}

double LengthSampler::unit_open() {
  return static_cast<double>((engine_() >> 11) + 1) * 0x1.0p-53;  // 53 random bits: (0, 1]
}

double LengthSampler::normal() {
  if (has_spare_) {
    has_spare_ = false;
    return spare_;
  }
  const double radius = std::sqrt(-2.0 * std::log(unit_open()));
  const double angle = 2.0 * 3.14159265358979323846 * unit_open();
  spare_ = radius * std::sin(angle);
  has_spare_ = true;
  return radius * std::cos(angle);
}

int64_t LengthSampler::next() {
  switch (spec_.kind) {
    case LengthKind::fixed: return spec_.max;
    case LengthKind::uniform:
      return spec_.min + static_cast<int64_t>(below(static_cast<uint64_t>(spec_.max - spec_.min) + 1));
    case LengthKind::file: return spec_.lengths[below(spec_.lengths.size())];
    case LengthKind::lognormal: {
      // Redrawn while outside 1..max: MEDIAN <= MAX keeps at least about half of the draws, so 1000 tries fail
      // with a probability below 2^-900; the cap then stands as the length rather than a loop without end.
      const double mu = std::log(spec_.median);
      for (int attempt = 0; attempt < 1000; ++attempt) {
        const double value = std::round(std::exp(mu + spec_.sigma * normal()));
        if (value >= 1 && value <= static_cast<double>(spec_.max)) return static_cast<int64_t>(value);
      }
      return spec_.max;
    }
  }
  return spec_.max;
}

std::vector<int64_t> LengthSampler::draw(size_t n) {
  std::vector<int64_t> lengths(n);
  for (auto& length : lengths) length = next();
  return lengths;
}

const std::vector<Batching>& batching_modes() {
  static const std::vector<Batching> modes = {Batching::padded, Batching::sorted, Batching::unpadded};
  return modes;
}

std::string_view batching_name(Batching mode) {
  switch (mode) {
    case Batching::padded: return "padded";
    case Batching::sorted: return "sorted";
    case Batching::unpadded: return "unpadded";
  }
  return "padded";
}

std::vector<std::string> batching_names() {
  std::vector<std::string> names;
  for (const Batching mode : batching_modes()) names.emplace_back(batching_name(mode));
  return names;
}

Batching parse_batching(std::string_view text, std::string_view option_name) {
  const std::string name = read_choice(std::string(option_name), std::string(text), batching_names());
  for (const Batching mode : batching_modes())
    if (name == batching_name(mode)) return mode;
  throw runtime_error("batching_names() lists a mode batching_modes() does not hold: " + name);
}

std::vector<std::vector<size_t>> sorted_batches(const std::vector<int64_t>& window, int64_t batch_size) {
  std::vector<size_t> order(window.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return window[a] > window[b]; });
  std::vector<std::vector<size_t>> batches;
  const size_t size = static_cast<size_t>(std::max<int64_t>(batch_size, 1));
  for (size_t start = 0; start < order.size(); start += size)
    batches.emplace_back(order.begin() + static_cast<std::ptrdiff_t>(start),
                         order.begin() + static_cast<std::ptrdiff_t>(std::min(start + size, order.size())));
  return batches;
}

TokenCounts token_counts(const std::vector<int64_t>& lengths) {
  TokenCounts counts;
  int64_t longest = 0;
  for (const int64_t length : lengths) counts.real += length, longest = std::max(longest, length);
  counts.padded = longest * static_cast<int64_t>(lengths.size());
  return counts;
}

}  // namespace fmwork
