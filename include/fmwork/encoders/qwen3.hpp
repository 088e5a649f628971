// Qwen3's native encoder (Qwen3Model, as Qwen3-Embedding uses it): a decoder run as an embedder, pre-norm
// layers with RMSNorm, grouped-query causal attention with per-head q/k RMSNorm, rotary embeddings, sliding
// windows where the config enables them, the gated SiLU MLP and a final norm; outputs last_hidden_state
// (pooling is the user's business, as upstream). Weights named as transformers saves them. The family
// dispatch (native_encoder.hpp) calls the qwen3_* functions.
#pragma once

#include <vector>

#include "fmwork/encoders/attention.hpp"
#include "fmwork/encoders/linear.hpp"
#include "fmwork/encoders/native_encoder.hpp"
#include "fmwork/encoders/rotary.hpp"

namespace fmwork::hf {

// The weights of Qwen3Model without the "model." prefix, with shapes: embed_tokens, then per layer
// input_layernorm, self_attn.{q,k,v}_proj (weights together, then biases when attention_bias), o_proj,
// q_norm, k_norm, post_attention_layernorm, mlp.{gate,up,down}_proj; norm.
NamedShapes qwen3_expected_weights(const EncoderConfig& config);
// Checkpoint extras a base model ignores: lm_head.*, score.*, saved rotary buffers (*.rotary_emb.inv_freq).
bool qwen3_is_ignorable_weight(const std::string& canonical);
// As transformers' _init_weights: linear and embedding weights N(0, initializer_range), biases 0, RMSNorm
// weights 1. q/k/v of a layer are one buffer, gate/up another (the encoder fuses them without a copy).
NamedTensors qwen3_random_weights(const EncoderConfig& config, uint64_t seed, at::ScalarType dtype);

class Qwen3Encoder : public NativeEncoder {
 public:
  // q/k/v and gate/up are fused into one GEMM each when adjacent in memory, or by a copy when
  // `owned_weights` or off the CPU (as the BERT family does).
  Qwen3Encoder(EncoderConfig config, const NamedTensors& named, AttentionImpl attention, bool owned_weights);

  EncoderOutput forward(const at::Tensor& input_ids, const at::Tensor& attention_mask,
                        const at::Tensor& token_type_ids) const override;
  EncoderOutput forward_packed(const PackedInput& input) const override;
  void to(const at::Device& device) override;
  void prepare(int64_t batch, int64_t input) override;
  // Per layer: the residual, the normed input, the projections' outputs, normed and rotated q and k, v,
  // eager's [B, heads, T, T] scores and probabilities (float32 below float32), the context and o_proj's
  // output; in the MLP gate and up, the product and the output. Plus the masks and prepare()'s packs.
  uint64_t activation_bytes(int64_t batch, int64_t input) const override;
  void set_packed_gemm(bool on) override { packed_gemm_ = on; }

  const EncoderConfig& config() const override { return config_; }
  at::ScalarType dtype() const override { return embeddings_.scalar_type(); }
  int64_t parameter_count() const override;
  bool has_pooler() const override { return false; }
  bool has_token_types() const override { return false; }
  bool fused_qkv() const override { return !layers_.empty() && layers_[0].qkv.weight.defined(); }
  std::vector<std::string> describe_lines() const override;

 private:
  struct Layer {
    Norm input_norm, q_norm, k_norm, post_norm;
    Linear qkv;      // fused [(heads + 2 kv) d, H] (defined when fused)
    Linear q, k, v;  // separate (defined when not fused)
    Linear o;
    Linear gate_up;  // fused [2 I, H] (defined when fused)
    Linear gate, up; // separate (defined when not fused)
    Linear down;
    bool sliding = false;
  };
  void fuse(Layer& L, bool allow_copy);
  // Where a kind of layer's masks come from: one for the padded batch, or (packed) one per sequence length;
  // packed on CUDA where varlen_attention_applies, the kind's rotary tables per token instead, for one call.
  struct Masks {
    const AttentionMask* padded;
    MasksByLength* by_length;
    const PackedInput* packed;  // packed: the sequences; nullptr: padded
    RotaryTables tokens;        // defined: attention through varlen_attention (else per sequence)
  };
  // The attention context of the projections ([B, T, heads d], [B, T, kv d] twice): [B, T, heads d].
  at::Tensor context(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const Layer& L,
                     const QkRotary& rotary, const AttentionMask& mask) const;
  at::Tensor attention(const at::Tensor& h, const Layer& L, const QkRotary& rotary, const Masks& masks) const;
  // Every layer and the final norm over x ([B, T, H] padded, or [1, N, H] packed with sequences up to T).
  at::Tensor layers(at::Tensor x, int64_t T, const Masks& full, const Masks& sliding) const;
  at::Tensor mlp(const at::Tensor& h, const Layer& L) const;
  std::vector<Linear*> linears();
  std::vector<Norm*> norms();

  EncoderConfig config_;
  at::Tensor embeddings_;
  Norm final_norm_;
  std::vector<Layer> layers_;
  AttentionImpl attention_;
  Activation activation_;  // hidden_act, looked up once
  bool packed_gemm_ = true;
};

}  // namespace fmwork::hf
