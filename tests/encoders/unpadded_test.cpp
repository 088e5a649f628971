// The unpadded path of every native family (NativeEncoder::forward_packed through HfModel, --batching
// unpadded): a batch of mixed lengths packed gives, on each sequence's real tokens, what the padded batch with
// its mask gives (pooler included), zeros at the padding, in eager and sdpa attention; windows shorter than
// some sequences (ModernBERT's local layers, Qwen3's sliding layers) included. transformers itself is the
// reference of both paths in tests/python/transformers_check.py.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fmwork/model/inputs.hpp"
#include "fmwork/model/model.hpp"
#include "support/test_support.hpp"

namespace {

using json = nlohmann::json;
using namespace fmwork::test_support::encoders;

const std::vector<int64_t> kLengths = {9, 3, 1, 7};


// A right-padded batch of kLengths: random ids, pad ids and mask 0 after each row's length, token types 1 on
// the real tokens where the family has them (so that the packed types are read, not assumed zero).
fmwork::Batch mixed_batch(int64_t pad, bool types) {
  const int64_t B = static_cast<int64_t>(kLengths.size()), T = 9;
  at::Generator gen = at::detail::createCPUGenerator(5);
  fmwork::Batch b;
  b.input_ids = at::randint(3, 99, {B, T}, gen, at::kLong);
  b.attention_mask = at::zeros({B, T}, at::kLong);
  for (int64_t i = 0; i < B; ++i) {
    b.attention_mask[i].narrow(0, 0, kLengths[static_cast<size_t>(i)]).fill_(1);
    b.input_ids[i].narrow(0, kLengths[static_cast<size_t>(i)], T - kLengths[static_cast<size_t>(i)]).fill_(pad);
  }
  b.token_type_ids = types ? b.attention_mask.clone() : at::Tensor();
  b.lengths = kLengths;
  b.padded = true;
  return b;
}

void expect_unpadded_matches_padded(const std::string& cls, const json& cfg, bool pooler, bool types,
                                    const std::string& attention, ModelOptions opt = {}) {
  TempDir dir;
  write_folder(dir.path(), cfg, tiny_weights(cfg, pooler, 11));
  opt.attn_implementation = attention;
  auto model = load(dir.path(), cls, opt);
  ASSERT_TRUE(model->facts().runs_unpadded);
  const int64_t pad = cfg.value("pad_token_id", 0);
  fmwork::Batch padded = mixed_batch(pad, types);
  fmwork::Batch unpadded = padded;
  fmwork::pack_batch(unpadded);
  ASSERT_EQ(unpadded.packed.input_ids.numel(), 20);
  const at::Tensor cu_seqlens = unpadded.packed.cu_seqlens;  // the variable-length kernels' running sums
  ASSERT_EQ(cu_seqlens.scalar_type(), at::kInt);
  EXPECT_TRUE(cu_seqlens.equal(at::tensor({0, 9, 12, 13, 20}, at::kInt))) << cu_seqlens;
  auto [hidden, pooled] = outputs(model->forward(padded));
  auto [packed_hidden, packed_pooled] = outputs(model->forward(unpadded));
  ASSERT_EQ(packed_hidden.sizes(), hidden.sizes());
  const auto real = padded.attention_mask.ne(0).unsqueeze(-1);
  const std::string what = cls + " " + attention;
  EXPECT_LE(max_diff(packed_hidden.masked_fill(real.logical_not(), 0), hidden.masked_fill(real.logical_not(), 0)), 2e-5)
      << what;
  EXPECT_EQ(packed_hidden.masked_select(real.logical_not()).abs().max().item<float>(), 0.0f) << what;
  EXPECT_GT(hidden.masked_select(real).abs().max().item<float>(), 0.0f) << what;
  EXPECT_EQ(pooled.defined(), pooler) << what;
  if (pooler) EXPECT_LE(max_diff(packed_pooled, pooled), 2e-5) << what;
}

TEST(Unpadded, BertMatchesPadded) {
  for (const char* attention : {"eager", "sdpa"})
    expect_unpadded_matches_padded("BertModel", tiny_config("bert"), true, true, attention);
}

TEST(Unpadded, BertWithTheGeluEpilogueMatchesPadded) {
  ModelOptions opt;
  opt.gelu_epilogue = true;
  for (const char* attention : {"eager", "sdpa"})
    expect_unpadded_matches_padded("BertModel", tiny_config("bert"), true, true, attention, opt);
}

TEST(Unpadded, RobertaAndXlmRobertaMatchPadded) {
  for (const char* attention : {"eager", "sdpa"}) {
    expect_unpadded_matches_padded("RobertaModel", tiny_config("roberta"), true, false, attention);
    expect_unpadded_matches_padded("XLMRobertaModel", tiny_config("xlm-roberta"), false, false, attention);
  }
}

TEST(Unpadded, DistilBertMatchesPadded) {
  for (const char* attention : {"eager", "sdpa"})
    expect_unpadded_matches_padded("DistilBertModel", tiny_config("distilbert"), false, false, attention);
}

TEST(Unpadded, ModernBertLocalAndGlobalLayersMatchPadded) {
  for (const char* attention : {"eager", "sdpa"})
    expect_unpadded_matches_padded("ModernBertModel", tiny_modernbert_config(), false, false, attention);
}

TEST(Unpadded, Qwen3GroupedCausalSlidingMatchesPadded) {
  for (const char* attention : {"eager", "sdpa"})
    expect_unpadded_matches_padded("Qwen3Model", tiny_qwen3_config(), false, false, attention);
}

TEST(Unpadded, PackedBatchHoldsTheRealTokensInOrder) {
  fmwork::Batch b = mixed_batch(0, true);
  fmwork::pack_batch(b);
  std::vector<int64_t> positions, index, sequences;
  for (size_t row = 0; row < kLengths.size(); ++row)
    for (int64_t t = 0; t < kLengths[row]; ++t) {
      const auto r = static_cast<int64_t>(row);
      positions.push_back(t), index.push_back(r * 9 + t), sequences.push_back(r);
    }
  EXPECT_TRUE(at::equal(b.packed.positions, at::tensor(positions, at::kLong)));
  EXPECT_TRUE(at::equal(b.packed.sequences, at::tensor(sequences, at::kLong)));
  EXPECT_TRUE(at::equal(b.packed.starts, at::tensor({0, 9, 12, 13}, at::kLong)));
  EXPECT_TRUE(at::equal(b.packed.index, at::tensor(index, at::kLong)));
  EXPECT_TRUE(at::equal(b.packed.input_ids, b.input_ids.masked_select(b.attention_mask.ne(0))));
  EXPECT_TRUE(at::equal(b.packed.token_type_ids, at::ones({20}, at::kLong)));
  EXPECT_EQ(b.packed.lengths, kLengths);  // on the host, for the attention's loop over the sequences
  EXPECT_EQ(fmwork::lengths_of_mask(b.attention_mask), kLengths);
  // Not right padding (a one after a zero), or an empty row: no lengths.
  EXPECT_TRUE(fmwork::lengths_of_mask(at::tensor({1, 0, 1}, at::kLong).view({1, 3})).empty());
  EXPECT_TRUE(fmwork::lengths_of_mask(at::tensor({1, 1, 0, 0, 0, 0}, at::kLong).view({2, 3})).empty());
  // A batch without lengths packs every row whole.
  fmwork::Batch full;
  full.input_ids = at::arange(6, at::kLong).view({2, 3});
  fmwork::pack_batch(full);
  EXPECT_EQ(full.lengths, (std::vector<int64_t>{3, 3}));
  EXPECT_TRUE(at::equal(full.packed.input_ids, at::arange(6, at::kLong)));
}

}  // namespace
