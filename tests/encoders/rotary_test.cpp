// Rotary embeddings (encoders/rotary) against the formula computed here in float64, at positions far past
// any sliding window, and the property attention relies on: a query at p and a key at p' score by p - p'.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include <ATen/ATen.h>

#include "fmwork/encoders/rotary.hpp"

namespace {

using fmwork::hf::apply_rotary;
using fmwork::hf::rotary_tables;

// transformers' rotate_half form in float64: x cos(p f) + rotate_half(x) sin(p f), f_i = theta^(-2i/d), the
// frequencies repeated over the two halves.
at::Tensor rotated_reference(const at::Tensor& x, double theta) {  // x [B, T, h, d] -> [B, h, T, d]
  const int64_t T = x.size(1), d = x.size(3), half = d / 2;
  auto xd = x.to(at::kDouble);
  auto i = at::arange(half, at::TensorOptions().dtype(at::kDouble));
  auto freq = at::pow(theta, -2.0 * i / static_cast<double>(d));
  auto angle = at::arange(T, at::TensorOptions().dtype(at::kDouble)).unsqueeze(1) * freq.unsqueeze(0);
  auto cos = at::cat({angle.cos(), angle.cos()}, 1).view({1, T, 1, d});
  auto sin = at::cat({angle.sin(), angle.sin()}, 1).view({1, T, 1, d});
  auto rotated_half = at::cat({-xd.narrow(-1, half, half), xd.narrow(-1, 0, half)}, -1);
  return (xd * cos + rotated_half * sin).transpose(1, 2);
}

TEST(Rotary, MatchesTheFormulaFarPastTheWindow) {
  at::manual_seed(3);
  // 300 positions: past ModernBERT's +-64 window and Qwen3's 5-token test windows, where a wrong position
  // (a window-relative one, or one off by the padding) would show.
  auto x = at::randn({2, 300, 3, 8});
  auto out = apply_rotary(x, rotary_tables(300, 8, 10000.0, at::kFloat, at::kCPU));
  ASSERT_EQ(out.sizes(), (at::IntArrayRef{2, 3, 300, 8}));
  EXPECT_TRUE(out.is_contiguous());
  const double diff = (out.to(at::kDouble) - rotated_reference(x, 10000.0)).abs().max().item<double>();
  EXPECT_LT(diff, 1e-4) << "max abs difference from the float64 formula";
  // Position 0 is the identity; position 299 is not.
  EXPECT_TRUE(at::allclose(out.select(2, 0), x.select(1, 0)));
  EXPECT_FALSE(at::allclose(out.select(2, 299), x.select(1, 299)));
}

TEST(Rotary, StridedInputAndScaledTables) {
  at::manual_seed(4);
  auto qkv = at::randn({1, 20, 3, 2, 6});  // a fused projection's layout: q is a strided view
  auto q = qkv.select(2, 0);
  auto plain = apply_rotary(q, rotary_tables(20, 6, 500.0, at::kFloat, at::kCPU));
  auto scaled = apply_rotary(q, rotary_tables(20, 6, 500.0, at::kFloat, at::kCPU, 0.25));
  EXPECT_LT((plain.to(at::kDouble) - rotated_reference(q.contiguous(), 500.0)).abs().max().item<double>(), 1e-5);
  EXPECT_TRUE(at::allclose(scaled, plain * 0.25, 1e-6, 1e-6));
}

TEST(Rotary, ScoresDependOnTheDistanceOnly) {
  at::manual_seed(5);
  const int64_t T = 200;
  auto tables = rotary_tables(T, 16, 1000.0, at::kFloat, at::kCPU);
  // The same query and key vectors at every position: <q_p, k_p'> must equal <q_{p+s}, k_{p'+s}>.
  auto q = at::randn({1, 1, 1, 16}).expand({1, T, 1, 16});
  auto k = at::randn({1, 1, 1, 16}).expand({1, T, 1, 16});
  auto rq = apply_rotary(q, tables)[0][0], rk = apply_rotary(k, tables)[0][0];  // [T, 16]
  auto scores = at::matmul(rq, rk.t());
  for (int64_t shift : {1, 37, 150})
    EXPECT_NEAR(scores[10][3].item<double>(), scores[10 + shift][3 + shift].item<double>(), 1e-3) << shift;
  EXPECT_GT(std::abs(scores[10][3].item<double>() - scores[10][9].item<double>()), 1e-3)
      << "other distances score differently";
}

// Packed tokens (the variable-length attention path): each token turned by its own position, restarting in
// each sequence, as each sequence alone is turned by the position tables, in float32 and bfloat16.
TEST(Rotary, PackedRowsTurnByTheirOwnPositions) {
  at::manual_seed(6);
  const std::vector<int64_t> lengths = {5, 1, 9};
  std::vector<int64_t> positions;
  for (const int64_t length : lengths)
    for (int64_t t = 0; t < length; ++t) positions.push_back(t);
  const int64_t N = static_cast<int64_t>(positions.size());
  for (const at::ScalarType dtype : {at::kFloat, at::kBFloat16}) {
    // cos and sin may round a last bit differently in a vector lane and a scalar tail: near, not equal.
    const double tol = dtype == at::kFloat ? 1e-6 : 1e-2;
    const auto rows = fmwork::hf::rotary_tables_at(at::tensor(positions, at::kLong), 8, 300.0, dtype);
    const auto tables = rotary_tables(9, 8, 300.0, dtype, at::kCPU);
    ASSERT_EQ(rows.cos.sizes(), (at::IntArrayRef{N, 4}));
    EXPECT_TRUE(at::allclose(rows.cos, tables.cos.index_select(0, at::tensor(positions, at::kLong)), tol, tol));
    EXPECT_TRUE(at::allclose(rows.sin, tables.sin.index_select(0, at::tensor(positions, at::kLong)), tol, tol));
    const auto qkv = at::randn({N, 3, 2, 8}).to(dtype);  // q strided, as a fused projection leaves it
    const auto q = qkv.select(1, 0);
    const auto packed = fmwork::hf::apply_rotary_rows(q, rows);  // [N, 2, 8]
    ASSERT_TRUE(packed.is_contiguous());
    int64_t offset = 0;
    for (const int64_t length : lengths) {
      const auto alone = apply_rotary(q.narrow(0, offset, length).unsqueeze(0), tables)[0].transpose(0, 1);
      EXPECT_TRUE(at::allclose(packed.narrow(0, offset, length), alone, tol, tol))
          << "sequence at " << offset << ", " << dtype;
      offset += length;
    }
  }
}

}  // namespace
