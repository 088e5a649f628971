// The native BERT-family encoder (encoders/bert): against an independent float64 reference
// (tests/support/test_support.cpp; transformers itself is the reference of tests/python/transformers_check.py),
// its positions, masks, random weights, half precision, attention paths and packed GEMM. load_hf_model()'s handling of folders, weights,
// options and errors is tested in tests/loaders/hf_model_test.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include <nlohmann/json.hpp>

#include "fmwork/base/error.hpp"
#include "fmwork/encoders/bert.hpp"
#include "fmwork/loaders/hf_model.hpp"
#include "fmwork/model/safetensors.hpp"
#include "fmwork/model/inputs.hpp"
#include "fmwork/model/model.hpp"
#include "support/test_support.hpp"

namespace {

using json = nlohmann::json;
using namespace fmwork::test_support::encoders;  // the tiny models; Batch, ErrorKind, ModelOptions, TempDir

// ---- against the reference --------------------------------------------------------------------------------

void check_against_reference(const std::string& model_type, const std::string& cls, const json& cfg, bool pooler,
                             const std::string& prefix = "", bool sorted = true, ModelOptions opt = {}) {
  TempDir dir;
  Weights w = tiny_weights(cfg, pooler, 7);
  write_folder(dir.path(), cfg, w, prefix, sorted);
  auto model = load(dir.path(), cls, opt);
  const int64_t pad = cfg["pad_token_id"];
  Inputs in = tiny_inputs(pad, model_type == "bert");
  auto [hidden, pooled] = outputs(model->forward(Batch{in.ids, in.mask, in.types}));
  RefOut ref = reference(cfg, to_double(w), in.ids, in.mask, in.types);
  EXPECT_EQ(hidden.sizes(), ref.hidden.sizes());
  EXPECT_EQ(hidden.scalar_type(), at::kFloat);
  // Padded positions (query rows) are compared too: HF computes them the same way.
  EXPECT_LE(max_diff(hidden, ref.hidden), 1e-4) << model_type;
  if (pooler) {
    ASSERT_TRUE(pooled.defined());
    EXPECT_LE(max_diff(pooled, ref.pooled), 1e-4) << model_type;
  } else {
    EXPECT_FALSE(pooled.defined());
  }
}

TEST(HfEncoder, BertMatchesReference) { check_against_reference("bert", "BertModel", tiny_config("bert"), true); }

TEST(HfEncoder, BertWithPrefixAndAdjacentQkvMatchesReference) {
  check_against_reference("bert", "BertModel", tiny_config("bert"), true, "bert.", /*sorted=*/false);
}

TEST(HfEncoder, BertActivations) {
  for (const char* a : {"gelu_new", "relu", "silu"}) {
    json cfg = tiny_config("bert");
    cfg["hidden_act"] = a;
    check_against_reference("bert", "BertModel", cfg, true);
  }
}

TEST(HfEncoder, RobertaMatchesReference) {
  check_against_reference("roberta", "RobertaModel", tiny_config("roberta"), true, "roberta.");
}

TEST(HfEncoder, XlmRobertaMatchesReference) {
  check_against_reference("xlm-roberta", "XLMRobertaModel", tiny_config("xlm-roberta"), true);
}

TEST(HfEncoder, DistilBertMatchesReference) {
  check_against_reference("distilbert", "DistilBertModel", tiny_config("distilbert"), false, "distilbert.");
}

TEST(HfEncoder, AutoModelAndSdpaOptionMatchReference) {
  ModelOptions opt;
  opt.attn_implementation = "sdpa";
  check_against_reference("roberta", "AutoModel", tiny_config("roberta"), true, "", true, opt);
}

TEST(HfEncoder, RobertaPositionsStartAfterPad) {
  // Only the position table differs between two models: outputs differ iff the rows used differ.
  TempDir dir;
  json cfg = tiny_config("roberta");
  Weights w = tiny_weights(cfg, true, 3);
  write_folder(dir.file("a"), cfg, w);
  Weights shifted = w;
  auto table = w["embeddings.position_embeddings.weight"].clone();
  table.narrow(0, 0, 2).normal_();  // rows 0 and 1 (<= pad): never used for non-pad tokens
  shifted["embeddings.position_embeddings.weight"] = table;
  write_folder(dir.file("b"), cfg, shifted);
  auto ids = at::tensor(std::vector<int64_t>{5, 6, 7, 8}).view({1, 4});
  auto mask = at::ones({1, 4}, at::kLong), types = at::zeros({1, 4}, at::kLong);
  auto a = outputs(load(dir.file("a"), "RobertaModel")->forward(Batch{ids, mask, types})).first;
  auto b = outputs(load(dir.file("b"), "RobertaModel")->forward(Batch{ids, mask, types})).first;
  EXPECT_TRUE(at::allclose(a, b));
  table.narrow(0, 2, 1).normal_();  // row pad + 1: the first token's position
  shifted["embeddings.position_embeddings.weight"] = table;
  write_folder(dir.file("c"), cfg, shifted);
  auto c = outputs(load(dir.file("c"), "RobertaModel")->forward(Batch{ids, mask, types})).first;
  EXPECT_FALSE(at::allclose(a.select(1, 0), c.select(1, 0)));
}

TEST(HfEncoder, InputLongerThanPositionsIsAUsageError) {
  TempDir dir;
  json cfg = tiny_config("roberta");  // 42 positions, pad 1: 40 tokens at most
  write_folder(dir.path(), cfg, tiny_weights(cfg, true, 1));
  auto model = load(dir.path(), "RobertaModel");
  auto batch = [](int64_t n) {
    return Batch{at::full({1, n}, 5, at::kLong), at::ones({1, n}, at::kLong), at::zeros({1, n}, at::kLong)};
  };
  EXPECT_NO_THROW(model->forward(batch(40)));
  auto m = error_of([&] { model->forward(batch(41)); }, ErrorKind::usage);
  EXPECT_NE(m.find("input size 41"), std::string::npos) << m;
  EXPECT_NE(m.find("--input_sizes up to 40"), std::string::npos) << m;
}

TEST(HfEncoder, AllOnesMaskEqualsNoPadding) {
  // The all-ones fast path (mask dropped) gives what an explicit mask computation gives.
  TempDir dir;
  json cfg = tiny_config("bert");
  Weights w = tiny_weights(cfg, true, 5);
  write_folder(dir.path(), cfg, w);
  auto model = load(dir.path(), "BertModel");
  auto ids = at::randint(3, 99, {3, 11}, at::kLong);
  auto ones = at::ones({3, 11}, at::kLong), zeros = at::zeros({3, 11}, at::kLong);
  auto h = outputs(model->forward(Batch{ids, ones, zeros})).first;
  RefOut ref = reference(cfg, to_double(w), ids, ones, zeros);
  EXPECT_LE(max_diff(h, ref.hidden), 1e-4);
}

// Defect 2: a batch the generator made (padded false) runs with no mask at all, whatever its mask tensor
// holds (on CUDA a mask rules flash attention out); a batch that may be padded applies it.
TEST(HfEncoder, AnUnpaddedBatchRunsWithoutItsMask) {
  TempDir dir;
  json cfg = tiny_config("bert");
  write_folder(dir.path(), cfg, tiny_weights(cfg, true, 5));
  for (const char* attn : {"eager", "sdpa"}) {
    ModelOptions opt;
    opt.attn_implementation = attn;
    auto model = load(dir.path(), "BertModel", opt);
    auto ids = at::randint(3, 99, {2, 9}, at::kLong), zeros = at::zeros({2, 9}, at::kLong);
    auto ones = at::ones({2, 9}, at::kLong), holes = ones.clone();
    holes[1].narrow(0, 6, 3).zero_();
    const at::Tensor plain = outputs(model->forward(Batch{ids, ones, zeros})).first;
    Batch unpadded{ids, holes, zeros};
    unpadded.padded = false;
    EXPECT_TRUE(at::equal(outputs(model->forward(unpadded)).first, plain)) << attn;
    EXPECT_FALSE(at::allclose(outputs(model->forward(Batch{ids, holes, zeros})).first, plain)) << attn;
  }
  fmwork::InputGenerator gen(fmwork::TokenFacts{99, {0}}, 1);
  EXPECT_FALSE(gen.make(2, 3, at::kCPU).padded);
}

// ---- random weights ---------------------------------------------------------------------------------------

TEST(HfEncoderRandom, DistilBertSinusoidalTable) {
  TempDir dir;
  json cfg = tiny_config("distilbert");
  cfg["sinusoidal_pos_embds"] = true;
  fmwork::test_support::write_file(dir.file("config.json"), cfg.dump());
  fmwork::hf::write_random_model_folder(dir.file("config.json"), dir.file("out"), 0);
  auto f = fmwork::hf::SafetensorsFile::open(dir.file("out/model.safetensors"));
  auto table = f->tensor("embeddings.position_embeddings.weight");
  EXPECT_NEAR(table[0][0].item<float>(), 0.0, 1e-6);                        // sin(0)
  EXPECT_NEAR(table[0][1].item<float>(), 1.0, 1e-6);                        // cos(0)
  EXPECT_NEAR(table[3][0].item<float>(), std::sin(3.0), 1e-6);              // j = 0: 3 / 10000^0
  EXPECT_NEAR(table[3][3].item<float>(), std::cos(3.0 / std::pow(10000.0, 2.0 / 32)), 1e-6);
}

// ---- dtypes -----------------------------------------------------------------------------------------------

double cosine(const at::Tensor& a, const at::Tensor& b) {
  auto x = a.to(at::kDouble).flatten(), y = b.to(at::kDouble).flatten();
  return (x.dot(y) / (x.norm() * y.norm())).item<double>();
}

// Half precision on the CPU, both attention paths, every family, against the same model in float32.
// Tolerances on 2 layers of hidden 32 (outputs of LayerNorm, |x| up to ~3): bfloat16 keeps 8 bits of
// mantissa (relative step 2^-8), float16 11 bits (2^-11); the cosine similarity of the flattened outputs is
// what the GPU comparisons of the project use too.
TEST(HfEncoderDtypes, HalfPrecisionOnCpuTracksFloat32) {
  struct Tolerance {
    const char* dtype;
    at::ScalarType type;
    double max_abs, min_cosine;
  };
  const Tolerance tolerances[] = {{"bfloat16", at::kBFloat16, 0.15, 0.999}, {"float16", at::kHalf, 0.02, 0.9999}};
  for (const char* family : {"bert", "roberta", "distilbert"}) {
    TempDir dir;
    json cfg = tiny_config(family);
    const bool pooler = std::string(family) != "distilbert";
    write_folder(dir.path(), cfg, tiny_weights(cfg, pooler, 8));
    const std::string cls = std::string(family) == "bert" ? "BertModel"
                            : std::string(family) == "roberta" ? "RobertaModel" : "DistilBertModel";
    Inputs in = tiny_inputs(cfg["pad_token_id"].get<int64_t>(), false);
    Batch batch{in.ids, in.mask, in.types};
    auto [h32, p32] = outputs(load(dir.path(), cls)->forward(batch));
    for (const auto& tol : tolerances) {
      for (const char* attention : {"eager", "sdpa"}) {
        SCOPED_TRACE(std::string(family) + " " + tol.dtype + " " + attention);
        ModelOptions opt;
        opt.dtype = tol.dtype;
        opt.attn_implementation = attention;
        auto model = load(dir.path(), cls, opt);
        EXPECT_EQ(model->facts().dtype_name, tol.dtype);
        auto [h, p] = outputs(model->forward(batch));
        EXPECT_EQ(h.scalar_type(), tol.type);
        EXPECT_LE(max_diff(h, h32), tol.max_abs);
        EXPECT_GE(cosine(h, h32), tol.min_cosine);
        if (pooler) {
          EXPECT_EQ(p.scalar_type(), tol.type);
          EXPECT_LE(max_diff(p, p32), tol.max_abs);
        }
      }
    }
  }
}

// sdpa (at::scaled_dot_product_attention) against the eager formula, with a padded sequence (the boolean
// mask path) and without (no mask at all), in float32 and bfloat16.
TEST(HfEncoderDtypes, SdpaMatchesEagerAttention) {
  TempDir dir;
  json cfg = tiny_config("roberta");
  write_folder(dir.path(), cfg, tiny_weights(cfg, true, 3));
  Inputs padded = tiny_inputs(1, false);
  Batch batches[] = {{padded.ids, padded.mask, padded.types},
                     {padded.ids.narrow(0, 0, 1), padded.mask.narrow(0, 0, 1), padded.types.narrow(0, 0, 1)}};
  for (const char* dtype : {"float32", "bfloat16"}) {
    ModelOptions eager_opt, sdpa_opt;
    eager_opt.dtype = sdpa_opt.dtype = dtype;
    eager_opt.attn_implementation = "eager";
    sdpa_opt.attn_implementation = "sdpa";
    auto eager = load(dir.path(), "RobertaModel", eager_opt);
    auto sdpa = load(dir.path(), "RobertaModel", sdpa_opt);
    const bool f32 = std::string(dtype) == "float32";
    // bfloat16: the two orders of summation round differently, by a few of bfloat16's steps at the outputs'
    // magnitude, and which step each lands on depends on the CPU's kernels (AMX, AVX-512, AVX2); so the bound
    // is 4 steps (2^-7 of the largest output's power of two each) and the direction must agree closely. A
    // wrong mask or a head mixed up moves outputs by their own size.
    const auto tol = [&](const at::Tensor& reference) {
      if (f32) return 1e-5;
      const double largest = reference.abs().max().item<double>();
      return 4 * std::ldexp(1.0, std::ilogb(std::max(largest, 1e-30)) - 7);
    };
    for (const auto& batch : batches) {
      SCOPED_TRACE(std::string(dtype) + " batch " + std::to_string(batch.input_ids.size(0)));
      auto [he, pe] = outputs(eager->forward(batch));
      auto [hs, ps] = outputs(sdpa->forward(batch));
      EXPECT_LE(max_diff(hs, he), tol(he));
      EXPECT_LE(max_diff(ps, pe), tol(he)) << "the pooler carries the hidden states' rounding (tanh shrinks it)";
      if (!f32) EXPECT_GE(cosine(hs, he), 0.999);
    }
  }
}

// A tiny BERT folder (seeded weights, with its pooler) and a batch of two for it, one row padded.
struct TinyBert {
  TempDir dir;
  json cfg = tiny_config("bert");
  Batch batch;
  TinyBert() {
    write_folder(dir.path(), cfg, tiny_weights(cfg, true, 5));
    const Inputs in = tiny_inputs(0, true);
    batch = Batch{in.ids, in.mask, in.types};
  }
  std::unique_ptr<fmwork::Model> load_with(const ModelOptions& opt) const { return load(dir.path(), "BertModel", opt); }
};

// MKL packed GEMM (asked for: the default only with AVX-512) against at::linear: the same outputs for the prepared shape,
// and a shape it was not prepared for still runs (on at::linear) and agrees too.
TEST(HfEncoderPackedGemm, SameOutputsAsAtLinear) {
  const TinyBert bert;
  const Batch& batch = bert.batch;
  ModelOptions plain_opt;
  plain_opt.packed_gemm = false;
  auto plain = bert.load_with(plain_opt);
  ModelOptions packed_opt;
  packed_opt.packed_gemm = true;
  auto packed = bert.load_with(packed_opt);
  EXPECT_NE(packed->facts().description.find("linear layers: MKL packed GEMM"), std::string::npos) << packed->facts().description;
  // Off by the option, or by default without AVX-512: either way at::linear, and the line names the option.
  EXPECT_NE(plain->facts().description.find("linear layers: at::linear ("), std::string::npos) << plain->facts().description;
  EXPECT_NE(plain->facts().description.find("--model:packed_gemm@"), std::string::npos) << plain->facts().description;
  auto [h0, p0] = outputs(plain->forward(batch));
  packed->prepare(2, 9);
  const auto& encoder = dynamic_cast<const fmwork::hf::BertEncoder&>(dynamic_cast<const fmwork::hf::HfModel&>(*packed).encoder());
  const auto& layer = encoder.weights().layers.at(0);
  const fmwork::hf::Linear& first = layer.qkv.weight.defined() ? layer.qkv : layer.q;
  EXPECT_TRUE(first.packed.defined());
  EXPECT_EQ(first.packed_rows, 18);
  EXPECT_EQ(encoder.weights().pooler->packed_rows, 2);
  auto [h1, p1] = outputs(packed->forward(batch));
  EXPECT_LE(max_diff(h1, h0), 1e-6);
  EXPECT_LE(max_diff(p1, p0), 1e-6);
  packed->prepare(1, 4);  // another shape: the batch above no longer matches its packs
  auto [h2, p2] = outputs(packed->forward(batch));
  EXPECT_LE(max_diff(h2, h0), 1e-6);

  ModelOptions bf16;
  bf16.dtype = "bfloat16";
  EXPECT_NE(bert.load_with(bf16)->facts().description.find("at::linear (packed GEMM is for float32)"),
            std::string::npos);
}

// --model:gelu_epilogue@ True. On the CPU at::_addmm_activation is addmm then exact GELU, so every BERT-family
// model still matches the reference; MODEL says where the bias and GELU run. The layer the call reads takes no
// MKL pack (its weight is read as it is), and the memory estimate leaves that pack out.
TEST(HfEncoderGeluEpilogue, MatchesTheReferenceOnTheCpu) {
  ModelOptions opt;
  opt.gelu_epilogue = true;
  check_against_reference("bert", "BertModel", tiny_config("bert"), true, "", true, opt);
  check_against_reference("roberta", "RobertaModel", tiny_config("roberta"), true, "roberta.", true, opt);
  check_against_reference("distilbert", "DistilBertModel", tiny_config("distilbert"), false, "", true, opt);
}

TEST(HfEncoderGeluEpilogue, NamedInModelAndItsLayerUnpacked) {
  const TinyBert bert;
  const Batch& batch = bert.batch;
  ModelOptions plain_opt;
  plain_opt.packed_gemm = true;
  ModelOptions fused_opt = plain_opt;
  fused_opt.gelu_epilogue = true;
  auto plain = bert.load_with(plain_opt);
  auto fused = bert.load_with(fused_opt);
  const std::string off = plain->facts().description, on = fused->facts().description;
  EXPECT_NE(off.find("feed-forward: first GEMM with its bias, then gelu (--model:gelu_epilogue@ True puts"),
            std::string::npos) << off;
  EXPECT_NE(on.find("feed-forward: first GEMM, bias and exact GELU in one ATen call (at::_addmm_activation"),
            std::string::npos) << on;
  plain->prepare(2, 9);
  fused->prepare(2, 9);
  const auto& encoder = dynamic_cast<const fmwork::hf::BertEncoder&>(dynamic_cast<const fmwork::hf::HfModel&>(*fused).encoder());
  const auto& layer = encoder.weights().layers.at(0);
  EXPECT_FALSE(layer.ffn_in.packed.defined()) << "_addmm_activation reads the weight, never a pack";
  if (fmwork::hf::mkl_packed_gemm_available()) {
    EXPECT_TRUE(layer.ffn_out.packed.defined());
    EXPECT_EQ(plain->facts().activation_bytes(2, 9) - fused->facts().activation_bytes(2, 9),
              static_cast<uint64_t>(bert.cfg["num_hidden_layers"].get<int64_t>() * layer.ffn_in.weight.nbytes()))
        << "the estimate counts the packs prepare() makes";
  }
  auto [h0, p0] = outputs(plain->forward(batch));
  auto [h1, p1] = outputs(fused->forward(batch));
  EXPECT_LE(max_diff(h1, h0), 1e-5);
  EXPECT_LE(max_diff(p1, p0), 1e-5);
}

// Where the call's GELU is not the model's activation, or the model's feed-forward is not a linear layer then
// GELU, the option is refused naming why; the gated families are refused in rotary_families_test.cpp.
TEST(HfEncoderGeluEpilogue, RefusedWhereItWouldChangeOrMissTheActivation) {
  ModelOptions opt;
  opt.gelu_epilogue = true;
  for (const auto& [act, words] : {std::pair<std::string, std::string>{"gelu_new", "on the CPU the call's GELU is exact, "
                                                                                   "and this model's hidden_act gelu_new is the tanh approximation"},
                                   {"relu", "the epilogue applies GELU; this model's hidden_act is relu"}}) {
    TempDir dir;
    json cfg = tiny_config("bert");
    cfg["hidden_act"] = act;
    write_folder(dir.path(), cfg, tiny_weights(cfg, true, 5));
    const std::string m = error_of([&] { load(dir.path(), "BertModel", opt); }, ErrorKind::usage);
    EXPECT_NE(m.find("--model:gelu_epilogue@ True: " + words), std::string::npos) << m;
  }
}

}  // namespace
