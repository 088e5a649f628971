// Rotary position embeddings as transformers computes them for ModernBERT and Qwen3 ("default" rope_type):
// inverse frequencies theta^(-2i/d) in float32, angles position x frequency, and each head's two halves
// turned by them (rotate_half). Shared by the rotary families.
#pragma once

#include <cstdint>

#include <ATen/ATen.h>

namespace fmwork::hf {

// cos and sin of the angles of positions 0..T-1, [T, head_dim / 2], computed in float32 as transformers
// does, then cast to `dtype` (as transformers casts its tables to the activations' dtype), times `scale`.
struct RotaryTables {
  at::Tensor cos, sin;
};
RotaryTables rotary_tables(int64_t positions, int64_t head_dim, double theta, at::ScalarType dtype,
                           const at::Device& device, double scale = 1.0);

// The tables of queries and keys: with eager attention the queries' carry 1 / sqrt(d), so that no pass over
// the scores scales them; otherwise both are the same tensors.
struct QkRotary {
  RotaryTables q, k;
};
QkRotary qk_rotary(int64_t positions, int64_t head_dim, double theta, at::ScalarType dtype, const at::Device& device,
                   double q_scale);

// The tables at each of `positions` ([N] int64, on the tables' device): row i is the row rotary_tables would
// give position positions[i] (the same float32 products), for packed tokens whose positions restart in each
// sequence. No scale: the variable-length kernel that reads them scales its scores itself.
RotaryTables rotary_tables_at(const at::Tensor& positions, int64_t head_dim, double theta, at::ScalarType dtype);

// x [B, T, heads, head_dim] (any strides) rotated: [B, heads, T, head_dim], contiguous, each position t turned
// by the tables' row t: (x1 cos - x2 sin, x2 cos + x1 sin) for the halves x1, x2 of each head. The tables
// must have at least T rows.
at::Tensor apply_rotary(const at::Tensor& x, const RotaryTables& tables);

// x [N, heads, head_dim] (any strides) rotated row by row: [N, heads, head_dim], contiguous, row i turned by the
// tables' row i (rotary_tables_at's, one per packed token).
at::Tensor apply_rotary_rows(const at::Tensor& x, const RotaryTables& tables);

}  // namespace fmwork::hf
