// Seeded random token batches, built (and moved to the device) before the timed region of each rep.
#pragma once

#include <cstdint>

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

  int64_t allowed_ids() const { return allowed_.numel(); }

 private:
  torch::Tensor allowed_;  // the ids that may be drawn
  torch::Generator generator_;
};

}  // namespace fmwork
