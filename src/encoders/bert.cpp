// The BERT family's forward pass: its weights laid out for speed (q/k/v fused, MKL packs), the layers,
// and the memory a forward takes. Which weights exist and how they are named: bert_weights.cpp. See
// include/fmwork/encoders/bert.hpp.
#include "fmwork/encoders/bert.hpp"

#include "bert_layer_names.hpp"

#include <cmath>

#include "fmwork/base/error.hpp"
#include "fmwork/encoders/attention.hpp"

namespace fmwork::hf {

// ---- the encoder ------------------------------------------------------------------------------------------

BertEncoder::BertEncoder(EncoderConfig config, const NamedTensors& named, bool pooler, AttentionImpl attention,
                         bool owned_weights)
    : NativeEncoder(config, attention, WeightMap(named).get("embeddings.word_embeddings.weight"),
                    config.family != Family::distilbert) {
  const WeightMap weights(named);
  w_.word = weights.get("embeddings.word_embeddings.weight");
  w_.position = weights.get("embeddings.position_embeddings.weight");
  if (has_token_types()) w_.token_type = weights.get("embeddings.token_type_embeddings.weight");
  w_.embed_norm = weights.norm("embeddings.LayerNorm");
  const LayerNames& n = layer_names(config_);
  for (int64_t i = 0; i < config_.num_hidden_layers; ++i) {
    const std::string p = layer_prefix(config_, i);
    EncoderLayer L;
    Linear q = weights.linear(p + n.q), k = weights.linear(p + n.k), v = weights.linear(p + n.v);
    at::Tensor fused = fuse3(q.weight, k.weight, v.weight, /*allow_copy=*/owned_weights);
    if (fused.defined()) {
      L.qkv = {fused, fuse3(q.bias, k.bias, v.bias, /*allow_copy=*/true)};
    } else {
      L.q = q;
      L.k = k;
      L.v = v;
    }
    L.attn_out = weights.linear(p + n.attn_out);
    L.attn_norm = weights.norm(p + n.attn_norm);
    L.ffn_in = weights.linear(p + n.ffn_in);
    L.ffn_out = weights.linear(p + n.ffn_out);
    L.out_norm = weights.norm(p + n.out_norm);
    w_.layers.push_back(std::move(L));
  }
  if (pooler) w_.pooler = weights.linear("pooler.dense");
  slots_.tables = {&w_.word, &w_.position, &w_.token_type};
  slots_.norms = {&w_.embed_norm};
  for (auto& L : w_.layers) {
    for (Linear* l : {&L.qkv, &L.q, &L.k, &L.v, &L.attn_out, &L.ffn_in, &L.ffn_out}) slots_.linears.push_back(l);
    for (Norm* nm : {&L.attn_norm, &L.out_norm}) slots_.norms.push_back(nm);
  }
  if (w_.pooler) slots_.pooler = &*w_.pooler;
  slots_.qkv = &w_.layers.at(0).qkv;
  for (const auto& L : w_.layers) slots_.gelu_inputs.push_back(&L.ffn_in);
  // Per token, as forward() holds them: x, the fused QKV output, and with eager attention the scaled Q,
  // contiguous K and V, context, merged heads and the projection (then the scores); sdpa keeps no [T, T]
  // tensor (flash attention on the CPU, memory-efficient kernels on GPUs). Feed-forward: the residual, the
  // new x, the output, and the intermediate hidden state.
  const long double H = config_.hidden_size;
  figures_.attention_per_token = attention_ == AttentionImpl::eager ? 10 * H : 7 * H;
  figures_.feed_forward_per_token = 3 * H + config_.intermediate_size;
}

// Off the CPU: q, k, v fused by a copy where they were not.
void BertEncoder::fuse_off_cpu() {
  for (auto& L : w_.layers) {
    if (L.qkv.weight.defined()) continue;
    L.qkv = {at::cat({L.q.weight, L.k.weight, L.v.weight}, 0), at::cat({L.q.bias, L.k.bias, L.v.bias}, 0)};
    L.q = L.k = L.v = Linear{};
  }
}

std::vector<std::string> BertEncoder::family_lines() const {
  return {attention_line("eager: softmax(Q K^T / sqrt(d) + mask) V with at::bmm", "", false), linear_line(),
          std::string("q/k/v: ") + (fused_qkv() ? "one fused [3H, H] GEMM"
                                                 : "three GEMMs (zero-copy views, not adjacent in the file; fusing would copy)"),
          feed_forward_line(), std::string("pooler: ") + (has_pooler() ? "dense + tanh on the first token" : "none")};
}

// Q, K, V of `x` ([B, T, H]) as [B, T, h, d] views of the fused GEMM's output (or of three).
BertEncoder::Qkv BertEncoder::project(const at::Tensor& x, const EncoderLayer& L) const {
  const int64_t B = x.size(0), T = x.size(1), h = config_.num_attention_heads, d = config_.head_dim();
  if (L.qkv.weight.defined()) {
    auto qkv = run_linear(x, L.qkv).view({B, T, 3, h, d});
    return {qkv.select(2, 0), qkv.select(2, 1), qkv.select(2, 2)};
  }
  return {run_linear(x, L.q).view({B, T, h, d}), run_linear(x, L.k).view({B, T, h, d}),
          run_linear(x, L.v).view({B, T, h, d})};
}

at::Tensor BertEncoder::context(const Qkv& p, const at::Tensor& additive_mask, const at::Tensor& bool_mask,
                                bool alone) const {
  const int64_t B = p.q.size(0), T = p.q.size(1), H = config_.hidden_size, h = config_.num_attention_heads,
                d = config_.head_dim();
  at::Tensor ctx;  // [B, h, T, d]
  if (attention_ == AttentionImpl::sdpa) {
    std::optional<at::Tensor> mask;
    if (bool_mask.defined()) mask = bool_mask;
    // BERT's mask is only ever padding: given, the batch's shape follows its requests
    ctx = varying_shape_sdpa(p.q.transpose(1, 2), p.k.transpose(1, 2), p.v.transpose(1, 2), mask,
                             /*shape_varies=*/mask.has_value() || alone, 0.0, /*causal=*/false, std::nullopt,
                             /*enable_gqa=*/false);
  } else {
    // Q scaled while it is copied into the [B, h, T, d] layout bmm wants: one pass instead of two.
    auto qc = at::empty({B, h, T, d}, p.q.options());
    at::mul_out(qc, p.q.transpose(1, 2), at::scalar_tensor(1.0 / std::sqrt(static_cast<double>(d)), at::kDouble));
    auto kc = p.k.transpose(1, 2).contiguous();
    auto vc = p.v.transpose(1, 2).contiguous();
    auto scores = at::bmm(qc.view({B * h, T, d}), kc.view({B * h, T, d}).transpose(1, 2));  // [B h, T, T]
    if (additive_mask.defined()) scores.view({B, h, T, T}).add_(additive_mask);
    auto probs = at::softmax(scores, -1);
    ctx = at::bmm(probs, vc.view({B * h, T, d})).view({B, h, T, d});
  }
  return ctx.transpose(1, 2).reshape({B, T, H});
}

at::Tensor BertEncoder::attention(const at::Tensor& x, const EncoderLayer& L, const at::Tensor& additive_mask,
                                  const at::Tensor& bool_mask, const Packed* packed) const {
  const Qkv p = project(x, L);
  if (!packed) return run_linear(context(p, additive_mask, bool_mask, /*alone=*/false), L.attn_out);
  // Packed: each sequence attends over its own tokens, with no mask.
  auto ctx = packed_attention(
      *packed->tokens, packed->longest, packed->varlen, {}, config_.hidden_size, x.options(),
      [&] { return QkvRows{p.q.squeeze(0), p.k.squeeze(0), p.v.squeeze(0)}; },
      [&](int64_t offset, int64_t length) {
        return context({p.q.narrow(1, offset, length), p.k.narrow(1, offset, length), p.v.narrow(1, offset, length)},
                       at::Tensor(), at::Tensor(), /*alone=*/true);
      });
  return run_linear(ctx, L.attn_out);
}

namespace {

// Word, position and token-type embeddings, summed and normalised: [B, T, H].
at::Tensor embed(const EncoderConfig& config, const EncoderWeights& w, const at::Tensor& input_ids,
                 const at::Tensor& token_type_ids) {
  const int64_t T = input_ids.size(1);
  auto x = at::embedding(w.word, input_ids);  // [B, T, H]
  if (config.positions_after_pad()) {
    // create_position_ids_from_input_ids: pad + cumsum(ids != pad) on non-pad tokens, pad on pad tokens.
    auto not_pad = input_ids.ne(*config.pad_token_id).to(at::kLong);
    auto positions = at::cumsum(not_pad, 1).mul_(not_pad).add_(*config.pad_token_id);
    x.add_(at::embedding(w.position, positions));
  } else {
    x.add_(w.position.narrow(0, 0, T));
  }
  if (w.token_type.defined()) {
    if (token_type_ids.defined())
      x.add_(at::embedding(w.token_type, token_type_ids));
    else
      x.add_(w.token_type[0]);
  }
  return at::layer_norm(x, {config.hidden_size}, w.embed_norm.weight, w.embed_norm.bias, config.layer_norm_eps);
}

// The embeddings of packed sequences: [1, N, H]. Positions restart in each sequence; after the padding index they
// count its non-pad tokens from pad + 1, as create_position_ids_from_input_ids does on a right-padded row.
at::Tensor embed_packed(const EncoderConfig& config, const EncoderWeights& w, const PackedTokens& in) {
  auto x = at::embedding(w.word, in.input_ids);  // [N, H]
  if (config.positions_after_pad()) {
    const int64_t pad = *config.pad_token_id;
    auto not_pad = in.input_ids.ne(pad).to(at::kLong);
    auto counted = at::cumsum(not_pad, 0);
    // Each sequence's count before its first token, subtracted from its tokens' running count.
    auto before = (counted.index_select(0, in.starts) - not_pad.index_select(0, in.starts)).index_select(0, in.sequences);
    x.add_(at::embedding(w.position, (counted - before).mul_(not_pad).add_(pad)));
  } else {
    x.add_(at::embedding(w.position, in.positions));
  }
  if (w.token_type.defined()) {
    if (in.token_type_ids.defined())
      x.add_(at::embedding(w.token_type, in.token_type_ids));
    else
      x.add_(w.token_type[0]);
  }
  return at::layer_norm(x, {config.hidden_size}, w.embed_norm.weight, w.embed_norm.bias, config.layer_norm_eps)
      .unsqueeze(0);
}

struct AttentionMasks {
  at::Tensor additive, boolean;  // undefined when no token is masked; each only for the kernel that reads it
};

// An all-ones mask on the CPU (checked for free) is dropped, as Hugging Face's sdpa path does; off the CPU the
// check would synchronise the device (and break graph capture), so a given mask is applied (the model leaves
// it out when the batch says nothing is padded). Only the form the attention reads is built: eager adds the
// additive one, sdpa takes the boolean one; the other would be kernels in the timed region for nothing.
AttentionMasks attention_masks(const at::Tensor& attention_mask, int64_t B, int64_t T, const at::Tensor& x,
                               AttentionImpl impl) {
  AttentionMasks m;
  if (!attention_mask.defined()) return m;
  bool all_ones = attention_mask.is_cpu() && !attention_mask.eq(0).any().item<bool>();
  if (all_ones) return m;
  const at::Tensor boolean = attention_mask.ne(0).view({B, 1, 1, T});
  if (impl == AttentionImpl::sdpa)
    m.boolean = boolean;
  else
    m.additive = at::zeros({B, 1, 1, T}, x.options()).masked_fill_(boolean.logical_not(), lowest_of(x.scalar_type()));
  return m;
}

}  // namespace

EncoderOutput BertEncoder::run(const at::Tensor& input_ids, const at::Tensor& attention_mask,
                               const at::Tensor& token_type_ids) const {
  const int64_t B = input_ids.size(0), T = input_ids.size(1);
  auto x = embed(config_, w_, input_ids, token_type_ids);
  const AttentionMasks masks = attention_masks(attention_mask, B, T, x, attention_);
  x = layers(x, masks.additive, masks.boolean, nullptr);
  EncoderOutput out;
  out.last_hidden_state = x;
  if (w_.pooler) out.pooler_output = at::tanh(run_linear(x.select(1, 0), *w_.pooler));
  return out;
}

EncoderOutput BertEncoder::run_packed(const PackedTokens& in, int64_t longest) const {
  const Packed packed{&in, takes_varlen(in, {}), longest};
  auto x = layers(embed_packed(config_, w_, in), at::Tensor(), at::Tensor(), &packed).squeeze(0);  // [N, H]
  EncoderOutput out;
  out.last_hidden_state = x;
  if (w_.pooler)
    out.pooler_output = at::tanh(run_linear(x.index_select(0, in.starts), *w_.pooler));
  return out;
}

at::Tensor BertEncoder::layers(at::Tensor x, const at::Tensor& additive_mask, const at::Tensor& bool_mask,
                               const Packed* packed) const {
  const int64_t H = config_.hidden_size;
  const double eps = config_.layer_norm_eps;
  for (const auto& L : w_.layers) {
    auto a = attention(x, L, additive_mask, bool_mask, packed);
    a.add_(x);
    x = at::layer_norm(a, {H}, L.attn_norm.weight, L.attn_norm.bias, eps);
    auto y = run_linear(linear_activated(x, L.ffn_in), L.ffn_out);
    y.add_(x);
    x = at::layer_norm(y, {H}, L.out_norm.weight, L.out_norm.bias, eps);
  }
  return x;
}

}  // namespace fmwork::hf
