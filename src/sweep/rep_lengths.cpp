// Each rep's request lengths (rep_lengths.hpp).
#include "fmwork/sweep/rep_lengths.hpp"

#include <algorithm>

namespace fmwork {

RepLengths::RepLengths(const LengthSpec& spec, Batching mode, int64_t batch, int64_t reps, int64_t warmup,
                       std::optional<int64_t> window, uint64_t seed)
    : sampler_(spec, seed),
      mode_(mode),
      batch_(std::max<int64_t>(batch, 1)),
      reps_(reps),
      warmup_(std::clamp<int64_t>(warmup, 0, std::max<int64_t>(reps, 0))),
      order_(seed ^ 0x736f72746564ULL) {
  // Rounded up to whole batches: a window's short last batch would hold its shortest requests, and leaving it
  // out ran longer requests than padded ran on the same seed (42.9 real tokens a rep against 33.0, batch 4 and
  // window 6).
  if (window) window_batches_ = std::max<int64_t>((*window + batch_ - 1) / batch_, 1);
}

std::vector<int64_t> RepLengths::next() {
  if (mode_ != Batching::sorted) {
    ++handed_;
    return sampler_.draw(static_cast<size_t>(batch_));
  }
  if (pending_.empty()) {
    // The window never crosses from the warm-up into the kept reps: each stretch's reps then run its own
    // requests, the same ones padded's reps of that stretch run.
    const int64_t stretch_end = handed_ < warmup_ ? warmup_ : handed_ < reps_ ? reps_ : handed_ + window_batches_.value_or(1);
    const int64_t batches = std::min(window_batches_.value_or(stretch_end - handed_), stretch_end - handed_);
    const std::vector<int64_t> window = sampler_.draw(static_cast<size_t>(batches * batch_));
    for (const auto& indices : sorted_batches(window, batch_)) {
      std::vector<int64_t> lengths;
      for (size_t i : indices) lengths.push_back(window[i]);
      pending_.push_back(std::move(lengths));
    }
    // Fisher-Yates from the engine's raw output (the modulo's bias is below 2^-40 for any window count).
    for (size_t i = pending_.size(); i > 1; --i) std::swap(pending_[i - 1], pending_[order_() % i]);
  }
  std::vector<int64_t> lengths = std::move(pending_.back());
  pending_.pop_back();
  ++handed_;
  return lengths;
}

TokenCounts rep_tokens(const std::vector<int64_t>& lengths, int64_t padded_to, Batching mode) {
  TokenCounts counts;
  for (const int64_t length : lengths) counts.real += length;
  counts.padded = mode == Batching::unpadded ? counts.real : padded_to * static_cast<int64_t>(lengths.size());
  return counts;
}

RepWork rep_work(const std::vector<int64_t>& lengths, int64_t padded_to, Batching mode) {
  RepWork work;
  work.tokens = static_cast<double>(rep_tokens(lengths, padded_to, mode).padded);
  for (const int64_t length : lengths) {
    const double computed = static_cast<double>(mode == Batching::unpadded ? length : padded_to);
    work.pairs += computed * computed;
  }
  return work;
}

}  // namespace fmwork
