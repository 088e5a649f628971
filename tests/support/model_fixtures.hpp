// What tests of models share: the check that a wrapper (a compiler, CUDA graphs, a plugin's runner) reports
// the facts of the model it wraps.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "fmwork/model/model.hpp"
#include "fmwork/sweep/sweep.hpp"

namespace fmwork::test_support {

// The sweep of these sizes and reps as the command line gives them (RES: model "m", class BertModel), every
// other option at its default and nothing derived (no CPU reference, no GEMM rate, padded batches).
inline SweepPlan sweep_of(std::vector<int64_t> batch_sizes, std::vector<int64_t> input_sizes, int64_t reps) {
  SweepPlan plan;
  plan.args.batch_sizes = std::move(batch_sizes), plan.args.input_sizes = std::move(input_sizes);
  plan.args.reps = reps, plan.args.model_name = "m", plan.args.model_class = "BertModel";
  return plan;
}

// Every fact of `wrapped` is `inner`'s: the same dtype, tokens, parameters, weights, inputs, outputs, and the same
// FLOPs and activation estimate at batch x input where the inner model has them (a wrapper may add to the
// activation estimate, never lose it). The description starts with the inner one's and may add lines.
inline void expect_facts_carried(const ModelFacts& inner, const ModelFacts& wrapped, int64_t batch, int64_t input) {
  EXPECT_EQ(wrapped.description.rfind(inner.description, 0), 0u) << wrapped.description;
  EXPECT_EQ(wrapped.dtype_name, inner.dtype_name);
  EXPECT_EQ(wrapped.tokens.vocab_size, inner.tokens.vocab_size);
  EXPECT_EQ(wrapped.tokens.special_ids, inner.tokens.special_ids);
  EXPECT_EQ(wrapped.tokens.type_vocab_size, inner.tokens.type_vocab_size);
  EXPECT_EQ(wrapped.parameter_count, inner.parameter_count);
  EXPECT_EQ(wrapped.weights_source, inner.weights_source);
  EXPECT_EQ(wrapped.fed_inputs, inner.fed_inputs);
  EXPECT_EQ(wrapped.output_names, inner.output_names);
  ASSERT_EQ(static_cast<bool>(wrapped.forward_flops), static_cast<bool>(inner.forward_flops)) << "FLOPs lost";
  if (inner.forward_flops) EXPECT_EQ(wrapped.forward_flops(batch, input), inner.forward_flops(batch, input));
  ASSERT_EQ(static_cast<bool>(wrapped.activation_bytes), static_cast<bool>(inner.activation_bytes))
      << "activation estimate lost: memory admission would be off";
  if (inner.activation_bytes) EXPECT_GE(wrapped.activation_bytes(batch, input), inner.activation_bytes(batch, input));
}

}  // namespace fmwork::test_support
