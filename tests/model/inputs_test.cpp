#include "fmwork/model/inputs.hpp"

#include <gtest/gtest.h>

#include "fmwork/base/error.hpp"

namespace fmwork {
namespace {

TEST(Inputs, ShapesDtypesAndFixedMasks) {
  InputGenerator gen(TokenFacts{100, {0, 1, 2}}, 0);
  Batch b = gen.make(3, 7, torch::kCPU);
  for (const auto& t : {b.input_ids, b.attention_mask, b.token_type_ids}) {
    EXPECT_EQ(t.sizes(), (std::vector<int64_t>{3, 7}));
    EXPECT_EQ(t.scalar_type(), torch::kLong);
  }
  EXPECT_TRUE(torch::all(b.attention_mask == 1).item<bool>());
  EXPECT_TRUE(torch::all(b.token_type_ids == 0).item<bool>());
}

TEST(Inputs, NeverDrawsSpecialIdsAndStaysInVocabulary) {
  InputGenerator gen(TokenFacts{10, {0, 5, 9}}, 3);
  EXPECT_EQ(gen.allowed_ids(), 7);
  auto ids = gen.make(64, 64, torch::kCPU).input_ids;
  EXPECT_GE(ids.min().item<int64_t>(), 1);
  EXPECT_LE(ids.max().item<int64_t>(), 8);
  EXPECT_FALSE(torch::any(ids == 5).item<bool>());
  // Uniform over the 7 allowed ids: each appears (4096 draws make a miss vanishingly unlikely).
  EXPECT_EQ(std::get<0>(at::_unique(ids)).numel(), 7);
}

TEST(Inputs, SameSeedSameSequenceOtherSeedOtherSequence) {
  InputGenerator a(TokenFacts{1000, {}}, 11), b(TokenFacts{1000, {}}, 11), c(TokenFacts{1000, {}}, 12);
  auto a1 = a.make(2, 16, torch::kCPU).input_ids, a2 = a.make(2, 16, torch::kCPU).input_ids;
  EXPECT_TRUE(torch::equal(a1, b.make(2, 16, torch::kCPU).input_ids));
  EXPECT_TRUE(torch::equal(a2, b.make(2, 16, torch::kCPU).input_ids));
  EXPECT_FALSE(torch::equal(a1, a2));
  EXPECT_FALSE(torch::equal(a1, c.make(2, 16, torch::kCPU).input_ids));
}

TEST(Inputs, RefusesAVocabularyWithNothingLeft) {
  try {
    InputGenerator gen(TokenFacts{2, {0, 1}}, 0);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    EXPECT_NE(std::string(e.what()).find("no ids left"), std::string::npos) << e.what();
  }
}

}  // namespace
// A batch of mixed lengths: each row's mask is ones on its length and zeros after, padded said where a row is
// short, the lengths kept for the unpadded path.
TEST(Inputs, MixedLengthsMaskEachRowsPadding) {
  fmwork::InputGenerator gen({100, {0}, 2}, 3);
  const fmwork::Batch b = gen.make(std::vector<int64_t>{5, 1, 3}, 6, torch::kCPU);
  EXPECT_EQ(b.input_ids.sizes(), (torch::IntArrayRef{3, 6}));
  EXPECT_TRUE(b.attention_mask.sum(1).equal(torch::tensor({5, 1, 3}, torch::kLong)));
  EXPECT_EQ(b.attention_mask[0][4].item<int64_t>(), 1);
  EXPECT_EQ(b.attention_mask[0][5].item<int64_t>(), 0);
  EXPECT_TRUE(b.padded);
  EXPECT_EQ(b.lengths, (std::vector<int64_t>{5, 1, 3}));
  EXPECT_FALSE(gen.make(std::vector<int64_t>{4, 4}, 4, torch::kCPU).padded) << "every row full: no mask needed";
}

}  // namespace fmwork
