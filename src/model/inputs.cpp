#include "fmwork/model/inputs.hpp"

#include <ATen/CPUGeneratorImpl.h>

#include <algorithm>

#include <fmt/format.h>

#include "fmwork/base/error.hpp"

namespace fmwork {

InputGenerator::InputGenerator(const TokenFacts& facts, uint64_t seed)
    : generator_(at::make_generator<at::CPUGeneratorImpl>(seed)) {
  std::vector<int64_t> ids;
  ids.reserve(static_cast<size_t>(std::max<int64_t>(facts.vocab_size, 0)));
  std::vector<int64_t> special = facts.special_ids;
  std::sort(special.begin(), special.end());
  for (int64_t id = 0; id < facts.vocab_size; ++id)
    if (!std::binary_search(special.begin(), special.end(), id)) ids.push_back(id);
  if (ids.empty())
    throw usage_error(fmt::format("the vocabulary has no ids left to draw inputs from (vocab_size {}, {} special ids)",
                                  facts.vocab_size, facts.special_ids.size()));
  allowed_ = torch::tensor(ids, torch::kLong);
}

Batch InputGenerator::make(int64_t batch, int64_t input, const torch::Device& device) {
  auto picks = torch::randint(allowed_.numel(), {batch, input}, generator_, torch::kLong);
  auto options = torch::TensorOptions().dtype(torch::kLong).device(device);
  Batch b;
  b.input_ids = allowed_.index({picks}).to(device);
  b.attention_mask = torch::ones({batch, input}, options);
  b.padded = false;
  b.token_type_ids = torch::zeros({batch, input}, options);
  return b;
}

}  // namespace fmwork
