// The FLOPs of a native encoder's forward pass (see include/fmwork/hf/forward_flops.hpp).
#include "fmwork/hf/forward_flops.hpp"

namespace fmwork::hf {

ForwardFlops forward_flops(const EncoderConfig& c, int64_t batch, int64_t input, bool pooler) {
  // In double: the counts of a large sweep (batch 1024 x input 32768 on a 4096-wide model) pass 2^63.
  const double B = static_cast<double>(batch), T = static_cast<double>(input), N = B * T;
  const double H = static_cast<double>(c.hidden_size), I = static_cast<double>(c.intermediate_size);
  const double heads = static_cast<double>(c.num_attention_heads), d = static_cast<double>(c.head_dim());
  const double kv = static_cast<double>(c.kv_heads()), L = static_cast<double>(c.num_hidden_layers);
  const bool gated = family_row(c.family).gated;
  ForwardFlops f;
  f.projections = L * (2 * N * H * (heads * d + 2 * kv * d) + 2 * N * (heads * d) * H);
  f.attention = L * 4 * B * heads * T * T * d;
  f.feed_forward = L * (gated ? 6 : 4) * N * H * I;
  f.pooler = pooler ? 2 * B * H * H : 0;
  return f;
}

}  // namespace fmwork::hf
