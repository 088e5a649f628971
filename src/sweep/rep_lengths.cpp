// Each rep's request lengths (rep_lengths.hpp).
#include "fmwork/sweep/rep_lengths.hpp"

#include <algorithm>

namespace fmwork {

RepLengths::RepLengths(const LengthSpec& spec, Batching mode, int64_t batch, int64_t reps,
                       std::optional<int64_t> window, uint64_t seed)
    : sampler_(spec, seed),
      mode_(mode),
      batch_(batch),
      window_(std::max(window.value_or(batch * reps), batch)),
      order_(seed ^ 0x736f72746564ULL) {}

std::vector<int64_t> RepLengths::next() {
  if (mode_ != Batching::sorted) return sampler_.draw(static_cast<size_t>(batch_));
  if (pending_.empty()) {
    const std::vector<int64_t> window = sampler_.draw(static_cast<size_t>(window_));
    for (const auto& indices : sorted_batches(window, batch_)) {
      if (static_cast<int64_t>(indices.size()) < batch_) continue;  // the short last batch: left out
      std::vector<int64_t> lengths;
      for (size_t i : indices) lengths.push_back(window[i]);
      pending_.push_back(std::move(lengths));
    }
    // Fisher-Yates from the engine's raw output (the modulo's bias is below 2^-40 for any window count).
    for (size_t i = pending_.size(); i > 1; --i) std::swap(pending_[i - 1], pending_[order_() % i]);
  }
  std::vector<int64_t> lengths = std::move(pending_.back());
  pending_.pop_back();
  return lengths;
}

TokenCounts rep_tokens(const std::vector<int64_t>& lengths, int64_t padded_to, Batching mode) {
  TokenCounts counts;
  for (const int64_t length : lengths) counts.real += length;
  counts.padded = mode == Batching::unpadded ? counts.real : padded_to * static_cast<int64_t>(lengths.size());
  return counts;
}

}  // namespace fmwork
