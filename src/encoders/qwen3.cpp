// Qwen3's native encoder (Qwen3Model, as Qwen3-Embedding uses it): a decoder run as an embedder, pre-norm
// layers with RMSNorm, grouped-query causal attention with per-head q/k RMSNorm, rotary embeddings, sliding
// windows where the config enables them, the gated SiLU MLP and a final norm; outputs last_hidden_state
// (pooling is the user's business, as upstream). Weights named as transformers saves them. Its weights,
// random weights and forward pass; families.cpp reaches them through kQwen3Parts.
#include <cmath>
#include <sstream>

#include "family_parts.hpp"
#include "fmwork/encoders/attention.hpp"
#include "fmwork/encoders/rotary.hpp"
#include "random_fill.hpp"

namespace fmwork::hf {
namespace {

std::string qwen3_layer(int64_t i) { return "layers." + std::to_string(i) + "."; }

// ---- names ------------------------------------------------------------------------------------------------

// The weights of Qwen3Model without the "model." prefix, with shapes: embed_tokens, then per layer
// input_layernorm, self_attn.{q,k,v}_proj (weights together, then biases when attention_bias), o_proj,
// q_norm, k_norm, post_attention_layernorm, mlp.{gate,up,down}_proj; norm.
NamedShapes qwen3_expected_weights(const EncoderConfig& c, bool) {
  const int64_t H = c.hidden_size, I = c.intermediate_size, d = c.head_dim(), Q = c.num_attention_heads * d,
                KV = c.kv_heads() * d;
  NamedShapes out;
  out.push_back({"embed_tokens.weight", {c.vocab_size, H}});
  for (int64_t i = 0; i < c.num_hidden_layers; ++i) {
    const std::string p = qwen3_layer(i), a = p + "self_attn.";
    out.push_back({p + "input_layernorm.weight", {H}});
    // q, k, v weights next to each other (then their biases): a file in this order fuses without a copy.
    out.push_back({a + "q_proj.weight", {Q, H}});
    out.push_back({a + "k_proj.weight", {KV, H}});
    out.push_back({a + "v_proj.weight", {KV, H}});
    if (c.attention_bias) {
      out.push_back({a + "q_proj.bias", {Q}});
      out.push_back({a + "k_proj.bias", {KV}});
      out.push_back({a + "v_proj.bias", {KV}});
    }
    out.push_back({a + "o_proj.weight", {H, Q}});
    if (c.attention_bias) out.push_back({a + "o_proj.bias", {H}});
    out.push_back({a + "q_norm.weight", {d}});
    out.push_back({a + "k_norm.weight", {d}});
    out.push_back({p + "post_attention_layernorm.weight", {H}});
    out.push_back({p + "mlp.gate_proj.weight", {I, H}});
    out.push_back({p + "mlp.up_proj.weight", {I, H}});
    out.push_back({p + "mlp.down_proj.weight", {H, I}});
  }
  out.push_back({"norm.weight", {H}});
  return out;
}

// Checkpoint extras a base model ignores: lm_head.*, score.*, saved rotary buffers (*.rotary_emb.inv_freq).
bool qwen3_is_ignorable_weight(const std::string& s) {
  for (const char* head : {"lm_head.", "score."})
    if (s.rfind(head, 0) == 0) return true;
  const std::string buffer = ".rotary_emb.inv_freq";
  return s.size() >= buffer.size() && s.compare(s.size() - buffer.size(), buffer.size(), buffer) == 0;
}

// As transformers' _init_weights: linear and embedding weights N(0, initializer_range), biases 0, RMSNorm
// weights 1. q/k/v of a layer are one buffer, gate/up another (the encoder fuses them without a copy).
NamedTensors qwen3_random_weights(const EncoderConfig& c, bool, uint64_t seed, at::ScalarType dtype) {
  const NamedShapes shapes = qwen3_expected_weights(c, false);
  check_random_weights_fit(c, shapes, dtype);
  NormalFiller normal(seed, c.initializer_range);
  const auto options = at::TensorOptions().dtype(dtype);
  NamedTensors named;
  // Projections the encoder fuses are drawn as one buffer and handed out as adjacent slices.
  auto slices = [&](const std::vector<std::string>& names, const std::vector<int64_t>& rows, int64_t cols) {
    int64_t total = 0;
    for (int64_t r : rows) total += r;
    at::Tensor block = normal({total, cols}).to(dtype);
    for (size_t j = 0, at_row = 0; j < names.size(); at_row += static_cast<size_t>(rows[j]), ++j)
      named.emplace_back(names[j], block.narrow(0, static_cast<int64_t>(at_row), rows[j]));
  };
  for (size_t i = 0; i < shapes.size(); ++i) {
    const auto& [name, shape] = shapes[i];
    if (name.find("q_proj.weight") != std::string::npos) {
      slices({name, shapes[i + 1].first, shapes[i + 2].first}, {shape[0], shapes[i + 1].second[0], shapes[i + 2].second[0]},
             shape[1]);
      i += 2;
    } else if (name.find("gate_proj.weight") != std::string::npos) {
      slices({name, shapes[i + 1].first}, {shape[0], shapes[i + 1].second[0]}, shape[1]);
      i += 1;
    } else if (shape.size() == 2) {
      at::Tensor t = normal(shape).to(dtype);
      if (name == "embed_tokens.weight" && c.pad_token_id && *c.pad_token_id < c.vocab_size) t[*c.pad_token_id].zero_();
      named.emplace_back(name, t);
    } else {
      const bool bias = name.size() > 5 && name.compare(name.size() - 5, 5, ".bias") == 0;
      named.emplace_back(name, bias ? at::zeros(shape, options) : at::ones(shape, options));
    }
  }
  return named;
}

// ---- the encoder ------------------------------------------------------------------------------------------

class Qwen3Encoder : public NativeEncoder {
 public:
  // q/k/v and gate/up are fused into one GEMM each when adjacent in memory, or by a copy when
  // `owned_weights` or off the CPU (as the BERT family does).
  Qwen3Encoder(EncoderConfig config, const NamedTensors& named, AttentionImpl attention, bool owned_weights);

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
  EncoderOutput run(const at::Tensor& input_ids, const at::Tensor& attention_mask, const at::Tensor&) const override;
  EncoderOutput run_packed(const PackedTokens& input, int64_t longest) const override;
  std::vector<std::string> family_lines() const override;
  void fuse_off_cpu() override {
    for (auto& L : layers_) fuse(L, /*allow_copy=*/true);
  }
  void fuse(Layer& L, bool allow_copy);
  // The attention context of the projections ([B, T, heads d], [B, T, kv d] twice): [B, T, heads d].
  at::Tensor context(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const Layer& L,
                     const QkRotary& rotary, const AttentionMask& mask) const;
  at::Tensor attention(const at::Tensor& h, const Layer& L, const QkRotary& rotary, const LayerMasks& masks) const;
  // Every layer and the final norm over x ([B, T, H] padded, or [1, N, H] packed with sequences up to T).
  at::Tensor layers(at::Tensor x, int64_t T, const LayerMasks& full, const LayerMasks& sliding) const;
  at::Tensor mlp(const at::Tensor& h, const Layer& L) const;

  at::Tensor embeddings_;
  Norm final_norm_;
  std::vector<Layer> layers_;
};

Qwen3Encoder::Qwen3Encoder(EncoderConfig config, const NamedTensors& named, AttentionImpl attention, bool owned_weights)
    : NativeEncoder(config, attention, WeightMap(named).get("embed_tokens.weight"), false) {
  const WeightMap w(named);
  embeddings_ = w.get("embed_tokens.weight");
  for (int64_t i = 0; i < config_.num_hidden_layers; ++i) {
    const std::string p = qwen3_layer(i), a = p + "self_attn.";
    Layer L;
    L.input_norm = w.norm(p + "input_layernorm");
    L.q = w.linear(a + "q_proj");
    L.k = w.linear(a + "k_proj");
    L.v = w.linear(a + "v_proj");
    L.o = w.linear(a + "o_proj");
    L.q_norm = w.norm(a + "q_norm");
    L.k_norm = w.norm(a + "k_norm");
    L.post_norm = w.norm(p + "post_attention_layernorm");
    L.gate = w.linear(p + "mlp.gate_proj");
    L.up = w.linear(p + "mlp.up_proj");
    L.down = w.linear(p + "mlp.down_proj");
    L.sliding = config_.layer_types.at(static_cast<size_t>(i)) == LayerAttention::sliding;
    fuse(L, owned_weights);
    layers_.push_back(std::move(L));
  }
  final_norm_ = w.norm("norm");
  slots_.tables = {&embeddings_};
  slots_.norms = {&final_norm_};
  for (auto& L : layers_) {
    for (Norm* n : {&L.input_norm, &L.q_norm, &L.k_norm, &L.post_norm}) slots_.norms.push_back(n);
    for (Linear* l : {&L.qkv, &L.q, &L.k, &L.v, &L.o, &L.gate_up, &L.gate, &L.up, &L.down}) slots_.linears.push_back(l);
  }
  slots_.qkv = &layers_.at(0).qkv;
  // Per token: x, the normed input, the projections, normed and rotated q and k, contiguous v, the context,
  // o_proj's output (eager adds scores and probabilities, in float32 below float32); in the MLP x, normed,
  // gate and up, the product, the output. Plus the masks.
  const long double H = config_.hidden_size, I = config_.intermediate_size, d = config_.head_dim(),
                    Q = config_.num_attention_heads * d, KV = config_.kv_heads() * d;
  figures_ = {3 * H + 3 * Q + 5 * KV, 3 * H + 3 * I, /*float32_scores=*/true, /*two_masks=*/true};
}

void Qwen3Encoder::fuse(Layer& L, bool allow_copy) {
  at::Tensor qkv = fuse3(L.q.weight, L.k.weight, L.v.weight, allow_copy);
  const bool biases = L.q.bias.defined();
  if (qkv.defined()) {
    L.qkv = {qkv, biases ? fuse3(L.q.bias, L.k.bias, L.v.bias, /*allow_copy=*/true) : at::Tensor()};
    L.q = L.k = L.v = Linear{};
  }
  at::Tensor gate_up = fuse_rows({L.gate.weight, L.up.weight}, allow_copy);
  if (gate_up.defined()) {
    L.gate_up = {gate_up, at::Tensor()};
    L.gate = L.up = Linear{};
  }
}

std::vector<std::string> Qwen3Encoder::family_lines() const {
  std::ostringstream rope;
  rope << "rotary: rope_theta " << config_.rope_theta;
  const int64_t groups = config_.num_attention_heads / config_.kv_heads();
  std::string window = config_.sliding_window
                           ? "; sliding layers see the " + std::to_string(*config_.sliding_window) + " latest tokens"
                           : "";
  return {attention_line("eager: softmax(Q K^T / sqrt(d) + mask) V with at::matmul, softmax in float32",
                         "; causal, " + std::to_string(config_.num_attention_heads) + " query heads over " +
                             std::to_string(config_.kv_heads()) + " key/value heads (" + std::to_string(groups) +
                             " per group)" + window,
                         config_.sliding_window.has_value()),
          rope.str(), linear_line(),
          std::string("q/k/v: ") + (fused_qkv() ? "one fused GEMM" : "three GEMMs (zero-copy views, not adjacent in the file)") +
              "; MLP gate/up: " + (layers_.empty() || layers_[0].gate_up.weight.defined() ? "one fused GEMM" : "two GEMMs"),
          "pooler: none (Qwen3Model outputs last_hidden_state; pooling is the user's business)"};
}

at::Tensor Qwen3Encoder::context(const at::Tensor& q_all, const at::Tensor& k_all, const at::Tensor& v_all, const Layer& L,
                                 const QkRotary& rotary, const AttentionMask& mask) const {
  const int64_t B = q_all.size(0), T = q_all.size(1), heads = config_.num_attention_heads, kv = config_.kv_heads(),
                d = config_.head_dim(), eps_dims[] = {d};
  auto q = q_all.view({B, T, heads, d}), k = k_all.view({B, T, kv, d}), v = v_all.view({B, T, kv, d});
  // RMSNorm over each head's d values, then the rotation into [B, heads, T, d].
  q = apply_rotary(at::rms_norm(q, eps_dims, L.q_norm.weight, config_.layer_norm_eps), rotary.q);
  k = apply_rotary(at::rms_norm(k, eps_dims, L.k_norm.weight, config_.layer_norm_eps), rotary.k);
  v = v.transpose(1, 2).contiguous();
  return attend(q, k, v, mask, attention_, 1.0 / std::sqrt(static_cast<double>(d)));
}

at::Tensor Qwen3Encoder::attention(const at::Tensor& h, const Layer& L, const QkRotary& rotary,
                                   const LayerMasks& masks) const {
  const int64_t heads = config_.num_attention_heads, kv = config_.kv_heads(), d = config_.head_dim();
  at::Tensor q, k, v;  // [B, T, heads d or kv d]
  if (L.qkv.weight.defined()) {
    auto qkv = run_linear(h, L.qkv);
    q = qkv.narrow(-1, 0, heads * d);
    k = qkv.narrow(-1, heads * d, kv * d);
    v = qkv.narrow(-1, (heads + kv) * d, kv * d);
  } else {
    q = run_linear(h, L.q);
    k = run_linear(h, L.k);
    v = run_linear(h, L.v);
  }
  if (!masks.packed) return run_linear(context(q, k, v, L, rotary, *masks.padded), L.o);
  // Packed: each sequence from position 0, causal over its own tokens (sliding layers: its length's window);
  // in one variable-length call each token turned by its own position's tables.
  auto ctx = packed_attention(
      *masks.packed, masks.longest, masks.tokens.cos.defined(), masks.by_length->pattern(), heads * d, h.options(),
      [&] {
        const int64_t N = h.size(1), eps_dims[] = {d};
        const auto normed = [&](const at::Tensor& x, int64_t n, const Norm& norm) {
          return apply_rotary_rows(at::rms_norm(x.view({N, n, d}), eps_dims, norm.weight, config_.layer_norm_eps),
                                   masks.tokens);
        };
        return QkvRows{normed(q, heads, L.q_norm), normed(k, kv, L.k_norm), v.view({N, kv, d})};
      },
      [&](int64_t offset, int64_t length) {
        return context(q.narrow(1, offset, length), k.narrow(1, offset, length), v.narrow(1, offset, length), L,
                       rotary, masks.by_length->of(length));
      });
  return run_linear(ctx, L.o);
}

at::Tensor Qwen3Encoder::mlp(const at::Tensor& h, const Layer& L) const {
  const int64_t I = config_.intermediate_size;
  at::Tensor gate, up;
  if (L.gate_up.weight.defined()) {
    auto both = run_linear(h, L.gate_up);
    gate = activated(both.narrow(-1, 0, I), activation_);
    up = both.narrow(-1, I, I);
  } else {
    gate = run_linear(h, L.gate);
    activate_(gate, activation_);
    up = run_linear(h, L.up);
  }
  gate.mul_(up);
  return run_linear(gate, L.down);
}

EncoderOutput Qwen3Encoder::run(const at::Tensor& input_ids, const at::Tensor& attention_mask, const at::Tensor&) const {
  const int64_t T = input_ids.size(1);
  auto x = at::embedding(embeddings_, input_ids);
  const AttentionMask full = make_attention_mask(attention_mask, T, {true, std::nullopt}, x.options(), attention_);
  AttentionMask sliding;
  if (config_.sliding_window) sliding = make_attention_mask(attention_mask, T, {true, config_.sliding_window}, x.options(), attention_);
  return {layers(x, T, {&full, nullptr, nullptr, {}}, {&sliding, nullptr, nullptr, {}}), at::Tensor()};
}

EncoderOutput Qwen3Encoder::run_packed(const PackedTokens& in, int64_t T) const {
  auto x = at::embedding(embeddings_, in.input_ids).unsqueeze(0);  // [1, N, H]
  MasksByLength full(AttentionPattern{true, std::nullopt}, x.options(), attention_);
  MasksByLength sliding(AttentionPattern{true, config_.sliding_window}, x.options(), attention_);
  // The tables per token (one rope_theta) for the kinds whose layers take one variable-length call.
  const bool full_varlen = takes_varlen(in, full.pattern()), sliding_varlen = takes_varlen(in, sliding.pattern());
  RotaryTables tokens;
  if (full_varlen || sliding_varlen)
    tokens = rotary_tables_at(in.positions, config_.head_dim(), config_.rope_theta, dtype());
  return {layers(x, T, {nullptr, &full, &in, full_varlen ? tokens : RotaryTables{}, T},
                 {nullptr, &sliding, &in, sliding_varlen ? tokens : RotaryTables{}, T})
              .squeeze(0),
          at::Tensor()};
}

at::Tensor Qwen3Encoder::layers(at::Tensor x, int64_t T, const LayerMasks& full, const LayerMasks& sliding) const {
  const int64_t d = config_.head_dim(), H = config_.hidden_size;
  const double eps = config_.layer_norm_eps;
  const double scale = attention_ == AttentionImpl::eager ? 1.0 / std::sqrt(static_cast<double>(d)) : 1.0;
  const QkRotary rotary = qk_rotary(T, d, config_.rope_theta, dtype(), x.device(), scale);
  for (const Layer& L : layers_) {
    x = x + attention(at::rms_norm(x, {H}, L.input_norm.weight, eps), L, rotary, L.sliding ? sliding : full);
    x.add_(mlp(at::rms_norm(x, {H}, L.post_norm.weight, eps), L));
  }
  return at::rms_norm(x, {H}, final_norm_.weight, eps);
}

std::unique_ptr<NativeEncoder> make_qwen3(const EncoderConfig& config, const NamedTensors& named, bool,
                                          AttentionImpl attention, bool owned_weights) {
  return std::make_unique<Qwen3Encoder>(config, named, attention, owned_weights);
}

}  // namespace

const FamilyParts kQwen3Parts = {qwen3_expected_weights, strip_weight_prefix, qwen3_is_ignorable_weight,
                                 qwen3_random_weights, make_qwen3};

}  // namespace fmwork::hf
