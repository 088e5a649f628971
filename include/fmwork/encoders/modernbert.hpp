// ModernBERT's native encoder (ModernBertModel; IBM's granite-embedding r2 models): pre-norm layers
// alternating global and sliding-window attention, rotary embeddings with one base per kind of layer, a gated
// MLP, an embedding norm and a final norm, no position table; weights named as transformers saves them.
// The family dispatch (native_encoder.hpp) calls the modernbert_* functions.
#pragma once

#include <vector>

#include "fmwork/encoders/attention.hpp"
#include "fmwork/encoders/linear.hpp"
#include "fmwork/encoders/native_encoder.hpp"
#include "fmwork/encoders/rotary.hpp"

namespace fmwork::hf {

// The weights of ModernBertModel without the "model." prefix, with shapes: embeddings.tok_embeddings,
// embeddings.norm, then per layer attn_norm (not in layer 0, where it is the identity), attn.Wqkv, attn.Wo,
// mlp_norm, mlp.Wi, mlp.Wo; final_norm. Biases only where norm_bias / attention_bias / mlp_bias say.
NamedShapes modernbert_expected_weights(const EncoderConfig& config);
// Checkpoint extras a base model ignores: the masked-LM head (head.*, decoder.*), classifiers.
bool modernbert_is_ignorable_weight(const std::string& canonical);
// As transformers' ModernBertPreTrainedModel._init_weights: truncated normals (initializer_cutoff_factor)
// of initializer_range for embeddings, Wqkv and Wi, of initializer_range / sqrt(2 layers) for the two Wo;
// norms 1, biases 0. Wqkv and Wi each one buffer.
NamedTensors modernbert_random_weights(const EncoderConfig& config, uint64_t seed, at::ScalarType dtype);

class ModernBertEncoder : public NativeEncoder {
 public:
  ModernBertEncoder(EncoderConfig config, const NamedTensors& named, AttentionImpl attention);

  EncoderOutput forward(const at::Tensor& input_ids, const at::Tensor& attention_mask,
                        const at::Tensor& token_type_ids) const override;
  EncoderOutput forward_packed(const PackedInput& input) const override;
  void to(const at::Device& device) override;
  void prepare(int64_t batch, int64_t input) override;
  // Per layer: the residual, the normed input, Wqkv's output, rotated q and k, v, eager's [B, heads, T, T]
  // scores and probabilities (in float32 below float32), the context and Wo's output; in the MLP Wi's
  // [tokens, 2 intermediate] and the activation. Plus the two [B, 1, T, T] masks (global and sliding) and
  // the packs prepare() makes.
  uint64_t activation_bytes(int64_t batch, int64_t input) const override;
  void set_packed_gemm(bool on) override { packed_gemm_ = on; }

  const EncoderConfig& config() const override { return config_; }
  at::ScalarType dtype() const override { return embeddings_.scalar_type(); }
  int64_t parameter_count() const override;
  bool has_pooler() const override { return false; }
  bool has_token_types() const override { return false; }
  bool fused_qkv() const override { return true; }  // ModernBERT stores Wqkv as one weight
  std::vector<std::string> describe_lines() const override;

 private:
  struct Layer {
    Norm attn_norm;  // undefined weight in layer 0 (the identity)
    Linear wqkv, attn_out, wi, mlp_out;
    Norm mlp_norm;
    bool sliding = false;
  };
  // Where a kind of layer's masks come from: one for the padded batch, or (packed) one per sequence length;
  // packed on CUDA where varlen_attention_applies, the kind's rotary tables per token instead, for one call.
  struct Masks {
    const AttentionMask* padded;
    MasksByLength* by_length;
    const PackedInput* packed;  // packed: the sequences; nullptr: padded
    RotaryTables tokens;        // defined: attention through varlen_attention (else per sequence)
  };
  // The attention context of Wqkv's output [B, T, 3H]: [B, T, H].
  at::Tensor context(const at::Tensor& qkv, const QkRotary& rotary, const AttentionMask& mask) const;
  at::Tensor attention(const at::Tensor& h, const Layer& layer, const QkRotary& rotary, const Masks& masks) const;
  // Every layer and the final norm over x ([B, T, H] padded, or [1, N, H] packed with sequences up to T).
  at::Tensor layers(at::Tensor x, int64_t T, const Masks& global, const Masks& local) const;
  at::Tensor mlp(const at::Tensor& h, const Layer& layer) const;
  at::Tensor norm(const at::Tensor& x, const Norm& n) const;
  // Whether any layer is a sliding-window one (`sliding`) or a global one (!sliding).
  bool has_layers(bool sliding) const;
  std::vector<Linear*> linears();
  std::vector<Norm*> norms();

  EncoderConfig config_;
  at::Tensor embeddings_;
  Norm embed_norm_, final_norm_;
  std::vector<Layer> layers_;
  AttentionImpl attention_;
  Activation activation_;  // hidden_activation, looked up once
  bool packed_gemm_ = true;
};

}  // namespace fmwork::hf
