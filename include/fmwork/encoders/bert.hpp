// The BERT family's native encoder: BERT / RoBERTa / XLM-R / DistilBERT forward passes in plain ATen ops
// (post-LayerNorm transformer layers, absolute position embeddings, optional pooler), with weights named as
// Hugging Face saves them (bert_weights.cpp; the family dispatch, families.hpp, reaches them). Public for
// the tests that look at its weights' layout (fused q/k/v, packs).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <ATen/ATen.h>

#include "fmwork/encoders/linear.hpp"
#include "fmwork/encoders/native_encoder.hpp"
#include "fmwork/hf/config.hpp"

namespace fmwork::hf {

// ---- the encoder ------------------------------------------------------------------------------------------

struct EncoderLayer {
  Linear qkv;         // fused [3H, H] (defined when fused)
  Linear q, k, v;     // separate (defined when not fused)
  Linear attn_out;
  Norm attn_norm;
  Linear ffn_in, ffn_out;
  Norm out_norm;
};
struct EncoderWeights {
  at::Tensor word, position, token_type;  // token_type undefined for DistilBERT
  Norm embed_norm;
  std::vector<EncoderLayer> layers;
  std::optional<Linear> pooler;
};

class BertEncoder : public NativeEncoder {
 public:
  // `named` maps canonical names (expected_weights()) to tensors, already in the run dtype and checked for
  // shape. Query/key/value are fused into one [3H, H] weight (one GEMM instead of three) when they are
  // adjacent in memory (no copy), or by a copy when `owned_weights` (converted or random weights: the
  // separate copies are freed, so the fusion costs no memory), or when moved to another device. Zero-copy
  // views of a file that are not adjacent stay separate on the CPU: fusing would add a copy to the mapping.
  // With packed GEMM on (the default) and float32 weights on the CPU, prepare() packs each weight for the
  // shape's row count (MKL, see linear.hpp): the same results (bit-identical on the shapes tried, within
  // 1e-6 by test), faster GEMMs, most of all for few tokens.
  BertEncoder(EncoderConfig config, const NamedTensors& named, bool pooler, AttentionImpl attention,
              bool owned_weights = false);

  const EncoderWeights& weights() const { return w_; }

 private:
  struct Qkv {
    at::Tensor q, k, v;  // [B, T, h, d] views
  };
  // A packed batch and whether its attention takes one variable-length call.
  struct Packed {
    const PackedTokens* tokens;
    bool varlen;
    int64_t longest;  // the longest sequence
  };
  EncoderOutput run(const at::Tensor& input_ids, const at::Tensor& attention_mask,
                    const at::Tensor& token_type_ids) const override;
  EncoderOutput run_packed(const PackedTokens& input, int64_t longest) const override;
  // attention, linear layers, q/k/v, pooler. Eager: "softmax(Q K^T / sqrt(d) + mask) V with at::bmm".
  std::vector<std::string> family_lines() const override;
  void fuse_off_cpu() override;

  Qkv project(const at::Tensor& x, const EncoderLayer& layer) const;
  // softmax(Q K^T / sqrt(d) + mask) V of the projections, heads merged: [B, T, H].
  // `alone`: one sequence of a packed batch on its own (its length is its shape: varying_shape_sdpa).
  at::Tensor context(const Qkv& p, const at::Tensor& additive_mask, const at::Tensor& bool_mask, bool alone) const;
  // The attention block of `x` [B, T, H]; with `packed`, x is [1, N, H] of its packed sequences, each attending
  // over its own tokens (packed_attention).
  at::Tensor attention(const at::Tensor& x, const EncoderLayer& layer, const at::Tensor& additive_mask,
                       const at::Tensor& bool_mask, const Packed* packed) const;
  // Every layer over x, padded with masks or (with `packed`) packed.
  at::Tensor layers(at::Tensor x, const at::Tensor& additive_mask, const at::Tensor& bool_mask,
                    const Packed* packed) const;

  EncoderWeights w_;
};

}  // namespace fmwork::hf
