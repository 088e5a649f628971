// hf/forward_flops against LibTorch's own FLOP counter: each native family's forward pass (eager attention,
// plain at::linear so that every product is one the counter knows) profiled by runtime/op_profile, its
// products' FLOPs summed, equal to what ModelFacts::forward_flops says for the same batch and input.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "fmwork/model/model.hpp"
#include "fmwork/runtime/op_profile.hpp"
#include "support/test_support.hpp"

namespace {

using json = nlohmann::json;
using namespace fmwork::test_support::encoders;

void expect_formula_matches_counter(const json& cfg, const std::string& cls, bool pooler, bool with_types) {
  TempDir dir;
  write_folder(dir.file("m"), cfg, tiny_weights(cfg, pooler, 5));
  ModelOptions opt;
  opt.attn_implementation = "eager";  // sdpa's products are invisible to the counter
  opt.packed_gemm = false;            // so are oneDNN's packed ones
  auto model = load(dir.file("m"), cls, opt);
  const int64_t pad = cfg.value("pad_token_id", 0);
  const Inputs in = tiny_inputs(pad, with_types);
  const Batch batch{in.ids, in.mask, with_types ? in.types : at::Tensor()};
  const fmwork::OpProfile p = fmwork::profile_call([&] { model->forward(batch); }, c10::DeviceType::CPU,
                                                   dir.file("trace.json"));
  const fmwork::ModelFacts facts = model->facts();
  ASSERT_TRUE(facts.forward_flops);
  const std::optional<double> formula = facts.forward_flops(in.ids.size(0), in.ids.size(1));
  EXPECT_GT(p.counted_flops, 0);
  EXPECT_EQ(p.counted_flops, *formula) << cls << ": the profiler counted " << p.counted_flops << ", the formula says "
                                       << *formula;
}

TEST(ForwardFlopsCounter, BertWithPooler) {
  expect_formula_matches_counter(tiny_config("bert"), "BertModel", true, true);
}

TEST(ForwardFlopsCounter, DistilBert) {
  expect_formula_matches_counter(tiny_config("distilbert"), "DistilBertModel", false, false);
}

TEST(ForwardFlopsCounter, ModernBertWithSlidingLayers) {
  expect_formula_matches_counter(json::parse(R"({"model_type": "modernbert", "hidden_size": 24,
    "num_hidden_layers": 3, "num_attention_heads": 2, "intermediate_size": 20, "vocab_size": 99,
    "max_position_embeddings": 16, "global_attn_every_n_layers": 2, "local_attention": 4, "pad_token_id": 0})"),
                                 "ModernBertModel", false, false);
}

TEST(ForwardFlopsCounter, Qwen3WithGroupedQueryAttention) {
  expect_formula_matches_counter(json::parse(R"({"model_type": "qwen3", "hidden_size": 16, "num_hidden_layers": 2,
    "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 6, "intermediate_size": 20, "vocab_size": 99,
    "max_position_embeddings": 16, "pad_token_id": 0})"),
                                 "Qwen3Model", false, false);
}

}  // namespace
