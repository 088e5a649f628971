// Masks and attention for the rotary families. See include/fmwork/encoders/attention.hpp.
#include "fmwork/encoders/attention.hpp"

#include <algorithm>
#include <optional>

#include "fmwork/encoders/linear.hpp"

namespace fmwork::hf {

AttentionMask make_attention_mask(const at::Tensor& attention_mask, int64_t T, const AttentionPattern& pattern,
                                  const at::TensorOptions& options, AttentionImpl impl) {
  AttentionMask m;
  const bool padded =
      attention_mask.defined() && !(attention_mask.is_cpu() && !attention_mask.eq(0).any().item<bool>());
  const bool window_masks = pattern.window > 0 && (pattern.causal ? T > pattern.window : T - 1 > pattern.window);
  if (!padded && !window_masks && !pattern.causal) return m;
  m.causal_only = pattern.causal && !padded && !window_masks;
  at::Tensor allowed;  // [T, T] when the pattern masks, then [B or 1, 1, T, T]
  if (pattern.causal || window_masks) {
    auto pos = at::arange(T, options.dtype(at::kLong));
    auto distance = pos.view({T, 1}) - pos.view({1, T});  // query - key
    if (pattern.causal) {
      allowed = distance.ge(0);
      if (window_masks) allowed.logical_and_(distance.lt(pattern.window));
    } else {
      allowed = distance.abs().le(pattern.window);
    }
    allowed = allowed.view({1, 1, T, T});
  }
  if (padded) {
    auto keys = attention_mask.ne(0).view({attention_mask.size(0), 1, 1, T});
    allowed = allowed.defined() ? allowed.logical_and(keys) : keys;
  }
  m.allowed = allowed;
  if (impl == AttentionImpl::eager)
    m.additive = at::zeros(allowed.sizes(), options).masked_fill_(allowed.logical_not(), lowest_of(options.dtype().toScalarType()));
  return m;
}

bool sdpa_repeats_kv(at::DeviceType device, at::ScalarType dtype, bool masked, int64_t h, int64_t kv) {
  if (device != at::kCUDA || h == kv) return false;
  return masked || (dtype != at::kHalf && dtype != at::kBFloat16);
}

long double sdpa_workspace_bytes(at::DeviceType device, at::ScalarType dtype, int64_t B, int64_t T, int64_t h,
                                 int64_t kv, int64_t d) {
  const long double e = static_cast<long double>(c10::elementSize(dtype)), tokens = static_cast<long double>(B) * T;
  long double bytes = 0;
  if (sdpa_repeats_kv(device, dtype, /*masked=*/true, h, kv)) bytes += 2 * tokens * static_cast<long double>(h * d) * e;
  if (device == at::kCUDA) {
    const bool half = dtype == at::kHalf || dtype == at::kBFloat16;
    const bool fused = (half && d % 8 == 0) || (dtype == at::kFloat && d % 4 == 0);
    if (!fused) bytes += 2 * tokens * static_cast<long double>(h) * T * std::max(e, 4.0L);
  }
  return bytes;
}

at::Tensor attend(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const AttentionMask& mask,
                  AttentionImpl impl, double sdpa_scale) {
  const int64_t B = q.size(0), h = q.size(1), T = q.size(2), d = q.size(3), kv = k.size(1), rep = h / kv;
  at::Tensor ctx;  // [B, h, T, d]
  if (impl == AttentionImpl::sdpa) {
    std::optional<at::Tensor> m;
    if (mask.allowed.defined() && !mask.causal_only) m = mask.allowed;
    if (sdpa_repeats_kv(q.device().type(), q.scalar_type(), m.has_value(), h, kv))
      ctx = at::scaled_dot_product_attention(q, k.repeat_interleave(rep, 1), v.repeat_interleave(rep, 1), m, 0.0,
                                             mask.causal_only, sdpa_scale);
    else
      ctx = at::scaled_dot_product_attention(q, k, v, m, 0.0, mask.causal_only, sdpa_scale, /*enable_gqa=*/kv != h);
  } else {
    // The rep query heads of one key/value head are adjacent in q: one [rep T, T] score matrix per kv head,
    // no copy of k and v per query head.
    auto scores = at::matmul(q.view({B, kv, rep * T, d}), k.transpose(-1, -2));  // [B, kv, rep T, T]
    if (mask.additive.defined()) scores.view({B, kv, rep, T, T}).add_(mask.additive.unsqueeze(1));
    auto probs = q.scalar_type() == at::kFloat ? at::softmax(scores, -1)
                                               : at::softmax(scores, -1, at::kFloat).to(q.scalar_type());
    ctx = at::matmul(probs, v).view({B, h, T, d});
  }
  return ctx.transpose(1, 2).reshape({B, T, h * d});
}

}  // namespace fmwork::hf
