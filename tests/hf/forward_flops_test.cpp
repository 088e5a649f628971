// hf/forward_flops against a hand count: every GEMM of the forward pass listed as (m, n, k), 2 m n k each,
// for configs whose sizes all differ (so that a swapped factor shows), in the three MLP / attention layouts.
// tests/encoders/flops_counter_test.cpp holds the formula against LibTorch's own FLOP counter.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "fmwork/hf/config.hpp"
#include "fmwork/hf/forward_flops.hpp"

namespace {

using fmwork::hf::forward_flops;
using fmwork::hf::parse_config;
using json = nlohmann::json;

struct Gemm {
  double m, n, k, times;  // times: how many such products (layers x batch x heads)
};

double hand_count(const std::vector<Gemm>& gemms) {
  double total = 0;
  for (const Gemm& g : gemms) total += 2 * g.m * g.n * g.k * g.times;
  return total;
}

TEST(ForwardFlops, BertCountsEveryGemmOnceWithThePooler) {
  // 2 layers, hidden 12, 3 heads of 4, intermediate 20; batch 5 x input 7 = 35 tokens.
  const auto c = parse_config(json::parse(R"({"model_type": "bert", "hidden_size": 12, "num_hidden_layers": 2,
    "num_attention_heads": 3, "intermediate_size": 20, "vocab_size": 50, "max_position_embeddings": 16,
    "type_vocab_size": 2})"),
                              "bert/config.json");
  const double N = 35, L = 2;
  const double expected = hand_count({{N, 12, 12, 3 * L},  // query, key, value
                                      {N, 12, 12, L},      // attention output
                                      {7, 7, 4, 5 * 3 * L},  // scores: per sequence and head, T x d by d x T
                                      {7, 4, 7, 5 * 3 * L},  // weighted sum: T x T by T x d
                                      {N, 20, 12, L},      // up
                                      {N, 12, 20, L},      // down
                                      {5, 12, 12, 1}});    // pooler: the first token of each sequence
  const auto f = forward_flops(c, 5, 7, true);
  EXPECT_DOUBLE_EQ(f.total(), expected);
  EXPECT_DOUBLE_EQ(f.pooler, 2 * 5 * 12 * 12);
  EXPECT_DOUBLE_EQ(forward_flops(c, 5, 7, false).total(), expected - 2 * 5 * 12 * 12) << "no pooler, no pooler GEMM";
}

TEST(ForwardFlops, Qwen3CountsKvHeadsHeadDimAndTheGatedMlp) {
  // 3 layers, hidden 32, 6 query heads and 2 kv heads of head_dim 10 (not hidden / heads), intermediate 37.
  const auto c = parse_config(json::parse(R"({"model_type": "qwen3", "hidden_size": 32, "num_hidden_layers": 3,
    "num_attention_heads": 6, "num_key_value_heads": 2, "head_dim": 10, "intermediate_size": 37,
    "vocab_size": 99, "max_position_embeddings": 64})"),
                              "qwen3/config.json");
  const double N = 2 * 9, L = 3;
  const double expected = hand_count({{N, 60, 32, L},         // query: 6 heads x 10
                                      {N, 20, 32, 2 * L},     // key and value: 2 kv heads x 10 each
                                      {N, 32, 60, L},         // attention output
                                      {9, 9, 10, 2 * 6 * L},  // scores, every query head (kv heads are shared)
                                      {9, 10, 9, 2 * 6 * L},  // weighted sum
                                      {N, 37, 32, 2 * L},     // gate and up
                                      {N, 32, 37, L}});       // down
  EXPECT_DOUBLE_EQ(forward_flops(c, 2, 9, false).total(), expected);
}

TEST(ForwardFlops, ModernBertCountsTheWindowedLayersAsDense) {
  // Sliding-window layers compute full T x T scores under a mask: they cost what global layers do.
  const json base = json::parse(R"({"model_type": "modernbert", "hidden_size": 48, "num_hidden_layers": 4,
    "num_attention_heads": 4, "intermediate_size": 40, "vocab_size": 99, "max_position_embeddings": 64,
    "pad_token_id": 0, "global_attn_every_n_layers": 2, "local_attention": 8})");
  json every_layer_global = base;
  every_layer_global["global_attn_every_n_layers"] = 1;
  const auto windowed = parse_config(base, "mb/config.json");
  const auto global = parse_config(every_layer_global, "mb/config.json");
  const double N = 3 * 16, L = 4;
  const double expected = hand_count({{N, 144, 48, L},          // Wqkv: one GEMM
                                      {N, 48, 48, L},           // Wo
                                      {16, 16, 12, 3 * 4 * L},  // scores
                                      {16, 12, 16, 3 * 4 * L},  // weighted sum
                                      {N, 80, 48, L},           // Wi: gate and up together
                                      {N, 48, 40, L}});         // mlp.Wo
  EXPECT_DOUBLE_EQ(forward_flops(windowed, 3, 16, false).total(), expected);
  EXPECT_DOUBLE_EQ(forward_flops(global, 3, 16, false).total(), expected);
}

TEST(ForwardFlops, LargeSweepsDoNotOverflow) {
  const auto c = parse_config(json::parse(R"({"model_type": "qwen3", "hidden_size": 4096, "num_hidden_layers": 36,
    "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128, "intermediate_size": 12288,
    "vocab_size": 151669, "max_position_embeddings": 40960})"),
                              "big/config.json");
  const double f = forward_flops(c, 65536, 32768, false).total();
  EXPECT_GT(f, 9.3e18) << "2^63 is 9.2e18: an int64 count would have wrapped";
  EXPECT_DOUBLE_EQ(forward_flops(c, 32768, 32768, false).total(), f / 2) << "linear in the batch";
}

}  // namespace
