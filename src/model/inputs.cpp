#include "fmwork/model/inputs.hpp"

#include <ATen/CPUGeneratorImpl.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>

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

Batch InputGenerator::make(const std::vector<int64_t>& lengths, int64_t input, const torch::Device& device) {
  const auto batch = static_cast<int64_t>(lengths.size());
  Batch b = make(batch, input, device);
  auto mask = torch::zeros({batch, input}, torch::kLong);
  auto rows = mask.accessor<int64_t, 2>();
  bool full = true;
  for (int64_t i = 0; i < batch; ++i) {
    const int64_t length = lengths[static_cast<size_t>(i)];
    if (length < 1 || length > input)
      throw runtime_error(fmt::format("a row of {} tokens in a batch padded to {}", length, input));
    for (int64_t t = 0; t < length; ++t) rows[i][t] = 1;
    full = full && length == input;
  }
  b.attention_mask = mask.to(device);
  b.padded = !full;
  b.lengths = lengths;
  return b;
}

void pack_batch(Batch& batch) {
  const int64_t rows = batch.input_ids.size(0), input = batch.input_ids.size(1);
  std::vector<int64_t> lengths = batch.lengths;
  if (lengths.empty()) lengths.assign(static_cast<size_t>(rows), input);
  // The variable-length kernels count tokens in int32 (cu_seqlens); the memory admission refuses such a
  // batch long before, but a packed batch must never wrap the count.
  int64_t tokens = 0;
  for (const int64_t length : lengths) tokens += length;
  if (tokens > std::numeric_limits<int32_t>::max())
    throw runtime_error(fmt::format("--batching unpadded: a batch of {} tokens is more than the {} the "
                                    "variable-length attention counts; use smaller --batch_sizes or --input_sizes",
                                    tokens, std::numeric_limits<int32_t>::max()));
  std::vector<int64_t> index, positions, sequences, starts;
  std::vector<int32_t> cu_seqlens = {0};
  for (int64_t i = 0; i < rows; ++i) {
    starts.push_back(static_cast<int64_t>(index.size()));
    for (int64_t t = 0; t < lengths[static_cast<size_t>(i)]; ++t)
      index.push_back(i * input + t), positions.push_back(t), sequences.push_back(i);
    cu_seqlens.push_back(static_cast<int32_t>(index.size()));  // below 2^31: checked above
  }
  const auto device = batch.input_ids.device();
  PackedTokens& p = batch.packed;
  p.index = torch::tensor(index, torch::kLong).to(device);
  p.positions = torch::tensor(positions, torch::kLong).to(device);
  p.sequences = torch::tensor(sequences, torch::kLong).to(device);
  p.starts = torch::tensor(starts, torch::kLong).to(device);
  p.cu_seqlens = torch::tensor(cu_seqlens, torch::kInt).to(device);
  p.input_ids = batch.input_ids.reshape({-1}).index_select(0, p.index);
  if (batch.token_type_ids.defined()) p.token_type_ids = batch.token_type_ids.reshape({-1}).index_select(0, p.index);
  p.lengths = lengths;
  batch.lengths = std::move(lengths);
}

std::vector<int64_t> lengths_of_mask(const torch::Tensor& attention_mask) {
  if (!attention_mask.defined() || attention_mask.dim() != 2) return {};
  const auto mask = attention_mask.to(torch::kCPU).ne(0).to(torch::kLong).contiguous();
  const auto rows = mask.accessor<int64_t, 2>();
  std::vector<int64_t> lengths;
  for (int64_t i = 0; i < mask.size(0); ++i) {
    int64_t length = 0;
    while (length < mask.size(1) && rows[i][length]) ++length;
    for (int64_t t = length; t < mask.size(1); ++t)
      if (rows[i][t]) return {};  // a one after a zero: not right padding
    if (length == 0) return {};   // an empty row has nothing to pack
    lengths.push_back(length);
  }
  return lengths;
}

}  // namespace fmwork
