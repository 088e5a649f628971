// Seeded random token batches, built (and moved to the device) before the timed region of each rep.
#pragma once

#include <cstdint>
#include <vector>

#include <torch/torch.h>

#include "fmwork/model/model.hpp"

namespace fmwork {

class InputGenerator {
 public:
  // Token ids are drawn uniformly from [0, facts.vocab_size) minus facts.special_ids, as upstream's
  // generator does, but from a seeded generator so that runs repeat. Throws a usage Error when no id is left.
  InputGenerator(const TokenFacts& facts, uint64_t seed);

  // A [batch, input] batch on `device`: random input_ids, attention_mask all ones, token_type_ids zeros
  // (all int64), padded false. Each call draws new ids.
  Batch make(int64_t batch, int64_t input, const torch::Device& device);
  // A batch of rows of mixed lengths, each padded to `input` (at least the longest of `lengths`, one per row):
  // random ids throughout (the padding's are masked, never read as real), attention_mask 1 on each row's first
  // lengths[i] tokens and 0 after, `lengths` kept, padded true unless every row is full.
  Batch make(const std::vector<int64_t>& lengths, int64_t input, const torch::Device& device);

  int64_t allowed_ids() const { return allowed_.numel(); }

 private:
  torch::Tensor allowed_;  // the ids that may be drawn
  torch::Generator generator_;
};

// Packs `batch`'s real tokens (Batch::packed) on its device, from batch.lengths (empty: every row full).
// Before the timed region: it copies the ids once and builds the index tensors.
void pack_batch(Batch& batch);

// The lengths of a right-padded attention_mask ([batch, input], on any device): each row's count of ones,
// when every row is ones then zeros; empty when some row is not (a mask of another pattern).
std::vector<int64_t> lengths_of_mask(const torch::Tensor& attention_mask);

}  // namespace fmwork
