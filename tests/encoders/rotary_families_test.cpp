// ModernBERT and Qwen3 folders through load_hf_model() (encoders/modernbert, encoders/qwen3): prefixes and
// ignored heads, fused and separate projections agreeing, random weights, the memory estimate, and the
// refusals. Their outputs are held against transformers itself by tests/python/transformers_check.py.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "fmwork/encoders/families.hpp"
#include "fmwork/loaders/hf_model.hpp"
#include "support/test_support.hpp"

namespace {

using json = nlohmann::json;
using namespace fmwork::test_support::encoders;

json modernbert_config() { return tiny_modernbert_config(); }
json qwen3_config() { return tiny_qwen3_config(); }

const fmwork::hf::HfModel& hf_of(const fmwork::Model& m) { return dynamic_cast<const fmwork::hf::HfModel&>(m); }

at::Tensor hidden_of(fmwork::Model& m) {
  const Inputs in = tiny_inputs(0, false);
  return outputs(m.forward(Batch{in.ids, in.mask, at::Tensor()})).first;
}

TEST(RotaryFamilies, ModernBertPrefixAndHeadWeightsAsTransformersSavesThem) {
  TempDir dir;
  const json cfg = modernbert_config();
  const Weights w = tiny_weights(cfg, false, 3);
  write_folder(dir.file("plain"), cfg, w);
  // ModernBertForMaskedLM's checkpoint: "model." before every name, and a head the base model ignores.
  write_folder(dir.file("mlm"), cfg, w, "model.", true,
               {{"head.dense.weight", at::ones({24, 24})}, {"decoder.bias", at::zeros({99})}});
  auto plain = load(dir.file("plain"), "ModernBertModel");
  auto mlm = load(dir.file("mlm"), "AutoModel");
  const at::Tensor a = hidden_of(*plain), b = hidden_of(*mlm);
  EXPECT_EQ(a.sizes(), (at::IntArrayRef{2, 9, 24}));
  EXPECT_TRUE(at::isfinite(a).all().item<bool>());
  EXPECT_TRUE(at::equal(a, b));
  EXPECT_NE(mlm->facts().description.find("ignored (buffers / task heads"), std::string::npos) << mlm->facts().description;
  EXPECT_NE(mlm->facts().description.find("layer_types=FSF (F full, S sliding window 2)"), std::string::npos) << mlm->facts().description;
  EXPECT_EQ(plain->facts().fed_inputs, (std::vector<std::string>{"input_ids", "attention_mask"}));
  int64_t expected = 0;
  for (const auto& [name, t] : w) expected += t.numel();
  EXPECT_EQ(plain->facts().parameter_count, expected);

  write_folder(dir.file("odd"), cfg, w, "", true, {{"layers.0.attn.Wq.weight", at::ones({24, 24})}});
  const std::string m = error_of([&] { load(dir.file("odd"), "ModernBertModel"); }, ErrorKind::runtime);
  EXPECT_NE(m.find("unexpected weights for ModernBertModel: layers.0.attn.Wq.weight"), std::string::npos) << m;
}

// local_attention 0 (and 1) leaves each token only itself on the sliding layers, as transformers: it was read
// as "no window", and the layers saw the whole input. The same weights: 0 and 1 agree, and differ from a
// window wider than the input.
TEST(RotaryFamilies, ModernBertLocalAttentionZeroSeesItselfAlone) {
  TempDir dir;
  json cfg = modernbert_config();
  const Weights w = tiny_weights(cfg, false, 5);
  std::map<int, at::Tensor> hidden;
  for (const int local : {0, 1, 64}) {
    cfg["local_attention"] = local;
    const std::string folder = dir.file("local" + std::to_string(local));
    write_folder(folder, cfg, w);
    auto model = load(folder, "ModernBertModel");
    hidden[local] = hidden_of(*model);
    if (local == 0)
      EXPECT_NE(model->facts().description.find("see +-0 tokens (each token itself alone)"), std::string::npos)
          << model->facts().description;
  }
  EXPECT_TRUE(at::equal(hidden[0], hidden[1]));
  EXPECT_GT(max_diff(hidden[0], hidden[64]), 1e-3) << "a window of +-0 masks every other token";
}

// Stored in bfloat16 and run in float32, the weights are converted (owned) and q/k/v and gate/up fused into
// one GEMM each; stored in float32 with sorted names they stay zero-copy views in separate GEMMs. Same values
// (bfloat16-exact), so the same outputs: the fused path slices its heads right.
TEST(RotaryFamilies, Qwen3FusedAndSeparateProjectionsAgree) {
  TempDir dir;
  const json cfg = qwen3_config();
  Weights w = tiny_weights(cfg, false, 4);
  Weights half;
  for (auto& [name, t] : w) {
    t = t.to(at::kBFloat16).to(at::kFloat);
    half[name] = t.to(at::kBFloat16);
  }
  write_folder(dir.file("f32"), cfg, w);
  write_folder(dir.file("bf16"), cfg, half);
  auto separate = load(dir.file("f32"), "Qwen3Model");
  auto fused = load(dir.file("bf16"), "Qwen3Model");
  EXPECT_FALSE(hf_of(*separate).encoder().fused_qkv());
  EXPECT_TRUE(hf_of(*fused).encoder().fused_qkv());
  EXPECT_NE(fused->facts().description.find("MLP gate/up: one fused GEMM"), std::string::npos) << fused->facts().description;
  EXPECT_LE(max_diff(hidden_of(*separate), hidden_of(*fused)), 1e-5);
}

TEST(RotaryFamilies, RandomWeightsSeededAndSized) {
  TempDir dir;
  for (const json& cfg : {modernbert_config(), qwen3_config()}) {
    fmwork::test_support::write_file(dir.file("config.json"), cfg.dump());
    ModelOptions opt;
    opt.random_weights = true;
    auto a = load(dir.path(), "AutoModel", opt), b = load(dir.path(), "AutoModel", opt);
    EXPECT_TRUE(at::equal(hidden_of(*a), hidden_of(*b))) << "seeded: " << cfg["model_type"];
    int64_t expected = 0;
    for (const auto& [name, shape] : fmwork::hf::expected_weights(hf_of(*a).encoder().config(), false)) {
      int64_t n = 1;
      for (int64_t d : shape) n *= d;
      expected += n;
    }
    EXPECT_EQ(a->facts().parameter_count, expected) << cfg["model_type"];
    EXPECT_TRUE(hf_of(*a).encoder().fused_qkv()) << "random projections are drawn adjacent";
  }
}

TEST(RotaryFamilies, MemoryEstimateGrowsWithTheScoresOfEagerAttention) {
  TempDir dir;
  fmwork::test_support::write_file(dir.file("config.json"), qwen3_config().dump());
  ModelOptions opt;
  opt.random_weights = true;
  opt.packed_gemm = false;
  opt.attn_implementation = "eager";
  auto eager = load(dir.path(), "Qwen3Model", opt);
  opt.attn_implementation = "sdpa";
  auto sdpa = load(dir.path(), "Qwen3Model", opt);
  const uint64_t e8 = eager->facts().activation_bytes(2, 8), e16 = eager->facts().activation_bytes(2, 16);
  EXPECT_GT(e8, sdpa->facts().activation_bytes(2, 8)) << "eager holds [B, heads, T, T] scores";
  EXPECT_GT(e16, 2 * e8) << "quadratic in the input";
  EXPECT_GE(sdpa->facts().activation_bytes(4, 8), 2 * sdpa->facts().activation_bytes(2, 8) - 1) << "linear in the batch";
}

TEST(RotaryFamilies, Refusals) {
  TempDir dir;
  fmwork::test_support::write_file(dir.file("config.json"), modernbert_config().dump());
  ModelOptions opt;
  opt.random_weights = true;
  auto model = load(dir.path(), "ModernBertModel", opt);
  const at::Tensor ids = at::ones({1, 17}, at::kLong);
  std::string m = error_of([&] { model->forward(Batch{ids, at::ones({1, 17}, at::kLong), at::Tensor()}); },
                           ErrorKind::usage);
  EXPECT_NE(m.find("input size 17 is longer than ModernBertModel allows: 16 (max_position_embeddings)"),
            std::string::npos) << m;
  opt.add_pooling_layer = true;
  m = error_of([&] { load(dir.path(), "ModernBertModel", opt); }, ErrorKind::usage);
  EXPECT_NE(m.find("ModernBertModel has no pooler"), std::string::npos) << m;
  m = error_of([&] { load(dir.path(), "Qwen3Model", {}); }, ErrorKind::usage);
  EXPECT_NE(m.find("--model_class Qwen3Model does not match"), std::string::npos) << m;
  // Gated feed-forwards (GeGLU, SwiGLU): no GEMM whose output is the activation's input alone.
  opt.add_pooling_layer.reset();
  opt.gelu_epilogue = true;
  m = error_of([&] { load(dir.path(), "ModernBertModel", opt); }, ErrorKind::usage);
  EXPECT_NE(m.find("--model:gelu_epilogue@ True: modernbert's feed-forward is not one linear layer then GELU"),
            std::string::npos) << m;
  TempDir qwen;
  fmwork::test_support::write_file(qwen.file("config.json"), qwen3_config().dump());
  m = error_of([&] { load(qwen.path(), "Qwen3Model", opt); }, ErrorKind::usage);
  EXPECT_NE(m.find("qwen3's feed-forward is not one linear layer then GELU (silu, gated)"), std::string::npos) << m;
}

}  // namespace
