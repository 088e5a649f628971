// ModernBERT's weights, random weights and forward pass. See include/fmwork/encoders/modernbert.hpp.
#include "fmwork/encoders/modernbert.hpp"

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

std::string modernbert_layer(int64_t i) { return "layers." + std::to_string(i) + "."; }

std::string theta_text(double theta) {
  std::ostringstream os;
  os << theta;
  return os.str();
}

}  // namespace

// ---- names ------------------------------------------------------------------------------------------------

NamedShapes modernbert_expected_weights(const EncoderConfig& c) {
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

bool modernbert_is_ignorable_weight(const std::string& s) {
  for (const char* head : {"head.", "decoder.", "classifier.", "drop."})
    if (s.rfind(head, 0) == 0) return true;
  return false;
}

NamedTensors modernbert_random_weights(const EncoderConfig& c, uint64_t seed, at::ScalarType dtype) {
  const NamedShapes shapes = modernbert_expected_weights(c);
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

ModernBertEncoder::ModernBertEncoder(EncoderConfig config, const NamedTensors& named, AttentionImpl attention)
    : config_(std::move(config)), attention_(attention) {
  activation_ = activation_of(config_.hidden_act);
  const WeightMap w(named);
  auto get = [&](const std::string& name) { return w.get(name); };
  auto norm = [&](const std::string& name) { return w.norm(name); };
  auto linear = [&](const std::string& name) { return w.linear(name); };
  embeddings_ = get("embeddings.tok_embeddings.weight");
  embed_norm_ = norm("embeddings.norm");
  for (int64_t i = 0; i < config_.num_hidden_layers; ++i) {
    const std::string p = modernbert_layer(i);
    Layer L;
    if (i > 0) L.attn_norm = norm(p + "attn_norm");
    L.wqkv = linear(p + "attn.Wqkv");
    L.attn_out = linear(p + "attn.Wo");
    L.mlp_norm = norm(p + "mlp_norm");
    L.wi = linear(p + "mlp.Wi");
    L.mlp_out = linear(p + "mlp.Wo");
    L.sliding = config_.layer_types.at(static_cast<size_t>(i)) == LayerAttention::sliding;
    layers_.push_back(std::move(L));
  }
  final_norm_ = norm("final_norm");
}

std::vector<Linear*> ModernBertEncoder::linears() {
  std::vector<Linear*> out;
  for (auto& L : layers_)
    for (Linear* l : {&L.wqkv, &L.attn_out, &L.wi, &L.mlp_out}) out.push_back(l);
  return out;
}

std::vector<Norm*> ModernBertEncoder::norms() {
  std::vector<Norm*> out = {&embed_norm_, &final_norm_};
  for (auto& L : layers_)
    for (Norm* n : {&L.attn_norm, &L.mlp_norm}) out.push_back(n);
  return out;
}

void ModernBertEncoder::to(const at::Device& device) {
  move_to(embeddings_, device);
  for (Norm* n : norms()) move_to(*n, device);
  for (Linear* l : linears()) move_to(*l, device);
}

void ModernBertEncoder::prepare(int64_t batch, int64_t input) {
  const bool on = packs_here(packed_gemm_, dtype(), embeddings_.device());
  for (Linear* l : linears()) pack_linear(*l, batch * input, on);
}

int64_t ModernBertEncoder::parameter_count() const {
  int64_t n = embeddings_.numel();
  auto count = [&](const at::Tensor& t) { n += t.defined() ? t.numel() : 0; };
  for (Norm* nm : const_cast<ModernBertEncoder*>(this)->norms()) {
    count(nm->weight);
    count(nm->bias);
  }
  for (Linear* l : const_cast<ModernBertEncoder*>(this)->linears()) {
    count(l->weight);
    count(l->bias);
  }
  return n;
}

std::vector<std::string> ModernBertEncoder::describe_lines() const {
  const std::string impl = attention_ == AttentionImpl::eager
                               ? "eager: softmax(Q K^T / sqrt(d) + mask) V with at::matmul, softmax in float32"
                               : "sdpa: at::scaled_dot_product_attention";
  const int64_t window = config_.sliding_window.value_or(0);
  return {"attention: " + impl + "; bidirectional, sliding-window layers see +-" + std::to_string(window) + " tokens" +
              (window == 0 ? " (each token itself alone)" : "") + " (a [T, T] mask, not a banded kernel)" +
              varlen_attention_note(embeddings_.device(), dtype(), config_.head_dim(), attention_, has_layers(true)),
          "rotary: rope_theta " + theta_text(config_.rope_theta) + " (global layers), " + theta_text(config_.local_rope_theta) +
              " (sliding layers)",
          "linear layers: " + linear_description(packed_gemm_, dtype(), embeddings_.device()),
          "q/k/v: one Wqkv GEMM; MLP: one Wi GEMM (input and gate), " + config_.hidden_act + "(input) x gate",
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

at::Tensor ModernBertEncoder::attention(const at::Tensor& h, const Layer& L, const QkRotary& rotary, const Masks& masks) const {
  auto qkv = run_linear(h, L.wqkv);
  if (!masks.packed) return run_linear(context(qkv, rotary, *masks.padded), L.attn_out);
  // Packed: each sequence from position 0 over its own tokens, with its length's mask (sliding layers); on
  // CUDA every sequence in one call, each token turned by its own position's tables.
  if (masks.tokens.cos.defined()) {
    const int64_t d = config_.head_dim();
    auto parts = qkv.view({qkv.size(1), 3, config_.num_attention_heads, d});
    auto ctx = varlen_attention(apply_rotary_rows(parts.select(1, 0), masks.tokens),
                                apply_rotary_rows(parts.select(1, 1), masks.tokens), parts.select(1, 2),
                                masks.packed->cu_seqlens, longest(masks.packed->lengths),
                                1.0 / std::sqrt(static_cast<double>(d)), masks.by_length->pattern());
    if (ctx.defined()) return run_linear(ctx, L.attn_out);
  }
  auto ctx = per_sequence(masks.packed->lengths, config_.hidden_size, h.options(), [&](int64_t offset, int64_t length) {
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

EncoderOutput ModernBertEncoder::forward(const at::Tensor& input_ids, const at::Tensor& attention_mask,
                                         const at::Tensor&) const {
  c10::InferenceMode inference;
  if (!input_ids.defined() || input_ids.dim() != 2) throw usage_error("native encoder: input_ids must be [batch, input]");
  const int64_t T = input_ids.size(1);
  check_input_size(config_, T);
  auto x = norm(at::embedding(embeddings_, input_ids), embed_norm_);
  const auto options = x.options();
  // One mask per kind of layer, shared by the layers of that kind.
  const AttentionMask global_mask = make_attention_mask(attention_mask, T, {false, std::nullopt}, options, attention_);
  const AttentionMask local_mask =
      make_attention_mask(attention_mask, T, {false, config_.sliding_window}, options, attention_);
  return {layers(x, T, {&global_mask, nullptr, nullptr, {}}, {&local_mask, nullptr, nullptr, {}}), at::Tensor()};
}

EncoderOutput ModernBertEncoder::forward_packed(const PackedInput& in) const {
  c10::InferenceMode inference;
  const int64_t T = longest(in.lengths);
  check_input_size(config_, T);
  auto x = norm(at::embedding(embeddings_, in.input_ids), embed_norm_).unsqueeze(0);  // [1, N, H]
  MasksByLength global(AttentionPattern{false, std::nullopt}, x.options(), attention_);
  MasksByLength local(AttentionPattern{false, config_.sliding_window}, x.options(), attention_);
  // Each kind's tables per token where the model has layers of that kind and they take one variable-length
  // call (float32: not the windowed ones).
  const auto tokens = [&](const MasksByLength& kind, bool sliding, double theta) {
    const bool varlen = attention_ == AttentionImpl::sdpa && in.cu_seqlens.defined() && has_layers(sliding) &&
                        varlen_attention_applies(x.device(), dtype(), config_.head_dim(), kind.pattern());
    return varlen ? rotary_tables_at(in.positions, config_.head_dim(), theta, dtype()) : RotaryTables{};
  };
  return {layers(x, T, {nullptr, &global, &in, tokens(global, false, config_.rope_theta)},
                 {nullptr, &local, &in, tokens(local, true, config_.local_rope_theta)})
              .squeeze(0),
          at::Tensor()};
}

at::Tensor ModernBertEncoder::layers(at::Tensor x, int64_t T, const Masks& global, const Masks& local) const {
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

uint64_t ModernBertEncoder::activation_bytes(int64_t batch, int64_t input) const {
  check_input_size(config_, input);
  const long double B = batch, T = input, N = B * T, H = config_.hidden_size, I = config_.intermediate_size,
                    heads = config_.num_attention_heads, e = at::elementSize(dtype());
  // In elements of the run dtype: x, the normed input, Wqkv's output, rotated q and k, contiguous v, the
  // context, Wo's output; eager adds scores and probabilities, in float32 below float32 (4 / e each).
  const long double scores = attention_ == AttentionImpl::eager ? 2 * B * heads * T * T * std::max(1.0L, 4 / e) : 0;
  const long double attention = 10 * N * H + scores;
  const long double feed_forward = 3 * N * H + 3 * N * I;  // x, normed, Wi's 2 I, the activation, the output
  const long double masks = 2 * B * T * T * (attention_ == AttentionImpl::eager ? 1 + 1 / e : 1 / e);
  long double bytes = e * (std::max(attention, feed_forward) + N * H) + masks * e;
  if (attention_ == AttentionImpl::sdpa)
    bytes += sdpa_workspace_bytes(embeddings_.device().type(), dtype(), batch, input, config_.num_attention_heads,
                                  config_.num_attention_heads, config_.head_dim());
  if (packs_here(packed_gemm_, dtype(), embeddings_.device()))
    for (Linear* l : const_cast<ModernBertEncoder*>(this)->linears()) bytes += static_cast<long double>(l->weight.nbytes());
  return bytes >= static_cast<long double>(UINT64_MAX) ? UINT64_MAX : static_cast<uint64_t>(bytes);
}

}  // namespace fmwork::hf
