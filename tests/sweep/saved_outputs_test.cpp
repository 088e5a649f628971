#include "fmwork/sweep/saved_outputs.hpp"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <filesystem>
#include <functional>

#include "fmwork/base/error.hpp"
#include "fmwork/model/safetensors.hpp"
#include "support/test_support.hpp"

namespace fmwork {
namespace {

using fmwork::TempDir;

std::string runtime_error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::runtime) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return "";
}

TEST(Outputs, NamesFollowTheModelThenPositionsThenDictKeys) {
  auto a = torch::ones({2}), b = torch::zeros({3});
  auto tuple = c10::ivalue::Tuple::create({a, b});
  auto named = name_outputs(tuple, {"last_hidden_state", "pooler_output"});
  ASSERT_EQ(named.size(), 2u);
  EXPECT_EQ(named[0].first, "last_hidden_state");
  EXPECT_EQ(named[1].first, "pooler_output");
  EXPECT_TRUE(named[1].second.equal(b));
  EXPECT_EQ(name_outputs(tuple, {})[1].first, "output_1");
  EXPECT_EQ(name_outputs(torch::IValue(a), {})[0].first, "output_0");
  c10::Dict<std::string, at::Tensor> dict;
  dict.insert("embeddings", a);
  EXPECT_EQ(name_outputs(torch::IValue(dict), {})[0].first, "embeddings");
  EXPECT_NE(runtime_error_of([] { name_outputs(torch::IValue(3.5), {}); }).find("hold no tensors"), std::string::npos);
}

TEST(Outputs, SavedFileReadsBackAsAReference) {
  TempDir dir;
  Batch batch{torch::arange(8, torch::kLong).view({2, 4}), torch::ones({2, 4}, torch::kLong),
              torch::zeros({2, 4}, torch::kLong)};
  NamedTensors outputs = {{"last_hidden_state", torch::randn({2, 4, 3}).to(torch::kBFloat16)}};
  save_outputs(dir.path(), 4, 2, batch, {"input_ids", "attention_mask"}, outputs);
  auto file = hf::SafetensorsFile::open(dir.file("4x2.safetensors"));
  ASSERT_EQ(file->entries().size(), 3u);  // token_type_ids was not fed, so not saved
  EXPECT_EQ(file->find("last_hidden_state")->dtype, "BF16");

  Reference ref = load_reference(dir.path(), 4, 2, 100);
  EXPECT_TRUE(ref.inputs.input_ids.equal(batch.input_ids));
  EXPECT_TRUE(ref.inputs.token_type_ids.equal(torch::zeros({2, 4}, torch::kLong)));
  ASSERT_EQ(ref.outputs.size(), 1u);
  EXPECT_TRUE(ref.outputs[0].second.equal(outputs[0].second));

  EXPECT_NE(runtime_error_of([&] { load_reference(dir.path(), 4, 3, 100); }).find("4x3.safetensors does not exist"),
            std::string::npos);
  EXPECT_NE(runtime_error_of([&] { load_reference(dir.path(), 4, 2, 7); })
                .find("input_ids hold ids 0..7, outside the model's vocabulary 0..6"),
            std::string::npos);
  // Saved for input 5 from a batch of mixed lengths padded to its longest, 4: read as it is.
  std::filesystem::copy_file(dir.file("4x2.safetensors"), dir.file("5x2.safetensors"));
  EXPECT_EQ(load_reference(dir.path(), 5, 2, 100).inputs.input_ids.sizes(), (torch::IntArrayRef{2, 4}));
  EXPECT_NE(runtime_error_of([&] {
              std::filesystem::rename(dir.file("4x2.safetensors"), dir.file("3x2.safetensors"));
              load_reference(dir.path(), 3, 2, 100);
            }).find("input_ids must be [2, 3] integers"),
            std::string::npos);
}

// Saved token_type_ids past the model's token types reached the embedding lookup, which said only
// "index out of range in self".
TEST(Outputs, TokenTypesOutsideTheModelsAreRefusedNamingTheFile) {
  TempDir dir;
  Batch batch{torch::arange(8, torch::kLong).view({2, 4}), torch::ones({2, 4}, torch::kLong),
              torch::full({2, 4}, 2, torch::kLong)};
  save_outputs(dir.path(), 4, 2, batch, {"input_ids", "attention_mask", "token_type_ids"},
               {{"last_hidden_state", torch::randn({2, 4, 3})}});
  EXPECT_EQ(runtime_error_of([&] { load_reference(dir.path(), 4, 2, 100, 2); }),
            "--check_outputs: " + dir.file("4x2.safetensors") + ": token_type_ids hold ids 2..2, outside the model's "
            "token types 0..1 (type_vocab_size): the file was made for another model");
  EXPECT_TRUE(load_reference(dir.path(), 4, 2, 100, 3).inputs.token_type_ids.equal(batch.token_type_ids));
}

TEST(Outputs, ComparePassesWithinToleranceAndFailsOutside) {
  auto want = torch::randn({2, 5, 8}, torch::kDouble);
  const Tolerance fp32 = tolerance_for("float32", {});
  NamedTensors got = {{"x", want.to(torch::kFloat)}};
  CheckResult same = compare_outputs(got, {{"x", want}}, fp32);
  EXPECT_TRUE(same.pass);
  EXPECT_LT(same.max_abs, 1e-6);
  EXPECT_NEAR(same.cosine, 1.0, 1e-9);

  auto off = want.clone();
  off[1][2][3] += 1e-3;  // one element 10x over atol + rtol * |want|
  CheckResult r = compare_outputs({{"x", off}}, {{"x", want}}, fp32);
  EXPECT_FALSE(r.pass);
  EXPECT_NEAR(r.max_abs, 1e-3, 1e-9);
  EXPECT_GT(r.cosine, 0.99999);  // fails on the element bound alone
  CheckOptions loose;
  loose.atol = 2e-3;
  EXPECT_TRUE(compare_outputs({{"x", off}}, {{"x", want}}, tolerance_for("float32", loose)).pass);

  EXPECT_FALSE(compare_outputs({{"x", -want}}, {{"x", want}}, tolerance_for("bfloat16", {})).pass);
  auto nan = want.clone();
  nan[0][0][0] = std::nan("");
  CheckResult with_nan = compare_outputs({{"x", nan}}, {{"x", want}}, fp32);
  EXPECT_FALSE(with_nan.pass);
  EXPECT_TRUE(std::isnan(with_nan.max_abs));
  EXPECT_TRUE(std::isnan(with_nan.cosine));
  EXPECT_NE(runtime_error_of([&] { compare_outputs({{"y", want}}, {{"x", want}}, fp32); })
                .find("the reference has output x, the model gives y"),
            std::string::npos);
  EXPECT_NE(runtime_error_of([&] { compare_outputs({{"x", want[0]}}, {{"x", want}}, fp32); })
                .find("output x is [5, 8], the reference's is [2, 5, 8]"),
            std::string::npos);
}

// A batch of 3 rows padded to 4 tokens, rows of 4, 1 and 2 real tokens, for a model of hidden size 4: its
// pooler_output [3, 4] has the shape a per-token output of this batch would have.
Batch mixed_batch_as_wide_as_hidden() {
  Batch fed{torch::arange(12, torch::kLong).view({3, 4}), torch::ones({3, 4}, torch::kLong),
            torch::zeros({3, 4}, torch::kLong)};
  fed.lengths = {4, 1, 2};
  for (int64_t row = 0; row < 3; ++row) fed.attention_mask[row].narrow(0, fed.lengths[row], 4 - fed.lengths[row]).zero_();
  return fed;
}

// pooler_output was zeroed past each row's length when the padded length equalled the hidden size (MiniLM at
// 384 tokens): which outputs are per token is a matter of their names.
TEST(Outputs, PerTokenOutputsAreKnownByNameNeverByShape) {
  EXPECT_EQ(output_role("last_hidden_state"), OutputRole::per_token);
  EXPECT_EQ(output_role("pooler_output"), OutputRole::per_sequence);
  EXPECT_EQ(output_role("output_0"), OutputRole::unknown);
  const Batch fed = mixed_batch_as_wide_as_hidden();
  torch::manual_seed(3);
  const NamedTensors named = {{"last_hidden_state", torch::randn({3, 4, 4}) + 5},
                              {"pooler_output", torch::randn({3, 4}) + 5},
                              {"output_0", torch::randn({3, 4}) + 5}};
  const NamedTensors kept = real_tokens_only(named, fed);
  EXPECT_TRUE(kept[1].second.equal(named[1].second)) << "a per-sequence output is kept whole";
  EXPECT_TRUE(kept[2].second.equal(named[2].second)) << "an output of no known role is kept as it is";
  EXPECT_TRUE(kept[0].second[1].narrow(0, 1, 3).eq(0).all().item<bool>()) << "row 1's padding";
  EXPECT_TRUE(kept[0].second[1][0].equal(named[0].second[1][0])) << "row 1's real token";
  EXPECT_NE(runtime_error_of([&] { real_tokens_only({{"last_hidden_state", torch::randn({4, 3})}}, fed); })
                .find("output last_hidden_state is per token by its name, but it is [4, 3], not [3, 4, ...]"),
            std::string::npos);
}

// --check_outputs masked the reference by the same shape rule as the outputs it checked, so a pooler wrong past
// a row's length passed. It now compares per-token outputs on the reference's real tokens, and the rest whole.
TEST(Outputs, CheckSelectsRealTokensByTheReferencesMaskAndComparesThePoolerWhole) {
  const Batch fed = mixed_batch_as_wide_as_hidden();
  const Tolerance fp32 = tolerance_for("float32", {});
  torch::manual_seed(4);
  const torch::Tensor hidden = torch::randn({3, 4, 4}), pooled = torch::randn({3, 4});
  const NamedTensors reference = {{"last_hidden_state", hidden}, {"pooler_output", pooled}};  // padding as computed
  auto zeroed = real_tokens_only({{"last_hidden_state", hidden.clone()}}, fed)[0].second;  // unpadded's zeros
  EXPECT_TRUE(compare_outputs({{"last_hidden_state", zeroed}, {"pooler_output", pooled.clone()}}, reference, fp32,
                              fed.attention_mask)
                  .pass)
      << "the padding's values are no part of the check";
  auto wrong = pooled.clone();
  wrong[1][3] += 1.0;  // past row 1's length (1): a per-sequence value all the same
  EXPECT_FALSE(
      compare_outputs({{"last_hidden_state", hidden}, {"pooler_output", wrong}}, reference, fp32, fed.attention_mask).pass);
  auto real_wrong = hidden.clone();
  real_wrong[2][1][0] += 1.0;  // row 2's second real token
  EXPECT_FALSE(compare_outputs({{"last_hidden_state", real_wrong}, {"pooler_output", pooled}}, reference, fp32,
                               fed.attention_mask)
                   .pass);
}

TEST(Outputs, DefaultTolerancesByDtype) {
  EXPECT_DOUBLE_EQ(tolerance_for("float32", {}).atol, 1e-4);
  EXPECT_DOUBLE_EQ(tolerance_for("bfloat16", {}).cosine, 0.999);
  EXPECT_DOUBLE_EQ(tolerance_for("float16", {}).rtol, 2e-2);
  CheckOptions o;
  o.cosine = 0.5;
  EXPECT_DOUBLE_EQ(tolerance_for("float16", o).cosine, 0.5);
  EXPECT_DOUBLE_EQ(tolerance_for("float16", o).atol, 2e-2);
}

}  // namespace
}  // namespace fmwork
