// The names of a BERT-family layer's weights, as transformers names them (after the layer prefix): shared by
// the weight list and random weights (bert_weights.cpp) and the encoder that picks them up (bert.cpp).
#pragma once

#include <cstdint>
#include <string>

#include "fmwork/hf/config.hpp"

namespace fmwork::hf {

// The eight linear / norm roles of one layer, and their names per family (after the layer prefix).
struct LayerNames {
  const char* q;
  const char* k;
  const char* v;
  const char* attn_out;
  const char* attn_norm;
  const char* ffn_in;
  const char* ffn_out;
  const char* out_norm;
};
inline constexpr LayerNames kBertNames = {"attention.self.query",     "attention.self.key", "attention.self.value",
                                   "attention.output.dense",   "attention.output.LayerNorm",
                                   "intermediate.dense",       "output.dense",       "output.LayerNorm"};
inline constexpr LayerNames kDistilNames = {"attention.q_lin", "attention.k_lin", "attention.v_lin", "attention.out_lin",
                                     "sa_layer_norm",   "ffn.lin1",        "ffn.lin2",        "output_layer_norm"};

inline const LayerNames& layer_names(const EncoderConfig& c) {
  return c.family == Family::distilbert ? kDistilNames : kBertNames;
}
inline std::string layer_prefix(const EncoderConfig& c, int64_t i) {
  return (c.family == Family::distilbert ? "transformer.layer." : "encoder.layer.") + std::to_string(i) + ".";
}

}  // namespace fmwork::hf
