// Rotary position embeddings. See include/fmwork/encoders/rotary.hpp.
#include "fmwork/encoders/rotary.hpp"

namespace fmwork::hf {

namespace {

// The cos and sin tables of float32 `positions` [T]: [T, d / 2], times `scale`, in `dtype`.
RotaryTables tables_of(const at::Tensor& positions, int64_t head_dim, double theta, at::ScalarType dtype, double scale) {
  // transformers: inv_freq = 1 / (theta ** (arange(0, d, 2, float) / d)); freqs = position.float() * inv_freq.
  auto exponent = at::arange(0, head_dim, 2, positions.options()).div_(static_cast<double>(head_dim));
  auto inv_freq = at::pow(theta, exponent).reciprocal_();
  auto angles = positions.unsqueeze(1) * inv_freq.unsqueeze(0);  // [T, d / 2]
  RotaryTables t{angles.cos(), angles.sin()};
  if (scale != 1.0) {
    t.cos.mul_(scale);
    t.sin.mul_(scale);
  }
  t.cos = t.cos.to(dtype);
  t.sin = t.sin.to(dtype);
  return t;
}

}  // namespace

RotaryTables rotary_tables(int64_t positions, int64_t head_dim, double theta, at::ScalarType dtype,
                           const at::Device& device, double scale) {
  return tables_of(at::arange(positions, at::TensorOptions().dtype(at::kFloat).device(device)), head_dim, theta, dtype,
                   scale);
}

RotaryTables rotary_tables_at(const at::Tensor& positions, int64_t head_dim, double theta, at::ScalarType dtype) {
  return tables_of(positions.to(at::kFloat), head_dim, theta, dtype, 1.0);
}

QkRotary qk_rotary(int64_t positions, int64_t head_dim, double theta, at::ScalarType dtype, const at::Device& device,
                   double q_scale) {
  QkRotary r;
  r.k = rotary_tables(positions, head_dim, theta, dtype, device);
  r.q = q_scale == 1.0 ? r.k : rotary_tables(positions, head_dim, theta, dtype, device, q_scale);
  return r;
}

at::Tensor apply_rotary(const at::Tensor& x, const RotaryTables& tables) {
  const int64_t B = x.size(0), T = x.size(1), heads = x.size(2), d = x.size(3), half = d / 2;
  auto out = at::empty({B, heads, T, d}, x.options());
  auto out_view = out.transpose(1, 2);  // [B, T, heads, d] over out's memory
  auto cos = tables.cos.narrow(0, 0, T).view({1, T, 1, half});
  auto sin = tables.sin.narrow(0, 0, T).view({1, T, 1, half});
  auto x1 = x.narrow(-1, 0, half), x2 = x.narrow(-1, half, half);
  auto o1 = out_view.narrow(-1, 0, half), o2 = out_view.narrow(-1, half, half);
  at::mul_out(o1, x1, cos).addcmul_(x2, sin, -1);
  at::mul_out(o2, x2, cos).addcmul_(x1, sin);
  return out;
}

at::Tensor apply_rotary_rows(const at::Tensor& x, const RotaryTables& tables) {
  const int64_t N = x.size(0), d = x.size(2), half = d / 2;
  auto out = at::empty(x.sizes(), x.options());
  auto cos = tables.cos.view({N, 1, half}), sin = tables.sin.view({N, 1, half});
  auto x1 = x.narrow(-1, 0, half), x2 = x.narrow(-1, half, half);
  auto o1 = out.narrow(-1, 0, half), o2 = out.narrow(-1, half, half);
  at::mul_out(o1, x1, cos).addcmul_(x2, sin, -1);
  at::mul_out(o2, x2, cos).addcmul_(x1, sin);
  return out;
}

}  // namespace fmwork::hf
