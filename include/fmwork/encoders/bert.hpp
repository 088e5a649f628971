// The BERT family's native encoder: BERT / RoBERTa / XLM-R / DistilBERT forward passes in plain ATen ops
// (post-LayerNorm transformer layers, absolute position embeddings, optional pooler), with weights named as
// Hugging Face saves them. The family dispatch (native_encoder.hpp) calls the bert_* functions.
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

// ---- weight names -----------------------------------------------------------------------------------------

// The weights a base model of `config` has, as Hugging Face names them without the base-model prefix
// ("encoder.layer.0.attention.self.query.weight"), with their shapes, in module order except that each
// layer's query/key/value weights come together, then their biases. With `pooler`, pooler.dense.{weight,bias}
// last.
NamedShapes bert_expected_weights(const EncoderConfig& config, bool pooler);

// A checkpoint name mapped to the form expected_weights() uses: the base-model prefix ("bert.", "roberta.",
// "distilbert.") stripped, old LayerNorm names (gamma / beta) renamed to weight / bias.
std::string bert_canonical_weight_name(const std::string& name, const EncoderConfig& config);

// Whether a canonical name is a known harmless extra in base or task checkpoints that a base model ignores,
// as Hugging Face does: buffers (embeddings.position_ids, embeddings.token_type_ids) and task heads
// (cls.*, lm_head.*, classifier.*, qa_outputs.*, pre_classifier.*, vocab_*).
bool bert_is_ignorable_weight(const std::string& canonical);

// Random weights as Hugging Face's _init_weights makes them: linear and embedding weights ~ N(0,
// initializer_range), biases 0, LayerNorm 1 / 0, the padding row of the embeddings 0, DistilBERT's
// sinusoidal position table when configured. Seeded and fast (normals drawn once into a 2^20 pool and laid
// out in runs at seeded offsets: the right distribution per weight, tens of ms for 125M parameters).
// Canonical names; query/key/value of each layer are adjacent slices of one buffer (so the encoder fuses
// them without a copy). Throws a runtime Error naming the config, before any allocation, when the weights
// would not fit in the memory the host has available (host_memory.hpp).
NamedTensors bert_random_weights(const EncoderConfig& config, bool pooler, uint64_t seed, at::ScalarType dtype);

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
  BertEncoder(EncoderConfig config, const NamedTensors& named, bool pooler, AttentionImpl attention,
              bool owned_weights = false);

  // input_ids, attention_mask, token_type_ids: [batch, input] int64 on the weights' device; token_type_ids
  // may be undefined (zeros). Throws a usage Error when the input is longer than the position table allows.
  EncoderOutput forward(const at::Tensor& input_ids, const at::Tensor& attention_mask,
                        const at::Tensor& token_type_ids) const override;

  EncoderOutput forward_packed(const PackedInput& input) const override;

  void to(const at::Device& device) override;

  // Readies the linear layers for inputs of `batch` x `input` tokens. With packed GEMM on (the default) and
  // float32 weights on the CPU, each weight is packed by MKL for that row count (cblas_sgemm_pack through
  // LibTorch's mkl::_mkl_reorder_linear_weight): the same results (bit-identical on the shapes
  // tried, within 1e-6 by test), faster GEMMs, most of all for
  // few tokens; the packs of the previous shape are freed. Elsewhere, or when LibTorch lacks MKL, a no-op.
  // The sweep calls it before a combination's reps, outside the timed region.
  void prepare(int64_t batch, int64_t input) override;
  // The peak memory of forward() on `batch` x `input` tokens beyond the weights, plus the packs prepare()
  // makes for that shape: the live activations of the layer phase that holds the most (attention: Q, K, V,
  // their copies, eager's two [B, heads, T, T] score tensors, the context; feed-forward: the [B, T,
  // intermediate] hidden state). Throws the usage Error forward() would for an input longer than the
  // position table. Saturates at UINT64_MAX.
  uint64_t activation_bytes(int64_t batch, int64_t input) const override;
  void set_packed_gemm(bool on) override { packed_gemm_ = on; }
  // Whether prepare() packs here, and why not when it does not: "MKL packed GEMM (...)" / "at::linear (...)".
  std::string linear_description() const;

  const EncoderConfig& config() const override { return config_; }
  const EncoderWeights& weights() const { return w_; }
  bool has_pooler() const override { return w_.pooler.has_value(); }
  bool has_token_types() const override { return w_.token_type.defined(); }
  bool fused_qkv() const override { return !w_.layers.empty() && w_.layers[0].qkv.weight.defined(); }
  int64_t parameter_count() const override;
  at::ScalarType dtype() const override { return w_.word.scalar_type(); }
  std::vector<std::string> describe_lines() const override;
  AttentionImpl attention_requested() const { return attention_; }
  // Which attention computation runs: "eager: softmax(Q K^T / sqrt(d) + mask) V with at::bmm" or
  // "sdpa: at::scaled_dot_product_attention".
  std::string attention_description() const;

 private:
  struct Qkv {
    at::Tensor q, k, v;  // [B, T, h, d] views
  };
  Qkv project(const at::Tensor& x, const EncoderLayer& layer) const;
  // softmax(Q K^T / sqrt(d) + mask) V of the projections, heads merged: [B, T, H].
  at::Tensor context(const Qkv& p, const at::Tensor& additive_mask, const at::Tensor& bool_mask) const;
  // The attention block of `x` [B, T, H]; with `packed`, x is [1, N, H] of its packed sequences, each attending
  // over its own tokens (on CUDA with sdpa where varlen_attention_applies, in one variable-length call).
  at::Tensor attention(const at::Tensor& x, const EncoderLayer& layer, const at::Tensor& additive_mask,
                       const at::Tensor& bool_mask, const PackedInput* packed) const;
  // Every layer over x, padded with masks or (with `packed`) packed.
  at::Tensor layers(at::Tensor x, const at::Tensor& additive_mask, const at::Tensor& bool_mask,
                    const PackedInput* packed) const;

  bool packs() const;  // packed GEMM on, float32, CPU, MKL present

  EncoderConfig config_;
  EncoderWeights w_;
  AttentionImpl attention_;
  Activation activation_;  // hidden_act, looked up once rather than per layer and forward
  bool packed_gemm_ = true;
};

}  // namespace fmwork::hf
