// Each rep's request lengths under --input_lengths: drawn from the distribution per batch (padded, unpadded)
// or taken from a sorted window (sorted), before the rep's timed region. One per combination, seeded from
// --seed alone, so that every batching mode of a run sees the same requests.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include "fmwork/workload/lengths.hpp"

namespace fmwork {

class RepLengths {
 public:
  // `window`: sorted's requests sorted together (nullopt: batch x reps, all of the combination's requests);
  // at least `batch`. Other modes ignore it.
  RepLengths(const LengthSpec& spec, Batching mode, int64_t batch, int64_t reps, std::optional<int64_t> window,
             uint64_t seed);

  // The lengths of the next rep's batch, `batch` of them. Padded and unpadded: `batch` draws in arrival order.
  // Sorted: the next batch of the current window, whose full batches (longest first, as sorted_batches() cuts
  // them) are run in a seeded random order, so that reps taken from part of a window (warm-up, a window larger
  // than the reps) are no longer or shorter than the window's; the requests past the last full batch are left
  // out. A new window is drawn when one is used up.
  std::vector<int64_t> next();

 private:
  LengthSampler sampler_;
  Batching mode_;
  int64_t batch_, window_;
  std::mt19937_64 order_;  // the order of a sorted window's batches
  std::vector<std::vector<int64_t>> pending_;
};

// The token counts of one rep: the real tokens (the sum of the lengths) and those the model computed on
// (padded and sorted: batch x the length the batch was padded to; unpadded: the real ones).
TokenCounts rep_tokens(const std::vector<int64_t>& lengths, int64_t padded_to, Batching mode);

}  // namespace fmwork
