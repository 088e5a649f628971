// Packed sequences' attention (--batching unpadded) in one kernel call a layer on CUDA, instead of one call
// per sequence (attention.hpp's per_sequence): LibTorch's variable-length kernels over the sequences' running
// sums (PackedTokens::cu_seqlens). float16 and bfloat16 go to the flash kernel (at::_flash_attention_forward:
// causal, windows and grouped heads its own); float32 to the memory-efficient one
// (at::_efficient_attention_forward: causal its own, grouped heads repeated first, no window). Where neither
// applies the callers run per_sequence, as on the CPU. Nothing here keeps state: whether this GPU runs the
// kernel is asked once by the encoder that uses it (varlen_attention_refusal) and kept there.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <ATen/ATen.h>

#include "fmwork/encoders/attention.hpp"

namespace fmwork::hf {

// Whether a kernel takes a layer of `pattern` on `device` in `dtype` with heads of `head_dim`: CUDA;
// float16 / bfloat16 with head_dim a multiple of 8 up to 256, any pattern; float32 with head_dim a multiple
// of 4 up to 256 and no window. (Whether this GPU runs it: varlen_attention_refusal.) Callers ask before they
// prepare its inputs (per-token rotary tables), so that a kernel that does not apply costs nothing.
bool varlen_attention_applies(const at::Device& device, at::ScalarType dtype, int64_t head_dim,
                              const AttentionPattern& pattern);

// The context of every packed sequence: q [N, h, d], k and v [N, kv, d] (the last dimension contiguous, the
// other strides and the offsets multiples of 8 elements in half precision, of 4 in float32: what a head size
// varlen_attention_applies takes gives, h a multiple of kv), `cu_seqlens` int32 [batch + 1] on q's device
// (0 and then the lengths' running sums), `longest` the longest length; scores scaled by `scale`; each
// sequence's queries see its own keys as `pattern` says (the kernel's causal flag and window sizes: no mask).
// Returns [1, N, h d], or an undefined tensor where varlen_attention_applies says no or cu_seqlens is
// undefined; the caller then runs per_sequence. The kernel's errors are thrown.
at::Tensor varlen_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const at::Tensor& cu_seqlens,
                            int64_t longest, double scale, const AttentionPattern& pattern = {});

// Whether this process's GPU runs the kernel of `dtype` (older GPUs: its own checks refuse a GPU it was not
// built for): one call on a few tokens of `heads` query and `kv_heads` key/value heads of `head_dim` on
// `device`, outside every measurement. nullopt where it runs, or where varlen_attention_applies says no (no
// call then); else what to tell the user, "packed attention: LibTorch's variable-length flash kernel refused
// its first call (why); each sequence's attention runs on its own" (a MODEL line). Running out of memory
// and sticky CUDA errors are thrown.
std::optional<std::string> varlen_attention_refusal(const at::Device& device, at::ScalarType dtype, int64_t heads,
                                                    int64_t kv_heads, int64_t head_dim, bool causal);

// The end of MODEL's attention line under sdpa where packed batches take one of these kernels (for the
// family's plain layers; `windows`: it also has sliding-window layers), e.g. "; packed batches (--batching
// unpadded): one variable-length flash call a layer (at::_flash_attention_forward)"; "" where none applies.
std::string varlen_attention_note(const at::Device& device, at::ScalarType dtype, int64_t head_dim, AttentionImpl impl,
                                  bool windows = false);

}  // namespace fmwork::hf
