// Qwen3's weights, random weights and forward pass. See include/fmwork/encoders/qwen3.hpp.
#include "fmwork/encoders/qwen3.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include <c10/core/InferenceMode.h>

#include "fmwork/base/error.hpp"
#include "fmwork/encoders/varlen_attention.hpp"
#include "random_fill.hpp"

namespace fmwork::hf {
namespace {

std::string qwen3_layer(int64_t i) { return "layers." + std::to_string(i) + "."; }

}  // namespace

// ---- names ------------------------------------------------------------------------------------------------

NamedShapes qwen3_expected_weights(const EncoderConfig& c) {
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

bool qwen3_is_ignorable_weight(const std::string& s) {
  for (const char* head : {"lm_head.", "score."})
    if (s.rfind(head, 0) == 0) return true;
  const std::string buffer = ".rotary_emb.inv_freq";
  return s.size() >= buffer.size() && s.compare(s.size() - buffer.size(), buffer.size(), buffer) == 0;
}

NamedTensors qwen3_random_weights(const EncoderConfig& c, uint64_t seed, at::ScalarType dtype) {
  const NamedShapes shapes = qwen3_expected_weights(c);
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

Qwen3Encoder::Qwen3Encoder(EncoderConfig config, const NamedTensors& named, AttentionImpl attention, bool owned_weights)
    : config_(std::move(config)), attention_(attention) {
  activation_ = activation_of(config_.hidden_act);
  const WeightMap w(named);
  auto get = [&](const std::string& name) { return w.get(name); };
  auto norm = [&](const std::string& name) { return w.norm(name); };
  auto linear = [&](const std::string& name) { return w.linear(name); };
  embeddings_ = get("embed_tokens.weight");
  for (int64_t i = 0; i < config_.num_hidden_layers; ++i) {
    const std::string p = qwen3_layer(i), a = p + "self_attn.";
    Layer L;
    L.input_norm = norm(p + "input_layernorm");
    L.q = linear(a + "q_proj");
    L.k = linear(a + "k_proj");
    L.v = linear(a + "v_proj");
    L.o = linear(a + "o_proj");
    L.q_norm = norm(a + "q_norm");
    L.k_norm = norm(a + "k_norm");
    L.post_norm = norm(p + "post_attention_layernorm");
    L.gate = linear(p + "mlp.gate_proj");
    L.up = linear(p + "mlp.up_proj");
    L.down = linear(p + "mlp.down_proj");
    L.sliding = config_.layer_types.at(static_cast<size_t>(i)) == LayerAttention::sliding;
    fuse(L, owned_weights);
    layers_.push_back(std::move(L));
  }
  final_norm_ = norm("norm");
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

std::vector<Linear*> Qwen3Encoder::linears() {
  std::vector<Linear*> out;
  for (auto& L : layers_)
    for (Linear* l : {&L.qkv, &L.q, &L.k, &L.v, &L.o, &L.gate_up, &L.gate, &L.up, &L.down})
      if (l->weight.defined()) out.push_back(l);
  return out;
}

std::vector<Norm*> Qwen3Encoder::norms() {
  std::vector<Norm*> out = {&final_norm_};
  for (auto& L : layers_)
    for (Norm* n : {&L.input_norm, &L.q_norm, &L.k_norm, &L.post_norm}) out.push_back(n);
  return out;
}

void Qwen3Encoder::to(const at::Device& device) {
  move_to(embeddings_, device);
  for (Norm* n : norms()) move_to(*n, device);
  for (Linear* l : linears()) move_to(*l, device);
  // Off the CPU memory is plentiful and fewer, larger kernels pay: fuse by a copy.
  if (!device.is_cpu())
    for (auto& L : layers_) fuse(L, /*allow_copy=*/true);
}

void Qwen3Encoder::prepare(int64_t batch, int64_t input) {
  const bool on = packs_here(packed_gemm_, dtype(), embeddings_.device());
  for (Linear* l : linears()) pack_linear(*l, batch * input, on);
}

int64_t Qwen3Encoder::parameter_count() const {
  int64_t n = embeddings_.numel();
  auto* self = const_cast<Qwen3Encoder*>(this);
  for (Norm* nm : self->norms()) n += nm->weight.numel();
  for (Linear* l : self->linears()) n += l->weight.numel() + (l->bias.defined() ? l->bias.numel() : 0);
  return n;
}

std::vector<std::string> Qwen3Encoder::describe_lines() const {
  std::ostringstream rope;
  rope << "rotary: rope_theta " << config_.rope_theta;
  const int64_t groups = config_.num_attention_heads / config_.kv_heads();
  const std::string impl = attention_ == AttentionImpl::eager
                               ? "eager: softmax(Q K^T / sqrt(d) + mask) V with at::matmul, softmax in float32"
                               : "sdpa: at::scaled_dot_product_attention";
  std::string window = config_.sliding_window
                           ? "; sliding layers see the " + std::to_string(*config_.sliding_window) + " latest tokens"
                           : "";
  return {"attention: " + impl + "; causal, " + std::to_string(config_.num_attention_heads) + " query heads over " +
              std::to_string(config_.kv_heads()) + " key/value heads (" + std::to_string(groups) + " per group)" + window +
              varlen_attention_note(embeddings_.device(), dtype(), config_.head_dim(), attention_,
                                    config_.sliding_window.has_value()),
          rope.str(), "linear layers: " + linear_description(packed_gemm_, dtype(), embeddings_.device()),
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

at::Tensor Qwen3Encoder::attention(const at::Tensor& h, const Layer& L, const QkRotary& rotary, const Masks& masks) const {
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
  // on CUDA every sequence in one call, each token turned by its own position's tables.
  if (masks.tokens.cos.defined()) {
    const int64_t N = h.size(1), eps_dims[] = {d};
    const auto normed = [&](const at::Tensor& x, int64_t n, const Norm& norm) {
      return apply_rotary_rows(at::rms_norm(x.view({N, n, d}), eps_dims, norm.weight, config_.layer_norm_eps),
                               masks.tokens);
    };
    auto ctx = varlen_attention(normed(q, heads, L.q_norm), normed(k, kv, L.k_norm), v.view({N, kv, d}),
                                masks.packed->cu_seqlens, longest(masks.packed->lengths),
                                1.0 / std::sqrt(static_cast<double>(d)), masks.by_length->pattern());
    if (ctx.defined()) return run_linear(ctx, L.o);
  }
  auto ctx = per_sequence(masks.packed->lengths, heads * d, h.options(), [&](int64_t offset, int64_t length) {
    return context(q.narrow(1, offset, length), k.narrow(1, offset, length), v.narrow(1, offset, length), L, rotary,
                   masks.by_length->of(length));
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

EncoderOutput Qwen3Encoder::forward(const at::Tensor& input_ids, const at::Tensor& attention_mask, const at::Tensor&) const {
  c10::InferenceMode inference;
  if (!input_ids.defined() || input_ids.dim() != 2) throw usage_error("native encoder: input_ids must be [batch, input]");
  const int64_t T = input_ids.size(1);
  check_input_size(config_, T);
  auto x = at::embedding(embeddings_, input_ids);
  const AttentionMask full = make_attention_mask(attention_mask, T, {true, std::nullopt}, x.options(), attention_);
  AttentionMask sliding;
  if (config_.sliding_window) sliding = make_attention_mask(attention_mask, T, {true, config_.sliding_window}, x.options(), attention_);
  return {layers(x, T, {&full, nullptr, nullptr, {}}, {&sliding, nullptr, nullptr, {}}), at::Tensor()};
}

EncoderOutput Qwen3Encoder::forward_packed(const PackedInput& in) const {
  c10::InferenceMode inference;
  const int64_t T = longest(in.lengths);
  check_input_size(config_, T);
  auto x = at::embedding(embeddings_, in.input_ids).unsqueeze(0);  // [1, N, H]
  MasksByLength full(AttentionPattern{true, std::nullopt}, x.options(), attention_);
  MasksByLength sliding(AttentionPattern{true, config_.sliding_window}, x.options(), attention_);
  // The tables per token (one rope_theta) for the kinds whose layers take one variable-length call.
  const auto takes = [&](const MasksByLength& kind) {
    return attention_ == AttentionImpl::sdpa && in.cu_seqlens.defined() &&
           varlen_attention_applies(x.device(), dtype(), config_.head_dim(), kind.pattern());
  };
  RotaryTables tokens;
  if (takes(full) || takes(sliding)) tokens = rotary_tables_at(in.positions, config_.head_dim(), config_.rope_theta, dtype());
  return {layers(x, T, {nullptr, &full, &in, takes(full) ? tokens : RotaryTables{}},
                 {nullptr, &sliding, &in, takes(sliding) ? tokens : RotaryTables{}})
              .squeeze(0),
          at::Tensor()};
}

at::Tensor Qwen3Encoder::layers(at::Tensor x, int64_t T, const Masks& full, const Masks& sliding) const {
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

uint64_t Qwen3Encoder::activation_bytes(int64_t batch, int64_t input) const {
  check_input_size(config_, input);
  const long double B = batch, T = input, N = B * T, H = config_.hidden_size, I = config_.intermediate_size,
                    heads = config_.num_attention_heads, d = config_.head_dim(), Q = heads * d,
                    KV = config_.kv_heads() * d, e = at::elementSize(dtype());
  // In elements of the run dtype: x, the normed input, the projections, normed and rotated q and k,
  // contiguous v, the context, o_proj's output; eager adds scores and probabilities.
  const long double scores = attention_ == AttentionImpl::eager ? 2 * B * heads * T * T * std::max(1.0L, 4 / e) : 0;
  const long double attention = 3 * N * H + 3 * N * Q + 5 * N * KV + scores;
  const long double feed_forward = 3 * N * H + 3 * N * I;  // x, normed, gate and up, the product, the output
  const long double masks = 2 * B * T * T * (attention_ == AttentionImpl::eager ? 1 + 1 / e : 1 / e);
  long double bytes = e * (std::max(attention, feed_forward) + N * H + masks);
  if (attention_ == AttentionImpl::sdpa)
    bytes += sdpa_workspace_bytes(embeddings_.device().type(), dtype(), batch, input, config_.num_attention_heads,
                                  config_.kv_heads(), config_.head_dim());
  if (packs_here(packed_gemm_, dtype(), embeddings_.device()))
    for (Linear* l : const_cast<Qwen3Encoder*>(this)->linears()) bytes += static_cast<long double>(l->weight.nbytes());
  return bytes >= static_cast<long double>(UINT64_MAX) ? UINT64_MAX : static_cast<uint64_t>(bytes);
}

}  // namespace fmwork::hf
