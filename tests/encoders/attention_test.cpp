// Masks and attention of the rotary families (encoders/attention): the window and causal patterns key by
// key, padding, the grouped-query head mapping against a head-by-head computation, eager against sdpa.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

#include <ATen/ATen.h>

#include "fmwork/encoders/attention.hpp"

namespace {

using fmwork::hf::AttentionImpl;
using fmwork::hf::AttentionMask;
using fmwork::hf::AttentionPattern;
using fmwork::hf::attend;
using fmwork::hf::make_attention_mask;

const auto kFloat = at::TensorOptions().dtype(at::kFloat);

TEST(AttentionMask, BidirectionalWindowSeesDistanceUpToTheWindow) {
  const AttentionMask m = make_attention_mask(at::Tensor(), 9, {false, 2}, kFloat, AttentionImpl::eager);
  ASSERT_TRUE(m.allowed.defined());
  for (int64_t q = 0; q < 9; ++q)
    for (int64_t k = 0; k < 9; ++k) EXPECT_EQ(m.allowed[0][0][q][k].item<bool>(), std::abs(q - k) <= 2) << q << "," << k;
  EXPECT_EQ(m.additive[0][0][0][5].item<float>(), std::numeric_limits<float>::lowest());
  EXPECT_EQ(m.additive[0][0][4][5].item<float>(), 0.0f);
}

TEST(AttentionMask, CausalWindowSeesTheLatestKeys) {
  const AttentionMask m = make_attention_mask(at::Tensor(), 9, {true, 3}, kFloat, AttentionImpl::sdpa);
  ASSERT_TRUE(m.allowed.defined());
  EXPECT_FALSE(m.causal_only);
  EXPECT_FALSE(m.additive.defined()) << "sdpa needs no additive mask";
  for (int64_t q = 0; q < 9; ++q)
    for (int64_t k = 0; k < 9; ++k) EXPECT_EQ(m.allowed[0][0][q][k].item<bool>(), k <= q && q - k < 3) << q << "," << k;
}

// A bidirectional window of 0 (ModernBERT's local_attention 0 or 1) was taken for no window: nothing was
// masked, where transformers lets each token see only itself. A causal window of 1 is the same pattern.
TEST(AttentionMask, AWindowOfZeroLeavesEachTokenItselfAlone) {
  for (const AttentionPattern pattern : {AttentionPattern{false, 0}, AttentionPattern{true, 1}}) {
    const AttentionMask m = make_attention_mask(at::Tensor(), 4, pattern, kFloat, AttentionImpl::sdpa);
    ASSERT_TRUE(m.allowed.defined()) << pattern.causal;
    EXPECT_FALSE(m.causal_only);
    EXPECT_TRUE(m.allowed.view({4, 4}).equal(at::eye(4, at::kBool))) << pattern.causal;
  }
  EXPECT_FALSE(make_attention_mask(at::Tensor(), 1, {false, 0}, kFloat, AttentionImpl::sdpa).allowed.defined())
      << "one token: the window covers it";
}

TEST(AttentionMask, NothingMaskedNothingMade) {
  // A window covering every key, no padding: no mask at all (bidirectional), plain is_causal (causal).
  EXPECT_FALSE(make_attention_mask(at::Tensor(), 5, {false, 4}, kFloat, AttentionImpl::eager).allowed.defined());
  EXPECT_FALSE(make_attention_mask(at::ones({2, 5}, at::kLong), 5, {false, std::nullopt}, kFloat, AttentionImpl::eager)
                   .allowed.defined())
      << "an all-ones mask on the CPU is no padding";
  const AttentionMask causal = make_attention_mask(at::Tensor(), 5, {true, 5}, kFloat, AttentionImpl::sdpa);
  EXPECT_TRUE(causal.causal_only);
}

TEST(AttentionMask, PaddingHidesKeysOfItsRowOnly) {
  auto pad = at::ones({2, 6}, at::kLong);
  pad[1].narrow(0, 4, 2).zero_();
  const AttentionMask m = make_attention_mask(pad, 6, {true, std::nullopt}, kFloat, AttentionImpl::eager);
  ASSERT_EQ(m.allowed.sizes(), (at::IntArrayRef{2, 1, 6, 6}));
  EXPECT_TRUE(m.allowed[0][0][5][5].item<bool>());
  EXPECT_FALSE(m.allowed[1][0][5][5].item<bool>()) << "row 1's key 5 is padding";
  EXPECT_TRUE(m.allowed[1][0][5][3].item<bool>());
  EXPECT_FALSE(m.allowed[1][0][2][3].item<bool>()) << "causal: no later key";
}

// Defect (H200, 2026-11-30): padded batches on CUDA paid cuDNN's graph build per shape. The mask says when the
// call's shape follows the requests (varying_shape_sdpa's cue): a padded batch, one sequence of a packed batch
// alone; not a window over a full batch. Off CUDA varying_shape_sdpa is sdpa's own call and leaves LibTorch's
// switch alone (a change that touched the CPU's attention would fail here).
TEST(Attention, MasksSayWhenTheShapeFollowsTheRequests) {
  auto pad = at::ones({2, 6}, at::kLong);
  EXPECT_FALSE(make_attention_mask(pad, 6, {true, 2}, kFloat, AttentionImpl::sdpa).shape_varies) << "a window only";
  pad[1].narrow(0, 4, 2).zero_();
  const AttentionMask m = make_attention_mask(pad, 6, {false, std::nullopt}, kFloat, AttentionImpl::sdpa);
  EXPECT_TRUE(m.shape_varies) << "padding";
  fmwork::hf::MasksByLength alone({false, std::nullopt}, kFloat, AttentionImpl::sdpa);
  EXPECT_TRUE(alone.of(5).shape_varies) << "one sequence of a packed batch";
  at::manual_seed(3);
  auto q = at::randn({2, 2, 6, 4}), k = at::randn({2, 2, 6, 4}), v = at::randn({2, 2, 6, 4});
  const bool before = at::globalContext().userEnabledCuDNNSDP();
  const at::Tensor got = fmwork::hf::varying_shape_sdpa(q, k, v, m.allowed, true, 0.0, false, std::nullopt, false);
  EXPECT_EQ(at::globalContext().userEnabledCuDNNSDP(), before);
  EXPECT_TRUE(at::equal(got, at::scaled_dot_product_attention(q, k, v, m.allowed)));
}

// Head by head in float64: query head i reads key/value head i / (h / kv), as transformers' repeat_kv.
at::Tensor grouped_reference(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const at::Tensor& allowed) {
  const int64_t B = q.size(0), h = q.size(1), T = q.size(2), d = q.size(3), kv = k.size(1);
  auto out = at::empty({B, T, h * d}, at::TensorOptions().dtype(at::kDouble));
  for (int64_t i = 0; i < h; ++i) {
    auto qi = q.select(1, i).to(at::kDouble), ki = k.select(1, i / (h / kv)).to(at::kDouble),
         vi = v.select(1, i / (h / kv)).to(at::kDouble);
    auto scores = at::matmul(qi, ki.transpose(1, 2)) / std::sqrt(static_cast<double>(d));
    scores.masked_fill_(allowed.squeeze(1).logical_not(), -1e300);
    out.narrow(2, i * d, d).copy_(at::matmul(at::softmax(scores, -1), vi));
  }
  return out;
}

TEST(Attention, GroupedQueryHeadsReadTheirGroupsKeys) {
  at::manual_seed(6);
  const int64_t B = 2, h = 6, kv = 2, T = 7, d = 4;
  auto q = at::randn({B, h, T, d}), k = at::randn({B, kv, T, d}), v = at::randn({B, kv, T, d});
  v.select(1, 1).add_(10.0);  // the two value heads far apart: a head reading the wrong group shows at once
  auto pad = at::ones({B, T}, at::kLong);
  pad[1].narrow(0, 5, 2).zero_();
  for (AttentionImpl impl : {AttentionImpl::eager, AttentionImpl::sdpa}) {
    const AttentionMask m = make_attention_mask(pad, T, {true, 4}, kFloat, impl);
    const double scale = 1.0 / std::sqrt(static_cast<double>(d));
    auto out = attend(impl == AttentionImpl::eager ? q * scale : q, k, v, m, impl, scale);
    ASSERT_EQ(out.sizes(), (at::IntArrayRef{B, T, h * d}));
    const double diff = (out.to(at::kDouble) - grouped_reference(q, k, v, m.allowed)).abs().max().item<double>();
    EXPECT_LT(diff, 1e-5) << (impl == AttentionImpl::eager ? "eager" : "sdpa");
  }
}

// Defect 2: on CUDA grouped heads with a mask or in float32 fell to the math kernel. attend() repeats the
// heads there, and only there; the admission counts the copies, and the math kernel's scores where no fused
// kernel takes the head size.
TEST(Attention, GroupedHeadsAreRepeatedOnlyWhereNoFusedCudaKernelTakesThem) {
  using fmwork::hf::sdpa_repeats_kv;
  EXPECT_FALSE(sdpa_repeats_kv(at::kCUDA, at::kBFloat16, /*masked=*/false, 16, 8));  // flash / cuDNN: GQA
  EXPECT_TRUE(sdpa_repeats_kv(at::kCUDA, at::kBFloat16, /*masked=*/true, 16, 8));   // flash takes no mask
  EXPECT_TRUE(sdpa_repeats_kv(at::kCUDA, at::kFloat, /*masked=*/false, 16, 8));     // mem-efficient: no GQA
  EXPECT_FALSE(sdpa_repeats_kv(at::kCUDA, at::kFloat, /*masked=*/true, 8, 8));      // nothing grouped
  EXPECT_FALSE(sdpa_repeats_kv(at::kCPU, at::kFloat, /*masked=*/true, 16, 8));      // the CPU's flash: both
}

TEST(Attention, WorkspaceCountsRepeatedHeadsAndTheMathKernelsScores) {
  using fmwork::hf::sdpa_workspace_bytes;
  const int64_t B = 2, T = 64, h = 16, kv = 8;
  EXPECT_EQ(sdpa_workspace_bytes(at::kCPU, at::kFloat, B, T, h, kv, 128), 0.0L);
  EXPECT_EQ(sdpa_workspace_bytes(at::kCUDA, at::kBFloat16, B, T, h, h, 128), 0.0L);
  EXPECT_EQ(sdpa_workspace_bytes(at::kCUDA, at::kBFloat16, B, T, h, kv, 128), 2.0L * B * T * h * 128 * 2);
  // A head size no fused kernel takes: the math kernel's scores and probabilities, float32 wide at least.
  EXPECT_EQ(sdpa_workspace_bytes(at::kCUDA, at::kBFloat16, B, T, h, h, 6), 2.0L * B * h * T * T * 4);
  EXPECT_EQ(sdpa_workspace_bytes(at::kCUDA, at::kDouble, B, T, h, h, 8), 2.0L * B * h * T * T * 8);
}

}  // namespace
