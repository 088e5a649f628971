// ModernBERT's native encoder (ModernBertModel; IBM's granite-embedding r2 models): pre-norm layers
// alternating global and sliding-window attention, rotary embeddings with one base per kind of layer, a gated
// MLP, an embedding norm and a final norm, no position table; weights named as transformers saves them.
// Its weights, random weights and forward pass; families.cpp reaches them through kModernBertParts.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "family_parts.hpp"
#include "fmwork/encoders/attention.hpp"
#include "fmwork/encoders/rotary.hpp"
#include "random_fill.hpp"

namespace fmwork::hf {
namespace {

std::string modernbert_layer(int64_t i) { return "layers." + std::to_string(i) + "."; }

std::string theta_text(double theta) {
  std::ostringstream os;
  os << theta;
  return os.str();
}

// ---- names ------------------------------------------------------------------------------------------------

// The weights of ModernBertModel without the "model." prefix, with shapes: embeddings.tok_embeddings,
// embeddings.norm, then per layer attn_norm (not in layer 0, where it is the identity), attn.Wqkv, attn.Wo,
// mlp_norm, mlp.Wi, mlp.Wo; final_norm. Biases only where norm_bias / attention_bias / mlp_bias say.
NamedShapes modernbert_expected_weights(const EncoderConfig& c, bool) {
  const int64_t H = c.hidden_size, I = c.intermediate_size;
  NamedShapes out;
  auto norm = [&](const std::string& name) {
    out.push_back({name + ".weight", {H}});
    if (c.norm_bias) out.push_back({name + ".bias", {H}});
  };
  auto linear = [&](const std::string& name, int64_t rows, int64_t cols, bool bias) {
    out.push_back({name + ".weight", {rows, cols}});
    if (bias) out.push_back({name + ".bias", {rows}});
  };
  out.push_back({"embeddings.tok_embeddings.weight", {c.vocab_size, H}});
  norm("embeddings.norm");
  for (int64_t i = 0; i < c.num_hidden_layers; ++i) {
    const std::string p = modernbert_layer(i);
    if (i > 0) norm(p + "attn_norm");
    linear(p + "attn.Wqkv", 3 * H, H, c.attention_bias);
    linear(p + "attn.Wo", H, H, c.attention_bias);
    norm(p + "mlp_norm");
    linear(p + "mlp.Wi", 2 * I, H, c.mlp_bias);
    linear(p + "mlp.Wo", H, I, c.mlp_bias);
  }
  norm("final_norm");
  return out;
}

// Checkpoint extras a base model ignores: the masked-LM head (head.*, decoder.*), classifiers.
bool modernbert_is_ignorable_weight(const std::string& s) {
  for (const char* head : {"head.", "decoder.", "classifier.", "drop."})
    if (s.rfind(head, 0) == 0) return true;
  return false;
}

// As transformers' ModernBertPreTrainedModel._init_weights: truncated normals (initializer_cutoff_factor)
// of initializer_range for embeddings, Wqkv and Wi, of initializer_range / sqrt(2 layers) for the two Wo;
// norms 1, biases 0.
NamedTensors modernbert_random_weights(const EncoderConfig& c, bool, uint64_t seed, at::ScalarType dtype) {
  const NamedShapes shapes = modernbert_expected_weights(c, false);
  check_random_weights_fit(c, shapes, dtype);
  const double cutoff = c.initializer_cutoff_factor, std_in = c.initializer_range,
               std_out = c.initializer_range / std::sqrt(2.0 * static_cast<double>(c.num_hidden_layers));
  NormalFiller in(seed, std_in, cutoff), out(seed + 1, std_out, cutoff);
  NamedTensors named;
  for (const auto& [name, shape] : shapes) {
    const bool is_weight = name.size() > 7 && name.compare(name.size() - 7, 7, ".weight") == 0;
    at::Tensor t;
    if (shape.size() == 1)  // norms 1 (weights) and 0 (biases); linear biases 0
      t = is_weight ? at::ones(shape, at::TensorOptions().dtype(dtype)) : at::zeros(shape, at::TensorOptions().dtype(dtype));
    else
      t = (name.find(".Wo.") != std::string::npos ? out : in)(shape).to(dtype);
    if (name == "embeddings.tok_embeddings.weight" && c.pad_token_id && *c.pad_token_id < c.vocab_size)
      t[*c.pad_token_id].zero_();  // nn.Embedding's padding_idx row
    named.emplace_back(name, t);
  }
  return named;
}

// ---- the encoder ------------------------------------------------------------------------------------------

class ModernBertEncoder : public NativeEncoder {
 public:
  ModernBertEncoder(EncoderConfig config, const NamedTensors& named, AttentionImpl attention);

 private:
  struct Layer {
    Norm attn_norm;  // undefined weight in layer 0 (the identity)
    Linear wqkv, attn_out, wi, mlp_out;
    Norm mlp_norm;
    bool sliding = false;
  };
  EncoderOutput run(const at::Tensor& input_ids, const at::Tensor& attention_mask, const at::Tensor&) const override;
  EncoderOutput run_packed(const PackedTokens& input, int64_t longest) const override;
  std::vector<std::string> family_lines() const override;
  // The attention context of Wqkv's output [B, T, 3H]: [B, T, H].
  at::Tensor context(const at::Tensor& qkv, const QkRotary& rotary, const AttentionMask& mask) const;
  at::Tensor attention(const at::Tensor& h, const Layer& layer, const QkRotary& rotary, const LayerMasks& masks) const;
  // Every layer and the final norm over x ([B, T, H] padded, or [1, N, H] packed with sequences up to T).
  at::Tensor layers(at::Tensor x, int64_t T, const LayerMasks& global, const LayerMasks& local) const;
  at::Tensor mlp(const at::Tensor& h, const Layer& layer) const;
  at::Tensor norm(const at::Tensor& x, const Norm& n) const;
  // Whether any layer is a sliding-window one (`sliding`) or a global one (!sliding).
  bool has_layers(bool sliding) const;

  at::Tensor embeddings_;
  Norm embed_norm_, final_norm_;
  std::vector<Layer> layers_;
};

ModernBertEncoder::ModernBertEncoder(EncoderConfig config, const NamedTensors& named, AttentionImpl attention)
    : NativeEncoder(config, attention, WeightMap(named).get("embeddings.tok_embeddings.weight"), false) {
  const WeightMap w(named);
  embeddings_ = w.get("embeddings.tok_embeddings.weight");
  embed_norm_ = w.norm("embeddings.norm");
  for (int64_t i = 0; i < config_.num_hidden_layers; ++i) {
    const std::string p = modernbert_layer(i);
    layers_.push_back({i > 0 ? w.norm(p + "attn_norm") : Norm{},  // layer 0's is the identity
                       w.linear(p + "attn.Wqkv"), w.linear(p + "attn.Wo"), w.linear(p + "mlp.Wi"),
                       w.linear(p + "mlp.Wo"), w.norm(p + "mlp_norm"),
                       config_.layer_types.at(static_cast<size_t>(i)) == LayerAttention::sliding});
  }
  final_norm_ = w.norm("final_norm");
  slots_.tables = {&embeddings_};
  slots_.norms = {&embed_norm_, &final_norm_};
  for (auto& L : layers_) {
    for (Norm* n : {&L.attn_norm, &L.mlp_norm}) slots_.norms.push_back(n);
    for (Linear* l : {&L.wqkv, &L.attn_out, &L.wi, &L.mlp_out}) slots_.linears.push_back(l);
  }
  slots_.qkv = &layers_.at(0).wqkv;  // ModernBERT stores Wqkv as one weight
  // Per token: x, the normed input, Wqkv's output, rotated q and k, contiguous v, the context, Wo's output
  // (eager adds scores and probabilities, in float32 below float32); in the MLP x, normed, Wi's [2 I], the
  // activation, the output. Plus the two masks (global and sliding).
  const long double H = config_.hidden_size, I = config_.intermediate_size;
  figures_ = {10 * H, 3 * H + 3 * I, /*float32_scores=*/true, /*two_masks=*/true};
}

std::vector<std::string> ModernBertEncoder::family_lines() const {
  const int64_t window = config_.sliding_window.value_or(0);
  return {attention_line("eager: softmax(Q K^T / sqrt(d) + mask) V with at::matmul, softmax in float32",
                         "; bidirectional, sliding-window layers see +-" + std::to_string(window) + " tokens" +
                             (window == 0 ? " (each token itself alone)" : "") + " (a [T, T] mask, not a banded kernel)",
                         has_layers(true)),
          "rotary: rope_theta " + theta_text(config_.rope_theta) + " (global layers), " + theta_text(config_.local_rope_theta) +
              " (sliding layers)",
          linear_line(), "q/k/v: one Wqkv GEMM; MLP: one Wi GEMM (input and gate), " + config_.hidden_act + "(input) x gate",
          "pooler: none (ModernBertModel outputs last_hidden_state)"};
}

bool ModernBertEncoder::has_layers(bool sliding) const {
  return std::any_of(layers_.begin(), layers_.end(), [&](const Layer& L) { return L.sliding == sliding; });
}

at::Tensor ModernBertEncoder::norm(const at::Tensor& x, const Norm& n) const {
  return at::layer_norm(x, {config_.hidden_size}, n.weight, n.bias, config_.layer_norm_eps);
}

at::Tensor ModernBertEncoder::context(const at::Tensor& qkv, const QkRotary& rotary, const AttentionMask& mask) const {
  const int64_t B = qkv.size(0), T = qkv.size(1), heads = config_.num_attention_heads, d = config_.head_dim();
  auto parts = qkv.view({B, T, 3, heads, d});
  // Eager's 1 / sqrt(d) is in q's rotary tables (RotaryTables' scale): no pass over the scores for it.
  auto q = apply_rotary(parts.select(2, 0), rotary.q);
  auto k = apply_rotary(parts.select(2, 1), rotary.k);
  auto v = parts.select(2, 2).transpose(1, 2).contiguous();
  return attend(q, k, v, mask, attention_, 1.0 / std::sqrt(static_cast<double>(d)));
}

at::Tensor ModernBertEncoder::attention(const at::Tensor& h, const Layer& L, const QkRotary& rotary,
                                        const LayerMasks& masks) const {
  auto qkv = run_linear(h, L.wqkv);
  if (!masks.packed) return run_linear(context(qkv, rotary, *masks.padded), L.attn_out);
  // Packed: each sequence from position 0 over its own tokens, with its length's mask (sliding layers); in
  // one variable-length call each token turned by its own position's tables.
  const int64_t heads = config_.num_attention_heads, d = config_.head_dim();
  auto ctx = packed_attention(
      *masks.packed, masks.longest, masks.tokens.cos.defined(), masks.by_length->pattern(), config_.hidden_size,
      h.options(),
      [&] {
        auto parts = qkv.view({qkv.size(1), 3, heads, d});
        return QkvRows{apply_rotary_rows(parts.select(1, 0), masks.tokens),
                       apply_rotary_rows(parts.select(1, 1), masks.tokens), parts.select(1, 2)};
      },
      [&](int64_t offset, int64_t length) {
        return context(qkv.narrow(1, offset, length), rotary, masks.by_length->of(length));
      });
  return run_linear(ctx, L.attn_out);
}

at::Tensor ModernBertEncoder::mlp(const at::Tensor& h, const Layer& L) const {
  const int64_t I = config_.intermediate_size;
  auto wi = run_linear(h, L.wi);  // [B, T, 2 I]: input, then gate
  auto act = activated(wi.narrow(-1, 0, I), activation_);
  act.mul_(wi.narrow(-1, I, I));
  return run_linear(act, L.mlp_out);
}

EncoderOutput ModernBertEncoder::run(const at::Tensor& input_ids, const at::Tensor& attention_mask,
                                     const at::Tensor&) const {
  const int64_t T = input_ids.size(1);
  auto x = norm(at::embedding(embeddings_, input_ids), embed_norm_);
  const auto options = x.options();
  // One mask per kind of layer, shared by the layers of that kind.
  const AttentionMask global_mask = make_attention_mask(attention_mask, T, {false, std::nullopt}, options, attention_);
  const AttentionMask local_mask =
      make_attention_mask(attention_mask, T, {false, config_.sliding_window}, options, attention_);
  return {layers(x, T, {&global_mask, nullptr, nullptr, {}}, {&local_mask, nullptr, nullptr, {}}), at::Tensor()};
}

EncoderOutput ModernBertEncoder::run_packed(const PackedTokens& in, int64_t T) const {
  auto x = norm(at::embedding(embeddings_, in.input_ids), embed_norm_).unsqueeze(0);  // [1, N, H]
  MasksByLength global(AttentionPattern{false, std::nullopt}, x.options(), attention_);
  MasksByLength local(AttentionPattern{false, config_.sliding_window}, x.options(), attention_);
  // Each kind's tables per token where the model has layers of that kind and they take one variable-length
  // call (float32: not the windowed ones).
  const auto tokens = [&](const MasksByLength& kind, bool sliding, double theta) {
    return has_layers(sliding) && takes_varlen(in, kind.pattern())
               ? rotary_tables_at(in.positions, config_.head_dim(), theta, dtype())
               : RotaryTables{};
  };
  return {layers(x, T, {nullptr, &global, &in, tokens(global, false, config_.rope_theta), T},
                 {nullptr, &local, &in, tokens(local, true, config_.local_rope_theta), T})
              .squeeze(0),
          at::Tensor()};
}

at::Tensor ModernBertEncoder::layers(at::Tensor x, int64_t T, const LayerMasks& global, const LayerMasks& local) const {
  const int64_t d = config_.head_dim();
  // One set of rotary tables per kind of layer, for positions up to T, shared by the layers of that kind.
  const double scale = attention_ == AttentionImpl::eager ? 1.0 / std::sqrt(static_cast<double>(d)) : 1.0;
  const QkRotary global_rotary = qk_rotary(T, d, config_.rope_theta, dtype(), x.device(), scale);
  const QkRotary local_rotary = qk_rotary(T, d, config_.local_rope_theta, dtype(), x.device(), scale);
  for (size_t i = 0; i < layers_.size(); ++i) {
    const Layer& L = layers_[i];
    const at::Tensor h = i == 0 ? x : norm(x, L.attn_norm);  // layer 0's attn_norm is the identity
    x = x + attention(h, L, L.sliding ? local_rotary : global_rotary, L.sliding ? local : global);
    x.add_(mlp(norm(x, L.mlp_norm), L));
  }
  return norm(x, final_norm_);
}

std::unique_ptr<NativeEncoder> make_modernbert(const EncoderConfig& config, const NamedTensors& named, bool,
                                               AttentionImpl attention, bool) {
  return std::make_unique<ModernBertEncoder>(config, named, attention);
}

}  // namespace

const FamilyParts kModernBertParts = {modernbert_expected_weights, strip_weight_prefix, modernbert_is_ignorable_weight,
                                      modernbert_random_weights, make_modernbert};

}  // namespace fmwork::hf
