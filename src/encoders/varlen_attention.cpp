// Packed sequences' attention in one variable-length kernel call. See include/fmwork/encoders/varlen_attention.hpp.
#include "fmwork/encoders/varlen_attention.hpp"

#include <optional>
#include <tuple>

#include <ATen/ops/_efficient_attention_forward.h>
#include <ATen/ops/_flash_attention_forward.h>

namespace fmwork::hf {
namespace {

bool half_precision(at::ScalarType dtype) { return dtype == at::kHalf || dtype == at::kBFloat16; }

const char* kernel_name(at::ScalarType dtype) {
  return half_precision(dtype) ? "variable-length flash kernel" : "variable-length memory-efficient kernel";
}

}  // namespace

bool varlen_attention_applies(const at::Device& device, at::ScalarType dtype, int64_t head_dim,
                              const AttentionPattern& pattern) {
  if (!device.is_cuda() || head_dim > 256) return false;
  if (half_precision(dtype)) return head_dim % 8 == 0;
  return dtype == at::kFloat && head_dim % 4 == 0 && !pattern.window;
}

at::Tensor varlen_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const at::Tensor& cu_seqlens,
                            int64_t longest, double scale, const AttentionPattern& pattern) {
  const int64_t N = q.size(0), h = q.size(1), d = q.size(2);
  if (!cu_seqlens.defined() || !varlen_attention_applies(q.device(), q.scalar_type(), d, pattern)) return {};
  if (half_precision(q.scalar_type())) {
    // The kernel's window: keys from query - left to query + right. A causal window of w: the w latest keys.
    std::optional<int64_t> left, right;
    if (pattern.window) {  // 0 (bidirectional) a window too: each token sees itself alone
      left = pattern.causal ? *pattern.window - 1 : *pattern.window;
      right = pattern.causal ? 0 : *pattern.window;
    }
    const auto out = std::get<0>(at::_flash_attention_forward(q, k, v, cu_seqlens, cu_seqlens, longest, longest,
                                                              /*dropout_p=*/0.0, pattern.causal,
                                                              /*return_debug_mask=*/false, scale, left, right));
    return out.reshape({1, N, h * d});  // [N, h, d]
  }
  // The memory-efficient kernel: [1, N, heads, d] with batch 1 for variable lengths, one key/value head per
  // query head. Mask type 1 is causal from the top left (each sequence's queries and keys are as many).
  const int64_t kv = k.size(1);
  const at::Tensor keys = kv == h ? k : k.repeat_interleave(h / kv, 1);
  const at::Tensor values = kv == h ? v : v.repeat_interleave(h / kv, 1);
  const auto out = std::get<0>(at::_efficient_attention_forward(
      q.unsqueeze(0), keys.unsqueeze(0), values.unsqueeze(0), /*bias=*/std::nullopt, cu_seqlens, cu_seqlens, longest,
      longest, /*dropout_p=*/0.0, /*custom_mask_type=*/pattern.causal ? 1 : 0, /*compute_log_sumexp=*/false, scale));
  return out.reshape({1, N, h * d});  // [1, N, h, d]
}

std::optional<std::string> varlen_attention_refusal(const at::Device& device, at::ScalarType dtype, int64_t heads,
                                                    int64_t kv_heads, int64_t head_dim, bool causal) {
  if (!varlen_attention_applies(device, dtype, head_dim, {})) return std::nullopt;
  const int64_t tokens = 8;  // two sequences of 4
  const auto options = at::TensorOptions().dtype(dtype).device(device);
  try {
    const at::Tensor q = at::zeros({tokens, heads, head_dim}, options), kv = at::zeros({tokens, kv_heads, head_dim}, options);
    varlen_attention(q, kv, kv, at::tensor({0, 4, 8}, at::TensorOptions().dtype(at::kInt).device(device)), 4, 1.0,
                     {causal, std::nullopt});
    return std::nullopt;
  } catch (const c10::OutOfMemoryError&) {
    throw;
  } catch (const c10::AcceleratorError&) {
    throw;  // a sticky CUDA error: the platform stops the run on it
  } catch (const c10::Error& e) {
    const std::string why = e.what_without_backtrace();
    return std::string("packed attention: LibTorch's ") + kernel_name(dtype) + " refused its first call (" +
           why.substr(0, why.find('\n')) + "); each sequence's attention runs on its own";
  }
}

std::string varlen_attention_note(const at::Device& device, at::ScalarType dtype, int64_t head_dim, AttentionImpl impl,
                                  bool windows) {
  if (impl != AttentionImpl::sdpa || !varlen_attention_applies(device, dtype, head_dim, {})) return "";
  if (half_precision(dtype))
    return "; packed batches (--batching unpadded): one variable-length flash call a layer "
           "(at::_flash_attention_forward)";
  return std::string("; packed batches (--batching unpadded): one variable-length memory-efficient call a layer "
                     "(at::_efficient_attention_forward)") +
         (windows ? ", sliding-window layers a call per sequence" : "");
}

}  // namespace fmwork::hf
