// Each rep's request lengths under --input_lengths: drawn from the distribution per batch (padded, unpadded)
// or taken from a sorted window (sorted), before the rep's timed region. One per combination, seeded from
// --seed alone, so that every batching mode of a run sees the same requests: the same ones over all the reps,
// and the same ones over the kept reps (what STAT and the comparisons are made of).
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include "fmwork/log/verdicts.hpp"
#include "fmwork/workload/lengths.hpp"

namespace fmwork {

class RepLengths {
 public:
  // `reps` reps of `batch` requests, the first `warmup` of them the warm-up that STAT leaves out. `window`:
  // sorted's requests sorted together (nullopt: a whole stretch, below); at least `batch`. Other modes ignore
  // it.
  RepLengths(const LengthSpec& spec, Batching mode, int64_t batch, int64_t reps, int64_t warmup,
             std::optional<int64_t> window, uint64_t seed);

  // The lengths of the next rep's batch, `batch` of them. The combination's requests are the sampler's
  // batch x reps draws in order; rep r of padded and unpadded runs draws r x batch .. (r + 1) x batch - 1.
  // Sorted takes the same requests in windows: the warm-up's reps and the kept reps are two stretches, each cut
  // into windows of `window` requests rounded up to whole batches (the stretch whole without a window; a
  // stretch's last window is what is left of it), each window sorted (longest first, as sorted_batches() cuts
  // it) and its batches run in a seeded random order. So no request is left out (a short last batch would
  // always hold the window's shortest requests), and the kept reps of every mode run the same requests.
  // Past `reps` reps, windows keep their size.
  std::vector<int64_t> next();

 private:
  LengthSampler sampler_;
  Batching mode_;
  int64_t batch_, reps_, warmup_;
  std::optional<int64_t> window_batches_;  // sorted: a window's batches (nullopt: the stretch whole)
  int64_t handed_ = 0;                     // reps handed out so far
  std::mt19937_64 order_;                  // the order of a sorted window's batches
  std::vector<std::vector<int64_t>> pending_;
};

// The token counts of one rep: the real tokens (the sum of the lengths) and those the model computed on
// (padded and sorted: batch x the length the batch was padded to; unpadded: the real ones).
TokenCounts rep_tokens(const std::vector<int64_t>& lengths, int64_t padded_to, Batching mode);
// What the rep computed, for its duration at equal work (verdicts.hpp): rep_tokens()'s computed tokens, and
// attention's token pairs (padded and sorted: batch x padded_to^2; unpadded: each length squared, summed).
RepWork rep_work(const std::vector<int64_t>& lengths, int64_t padded_to, Batching mode);

}  // namespace fmwork
