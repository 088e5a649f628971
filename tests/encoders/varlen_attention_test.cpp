// Which packed batches take a variable-length kernel (encoders/varlen_attention): only on CUDA, each dtype's
// kernel within its head sizes and patterns; anywhere else the caller gets nothing and runs each sequence on
// its own. The kernels themselves are held to SDPA on each sequence alone on the GPU
// (tests/platform/cuda_device_test.cpp), and every family's packed outputs to transformers by the GPU check.
#include "fmwork/encoders/varlen_attention.hpp"

#include <gtest/gtest.h>

namespace {

using fmwork::hf::AttentionImpl;
using fmwork::hf::AttentionPattern;
using fmwork::hf::varlen_attention_applies;

const at::Device kCuda(at::kCUDA, 0);

TEST(VarlenAttention, HalfPrecisionTakesEveryPatternWithinTheFlashKernelsHeadSizes) {
  for (const AttentionPattern pattern : {AttentionPattern{false, std::nullopt}, AttentionPattern{false, 64},
                                         AttentionPattern{false, 0}, AttentionPattern{true, std::nullopt},
                                         AttentionPattern{true, 5}}) {
    EXPECT_TRUE(varlen_attention_applies(kCuda, at::kBFloat16, 64, pattern));
    EXPECT_TRUE(varlen_attention_applies(kCuda, at::kHalf, 256, pattern));
  }
  EXPECT_FALSE(varlen_attention_applies(kCuda, at::kBFloat16, 12, {}));   // not a multiple of 8
  EXPECT_FALSE(varlen_attention_applies(kCuda, at::kBFloat16, 512, {}));  // past the kernel's 256
}

TEST(VarlenAttention, Float32TakesThePatternsWithoutAWindow) {
  EXPECT_TRUE(varlen_attention_applies(kCuda, at::kFloat, 64, {false, std::nullopt}));
  EXPECT_TRUE(varlen_attention_applies(kCuda, at::kFloat, 12, {true, std::nullopt}));  // a multiple of 4 is enough
  EXPECT_FALSE(varlen_attention_applies(kCuda, at::kFloat, 64, {false, 64}));
  EXPECT_FALSE(varlen_attention_applies(kCuda, at::kFloat, 64, {false, 0})) << "a window of 0 is a window";
  EXPECT_FALSE(varlen_attention_applies(kCuda, at::kFloat, 64, {true, 5}));
  EXPECT_FALSE(varlen_attention_applies(kCuda, at::kFloat, 6, {}));
  EXPECT_FALSE(varlen_attention_applies(kCuda, at::kDouble, 64, {}));
}

TEST(VarlenAttention, NothingOffCuda) {
  for (const at::ScalarType dtype : {at::kFloat, at::kBFloat16, at::kHalf}) {
    EXPECT_FALSE(varlen_attention_applies(at::kCPU, dtype, 64, {}));
    const auto q = at::randn({5, 2, 8}).to(dtype);
    EXPECT_FALSE(fmwork::hf::varlen_attention(q, q, q, at::tensor({0, 5}, at::kInt), 5, 0.35).defined());
    // No trial call where no kernel applies: nothing refused, nothing for MODEL to say.
    EXPECT_FALSE(fmwork::hf::varlen_attention_refusal(at::kCPU, dtype, 4, 2, 64, true));
  }
}

// MODEL's attention line names the kernel, and says which layers it leaves out.
TEST(VarlenAttention, TheNoteNamesTheKernel) {
  using fmwork::hf::varlen_attention_note;
  EXPECT_NE(varlen_attention_note(kCuda, at::kBFloat16, 64, AttentionImpl::sdpa).find("at::_flash_attention_forward"),
            std::string::npos);
  const std::string f32 = varlen_attention_note(kCuda, at::kFloat, 64, AttentionImpl::sdpa, /*windows=*/true);
  EXPECT_NE(f32.find("at::_efficient_attention_forward"), std::string::npos) << f32;
  EXPECT_NE(f32.find("sliding-window layers a call per sequence"), std::string::npos) << f32;
  EXPECT_EQ(varlen_attention_note(kCuda, at::kFloat, 64, AttentionImpl::eager), "");
  EXPECT_EQ(varlen_attention_note(at::kCPU, at::kBFloat16, 64, AttentionImpl::sdpa), "");
}

}  // namespace
