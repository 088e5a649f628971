// The floating-point operations of one forward pass of a native encoder, from its config alone: what STAT's
// gflops= and of_peak= divide (achieved FLOP/s against the machine's GEMM rate). No LibTorch here.
#pragma once

#include <cstdint>

#include "fmwork/hf/config.hpp"

namespace fmwork::hf {

// Counted as the native encoders compute them, per layer over N = batch x input tokens (H hidden, I
// intermediate, h heads, k kv heads, d head size, T input):
//   projections  2 N H (h d + 2 k d)   query, key and value
//                2 N (h d) H           attention output
//   attention    4 batch h T T d       scores and the weighted sum, dense: padding, causal and sliding-window
//                                      masks are applied to full T x T scores, so they cost what full ones do
//   feed-forward 4 N H I               BERT's up and down projections; 6 N H I for the gated MLPs of
//                                      ModernBERT and Qwen3 (gate and up, then down)
// plus the pooler's 2 batch H H when `pooler`. A multiply-add counts as 2, as the profiler's FLOP counter
// counts them. Elementwise work (norms, activations, softmax, rotary embeddings, residual adds) and the
// embedding lookups are left out: O(N H) against the GEMMs' O(N H H), under 1% at the sizes benchmarked.
struct ForwardFlops {
  double projections = 0, attention = 0, feed_forward = 0, pooler = 0;
  double total() const { return projections + attention + feed_forward + pooler; }
};
ForwardFlops forward_flops(const EncoderConfig& config, int64_t batch, int64_t input, bool pooler);

}  // namespace fmwork::hf
