// Masks and attention for the rotary families (ModernBERT, Qwen3): bidirectional or causal attention, a
// sliding window, padding, grouped-query heads, eager or sdpa, as transformers' eager and sdpa paths compute
// them. The BERT family keeps its own masks (bert.cpp): it has none of these. per_sequence and
// varying_shape_sdpa serve every family.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <vector>

#include <ATen/ATen.h>

#include "fmwork/encoders/rotary.hpp"
#include "fmwork/model/packed_tokens.hpp"

namespace fmwork::hf {

enum class AttentionImpl { eager, sdpa };

// Which keys a query may see, padding aside.
struct AttentionPattern {
  bool causal = false;
  // None: no window. Bidirectional: keys at distance <= *window, 0 a window too (ModernBERT's local_attention
  // / 2: local_attention 0 or 1 leaves each token only itself, as transformers does). Causal: the *window
  // latest keys, the query's own included (q - k < window, Qwen3's sliding_window, at least 1).
  std::optional<int64_t> window;
};

// One pattern's mask for one batch: made once per forward, shared by the layers of that pattern.
struct AttentionMask {
  at::Tensor allowed;        // bool, broadcastable to [B, 1, T, T]: true where a query may see a key; undefined: all
  at::Tensor additive;       // eager only: 0 where allowed, the dtype's lowest value elsewhere; undefined: none
  bool causal_only = false;  // plain causal, nothing padded: sdpa runs with is_causal and no mask
  // The call's shape follows the requests' lengths: a padding mask is applied (off the CPU any mask given,
  // all ones too; on the CPU one with a 0), or one sequence of a packed batch runs alone (MasksByLength).
  // varying_shape_sdpa's cue.
  bool shape_varies = false;
};

// The mask of `pattern` over `attention_mask` ([B, T], 0 for padding; undefined: none), for T tokens and
// activations of `options`. An all-ones mask on the CPU counts as none (checked for free there; elsewhere the
// check would synchronise the device, so a given mask is always applied). A window that covers every key
// masks nothing.
AttentionMask make_attention_mask(const at::Tensor& attention_mask, int64_t T, const AttentionPattern& pattern,
                                  const at::TensorOptions& options, AttentionImpl impl);

// Whether attend() gives sdpa the key/value heads repeated to h (as transformers' repeat_kv) instead of
// enable_gqa, for `masked` calls of `dtype` on `device` with h query and kv key/value heads. Only on CUDA,
// where in LibTorch 2.11 only flash and cuDNN attention take grouped heads, neither in float32 and flash with
// no mask: grouped heads there with a mask or in float32 would leave only the math kernel and its [B, h, T, T]
// scores, while repeated heads let the memory-efficient kernel take the call. Elsewhere (the CPU's flash
// kernel takes masks and groups) and with h == kv: false.
bool sdpa_repeats_kv(at::DeviceType device, at::ScalarType dtype, bool masked, int64_t h, int64_t kv);

// The bytes sdpa takes beyond q, k, v and its output for B x T tokens, h query and kv key/value heads of
// size d, for the memory admission: the repeated keys and values (sdpa_repeats_kv, counted as if masked), and
// on CUDA the math kernel's scores and probabilities ([B, h, T, T] each, at least float32 wide) when no fused
// kernel takes `dtype` and d (float32 needs d a multiple of 4, float16 / bfloat16 of 8; any other dtype).
long double sdpa_workspace_bytes(at::DeviceType device, at::ScalarType dtype, int64_t B, int64_t T, int64_t h,
                                 int64_t kv, int64_t d);

// at::scaled_dot_product_attention, the one call of it in every encoder; where `shape_varies` on CUDA, without
// cuDNN's attention. cuDNN (LibTorch 2.11 tries it first on Hopper) builds an execution graph for each new
// shape, tens to hundreds of milliseconds, and padded batches of mixed lengths (--batching padded or sorted,
// serve's padded batches) take a new shape almost every call, as do the sequences of a packed batch run one by
// one: on an H200, MiniLM's bfloat16 batches of 64 padded took 63-797 ms, against 20 ms in float32, which
// cuDNN does not take. The memory-efficient kernel takes masks with no build per shape. cuDNN is switched off
// for this call only (LibTorch's switch is process-wide; attention runs on one thread off the CPU) and back as
// it was after, even on a throw. Anything else is at::scaled_dot_product_attention as it is.
at::Tensor varying_shape_sdpa(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                              const std::optional<at::Tensor>& mask, bool shape_varies, double dropout, bool causal,
                              std::optional<double> scale, bool enable_gqa);

// Attention of q [B, h, T, d] over k and v [B, kv, T, d], contiguous, h a multiple of kv (query head i reads
// key/value head i / (h / kv), as transformers' repeat_kv), as [B, T, h d]. Eager: softmax(q k^T + mask) v,
// the softmax in float32 as transformers' eager path, q already scaled by the caller. sdpa:
// at::scaled_dot_product_attention with `sdpa_scale`.
at::Tensor attend(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const AttentionMask& mask,
                  AttentionImpl impl, double sdpa_scale);

// Packed sequences (--batching unpadded, PackedTokens): `one(offset, length)` is called
// once for each sequence, with its first row in the packed tokens and its length, and returns that sequence's
// [1, length, features] result (its attention context); they are written one after another into the returned
// [1, N, features] tensor of `options`. On the CPU the calls run on LibTorch's intra-op threads at once, each
// call's kernels on one thread: `one` must be safe to call from several threads (read shared state only, or
// lock it); elsewhere in order on the calling thread.
at::Tensor per_sequence(const std::vector<int64_t>& lengths, int64_t features, const at::TensorOptions& options,
                        const std::function<at::Tensor(int64_t offset, int64_t length)>& one);

// The masks of `pattern` for sequences without padding, one per length, made on first use within one forward
// pass (a batch holds many sequences of few distinct lengths). of() may be called from per_sequence's threads.
class MasksByLength {
 public:
  MasksByLength(const AttentionPattern& pattern, const at::TensorOptions& options, AttentionImpl impl)
      : pattern_(pattern), options_(options), impl_(impl) {}
  const AttentionMask& of(int64_t length);
  const AttentionPattern& pattern() const { return pattern_; }

 private:
  AttentionPattern pattern_;
  at::TensorOptions options_;
  AttentionImpl impl_;
  std::map<int64_t, AttentionMask> made_;  // std::map: a reference stays valid while others are added
  std::mutex mutex_;
};

// Where the layers of one kind (one attention pattern) of a rotary family get their masks: the padded batch's
// one, or (packed) one per sequence length; packed through one variable-length call where `tokens` (each
// packed token's rotary tables) are defined, else per sequence.
struct LayerMasks {
  const AttentionMask* padded = nullptr;
  MasksByLength* by_length = nullptr;
  const PackedTokens* packed = nullptr;  // packed: the sequences; nullptr: padded
  RotaryTables tokens;                   // defined: attention through varlen_attention (else per sequence)
  int64_t longest = 0;                   // packed: the longest sequence
};

// The longest of `lengths` (at least 1 element; a usage Error for an empty batch).
int64_t longest(const std::vector<int64_t>& lengths);

}  // namespace fmwork::hf
