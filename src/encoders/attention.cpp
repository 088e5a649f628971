// Masks and attention for the rotary families. See include/fmwork/encoders/attention.hpp.
#include "fmwork/encoders/attention.hpp"

#include <algorithm>
#include <mutex>
#include <optional>

#include <ATen/Parallel.h>
#include <c10/core/InferenceMode.h>

#include "fmwork/base/error.hpp"
#include "fmwork/encoders/linear.hpp"

namespace fmwork::hf {

AttentionMask make_attention_mask(const at::Tensor& attention_mask, int64_t T, const AttentionPattern& pattern,
                                  const at::TensorOptions& options, AttentionImpl impl) {
  AttentionMask m;
  const bool padded =
      attention_mask.defined() && !(attention_mask.is_cpu() && !attention_mask.eq(0).any().item<bool>());
  const bool window_masks =
      pattern.window.has_value() && (pattern.causal ? T > *pattern.window : T - 1 > *pattern.window);
  if (!padded && !window_masks && !pattern.causal) return m;
  m.causal_only = pattern.causal && !padded && !window_masks;
  m.shape_varies = padded;
  at::Tensor allowed;  // [T, T] when the pattern masks, then [B or 1, 1, T, T]
  if (pattern.causal || window_masks) {
    auto pos = at::arange(T, options.dtype(at::kLong));
    auto distance = pos.view({T, 1}) - pos.view({1, T});  // query - key
    if (pattern.causal) {
      allowed = distance.ge(0);
      if (window_masks) allowed.logical_and_(distance.lt(*pattern.window));
    } else {
      allowed = distance.abs().le(*pattern.window);
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

at::Tensor varying_shape_sdpa(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                              const std::optional<at::Tensor>& mask, bool shape_varies, double dropout, bool causal,
                              std::optional<double> scale, bool enable_gqa) {
  if (!shape_varies || q.device().type() != at::kCUDA)
    return at::scaled_dot_product_attention(q, k, v, mask, dropout, causal, scale, enable_gqa);
  struct CudnnAttentionOff {  // restores LibTorch's switch however the call ends
    bool was = at::globalContext().userEnabledCuDNNSDP();
    CudnnAttentionOff() { at::globalContext().setSDPUseCuDNN(false); }
    ~CudnnAttentionOff() { at::globalContext().setSDPUseCuDNN(was); }
  } off;
  return at::scaled_dot_product_attention(q, k, v, mask, dropout, causal, scale, enable_gqa);
}

at::Tensor attend(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const AttentionMask& mask,
                  AttentionImpl impl, double sdpa_scale) {
  const int64_t B = q.size(0), h = q.size(1), T = q.size(2), d = q.size(3), kv = k.size(1), rep = h / kv;
  at::Tensor ctx;  // [B, h, T, d]
  if (impl == AttentionImpl::sdpa) {
    std::optional<at::Tensor> m;
    if (mask.allowed.defined() && !mask.causal_only) m = mask.allowed;
    if (sdpa_repeats_kv(q.device().type(), q.scalar_type(), m.has_value(), h, kv))
      ctx = varying_shape_sdpa(q, k.repeat_interleave(rep, 1), v.repeat_interleave(rep, 1), m, mask.shape_varies,
                               0.0, mask.causal_only, sdpa_scale, /*enable_gqa=*/false);
    else
      ctx = varying_shape_sdpa(q, k, v, m, mask.shape_varies, 0.0, mask.causal_only, sdpa_scale,
                               /*enable_gqa=*/kv != h);
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

at::Tensor per_sequence(const std::vector<int64_t>& lengths, int64_t features, const at::TensorOptions& options,
                        const std::function<at::Tensor(int64_t offset, int64_t length)>& one) {
  std::vector<int64_t> offsets;
  int64_t total = 0;
  for (const int64_t length : lengths) offsets.push_back(total), total += length;
  auto out = at::empty({1, total, features}, options);
  auto run = [&](size_t i) { out.narrow(1, offsets[i], lengths[i]).copy_(one(offsets[i], lengths[i])); };
  // Off the CPU the kernels queue on the caller's stream, one sequence after another.
  const auto threads = static_cast<size_t>(std::max(1, at::get_num_threads()));
  if (!options.device().is_cpu() || threads == 1 || lengths.size() < 2) {
    for (size_t i = 0; i < lengths.size(); ++i) run(i);
    return out;
  }
  // On the CPU one parallel region for the whole batch, each thread running its sequences' small kernels on
  // its own (ATen runs a kernel called inside a parallel region on the calling thread): a region per
  // sequence's kernel would cost a barrier of every thread each, milliseconds where the CPU is shared.
  // Longest first, each sequence to the thread with the least work so far (length^2 + length, attention's
  // and the copies' share).
  std::vector<size_t> order(lengths.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return lengths[a] > lengths[b]; });
  const size_t used = std::min(threads, lengths.size());
  std::vector<std::vector<size_t>> share(used);
  std::vector<double> load(used, 0.0);
  for (const size_t i : order) {
    const size_t t = static_cast<size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    share[t].push_back(i);
    load[t] += static_cast<double>(lengths[i]) * static_cast<double>(lengths[i] + 1);
  }
  at::parallel_for(0, static_cast<int64_t>(used), 1, [&](int64_t begin, int64_t end) {
    c10::InferenceMode inference;  // thread-local: the worker threads' too
    for (int64_t t = begin; t < end; ++t)
      for (const size_t i : share[static_cast<size_t>(t)]) run(i);
  });
  return out;
}

const AttentionMask& MasksByLength::of(int64_t length) {
  const std::lock_guard<std::mutex> lock(mutex_);  // per_sequence's threads ask at once
  auto it = made_.find(length);
  if (it == made_.end()) {
    AttentionMask m = make_attention_mask(at::Tensor(), length, pattern_, options_, impl_);
    m.shape_varies = true;  // one sequence of a packed batch alone: its length is its shape
    it = made_.emplace(length, std::move(m)).first;
  }
  return it->second;
}

int64_t longest(const std::vector<int64_t>& lengths) {
  if (lengths.empty()) throw usage_error("native encoder: a packed batch holds no sequence");
  return *std::max_element(lengths.begin(), lengths.end());
}

}  // namespace fmwork::hf
