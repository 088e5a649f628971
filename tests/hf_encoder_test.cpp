// The native encoder: against an independent float64 reference written here (transformers itself is the
// reference of tests/python/transformers_check.py), and load_hf_model()'s handling of folders, weights,
// options and errors.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>

#include <ATen/CPUGeneratorImpl.h>
#include <nlohmann/json.hpp>

#include "fmwork/error.hpp"
#include "fmwork/hf/config.hpp"
#include "fmwork/hf/encoder.hpp"
#include "fmwork/hf/hf_model.hpp"
#include "fmwork/hf/safetensors.hpp"
#include "fmwork/model.hpp"
#include "test_support.hpp"

namespace {

namespace fs = std::filesystem;
using fmwork::Batch;
using fmwork::Error;
using fmwork::ErrorKind;
using fmwork::LoadRequest;
using fmwork::ModelOptions;
using fmwork::testing::ScratchDir;
using json = nlohmann::json;
using Weights = std::map<std::string, at::Tensor>;

// ---- tiny models ------------------------------------------------------------------------------------------

json tiny_config(const std::string& model_type) {
  if (model_type == "distilbert")
    return {{"model_type", "distilbert"}, {"architectures", {"DistilBertModel"}}, {"dim", 32}, {"n_layers", 2},
            {"n_heads", 4}, {"hidden_dim", 37}, {"activation", "gelu"}, {"vocab_size", 99},
            {"max_position_embeddings", 40}, {"pad_token_id", 0}, {"sinusoidal_pos_embds", false}};
  json j = {{"model_type", model_type}, {"hidden_size", 32}, {"num_hidden_layers", 2}, {"num_attention_heads", 4},
            {"intermediate_size", 37}, {"hidden_act", "gelu"}, {"layer_norm_eps", 1e-12}, {"vocab_size", 99},
            {"max_position_embeddings", 40}, {"type_vocab_size", 2}, {"pad_token_id", 0},
            {"position_embedding_type", "absolute"}};
  if (model_type != "bert") {
    j["max_position_embeddings"] = 42;
    j["type_vocab_size"] = 1;
    j["pad_token_id"] = 1;
    j["layer_norm_eps"] = 1e-5;
  }
  return j;
}

// Random weights with non-trivial values everywhere (biases, norms), named as Hugging Face names them.
Weights tiny_weights(const json& config, bool pooler, uint64_t seed) {
  auto c = fmwork::hf::parse_config(config, "config.json");
  at::Generator gen = at::detail::createCPUGenerator(seed);
  Weights w;
  for (const auto& [name, shape] : fmwork::hf::expected_weights(c, pooler)) {
    auto t = at::empty(shape).normal_(0.0, 0.3, gen);
    if (name.find("LayerNorm.weight") != std::string::npos || name.find("layer_norm.weight") != std::string::npos)
      t = t.mul(0.2).add(1.0);
    w[name] = t;
  }
  return w;
}

// Writes config.json and model.safetensors. `prefix` is prepended to every name; `sorted` writes names in
// sorted order (as safetensors' Python writer does: q/k/v not adjacent), else in module order with the
// q/k/v weights of each layer adjacent. `extra` tensors are added as they are.
void write_folder(const std::string& dir, const json& config, const Weights& w, const std::string& prefix = "",
                  bool sorted = true, const Weights& extra = {}) {
  fs::create_directories(dir);
  fmwork::testing::write_file(dir + "/config.json", config.dump(2));
  std::vector<std::pair<std::string, at::Tensor>> list;
  if (sorted) {
    for (const auto& [n, t] : w) list.emplace_back(prefix + n, t);
  } else {
    auto c = fmwork::hf::parse_config(config, "config.json");
    for (const auto& [n, shape] : fmwork::hf::expected_weights(c, w.count("pooler.dense.weight") > 0))
      list.emplace_back(prefix + n, w.at(n));
  }
  for (const auto& [n, t] : extra) list.emplace_back(n, t);
  fmwork::hf::write_safetensors(dir + "/model.safetensors", list);
}

// ---- the independent reference (float64, per head, written from the papers / HF modules) ------------------

at::Tensor ln(const at::Tensor& x, const at::Tensor& g, const at::Tensor& b, double eps) {
  auto mean = x.mean(-1, true);
  auto var = (x - mean).pow(2).mean(-1, true);
  return (x - mean) / (var + eps).sqrt() * g + b;
}

at::Tensor act(const at::Tensor& x, const std::string& name) {
  if (name == "gelu") return 0.5 * x * (1.0 + at::erf(x / std::sqrt(2.0)));
  if (name == "gelu_new" || name == "gelu_pytorch_tanh")
    return 0.5 * x * (1.0 + at::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x.pow(3))));
  if (name == "relu") return x.clamp_min(0);
  if (name == "silu") return x / (1.0 + at::exp(-x));
  throw std::runtime_error("reference: no activation " + name);
}

struct RefOut {
  at::Tensor hidden, pooled;
};

RefOut reference(const json& cfg, const Weights& w64, const at::Tensor& ids, const at::Tensor& mask,
                 const at::Tensor& types) {
  const std::string type = cfg["model_type"];
  const bool distil = type == "distilbert", roberta = type == "roberta" || type == "xlm-roberta";
  const int64_t H = distil ? cfg["dim"].get<int64_t>() : cfg["hidden_size"].get<int64_t>();
  const int64_t heads = distil ? cfg["n_heads"].get<int64_t>() : cfg["num_attention_heads"].get<int64_t>();
  const int64_t layers = distil ? cfg["n_layers"].get<int64_t>() : cfg["num_hidden_layers"].get<int64_t>();
  const std::string activation = distil ? cfg["activation"].get<std::string>() : cfg["hidden_act"].get<std::string>();
  const double eps = distil ? 1e-12 : cfg["layer_norm_eps"].get<double>();
  const int64_t pad = cfg["pad_token_id"], d = H / heads, B = ids.size(0), T = ids.size(1);
  auto W = [&](const std::string& n) { return w64.at(n); };

  // Positions, token by token.
  auto pos = at::zeros({B, T}, at::kLong);
  for (int64_t b = 0; b < B; ++b) {
    int64_t count = 0;
    for (int64_t t = 0; t < T; ++t) {
      if (roberta) {
        bool real = ids[b][t].item<int64_t>() != pad;
        count += real;
        pos[b][t] = real ? pad + count : pad;
      } else {
        pos[b][t] = t;
      }
    }
  }
  auto x = W("embeddings.word_embeddings.weight").index_select(0, ids.flatten()).view({B, T, H}) +
           W("embeddings.position_embeddings.weight").index_select(0, pos.flatten()).view({B, T, H});
  if (!distil) x = x + W("embeddings.token_type_embeddings.weight").index_select(0, types.flatten()).view({B, T, H});
  x = ln(x, W("embeddings.LayerNorm.weight"), W("embeddings.LayerNorm.bias"), eps);
  auto keep = mask.to(at::kDouble).view({B, 1, T});  // 1 attend, 0 masked
  for (int64_t l = 0; l < layers; ++l) {
    const std::string p = (distil ? "transformer.layer." : "encoder.layer.") + std::to_string(l) + ".";
    auto lin = [&](const at::Tensor& in, const std::string& n) { return at::matmul(in, W(p + n + ".weight").t()) + W(p + n + ".bias"); };
    const std::string qn = distil ? "attention.q_lin" : "attention.self.query";
    const std::string kn = distil ? "attention.k_lin" : "attention.self.key";
    const std::string vn = distil ? "attention.v_lin" : "attention.self.value";
    auto q = lin(x, qn), k = lin(x, kn), v = lin(x, vn);
    std::vector<at::Tensor> outs;
    for (int64_t h = 0; h < heads; ++h) {
      auto qh = q.narrow(2, h * d, d), kh = k.narrow(2, h * d, d), vh = v.narrow(2, h * d, d);
      auto s = at::matmul(qh, kh.transpose(1, 2)) / std::sqrt(static_cast<double>(d));  // [B, T, T]
      auto e = at::exp(s - std::get<0>(s.max(-1, true))) * keep;                         // masked keys weigh 0
      outs.push_back(at::matmul(e / e.sum(-1, true), vh));
    }
    auto ctx = at::cat(outs, 2);
    auto a = lin(ctx, distil ? "attention.out_lin" : "attention.output.dense");
    x = distil ? ln(a + x, W(p + "sa_layer_norm.weight"), W(p + "sa_layer_norm.bias"), eps)
               : ln(a + x, W(p + "attention.output.LayerNorm.weight"), W(p + "attention.output.LayerNorm.bias"), eps);
    auto f = lin(act(lin(x, distil ? "ffn.lin1" : "intermediate.dense"), activation), distil ? "ffn.lin2" : "output.dense");
    x = distil ? ln(f + x, W(p + "output_layer_norm.weight"), W(p + "output_layer_norm.bias"), eps)
               : ln(f + x, W(p + "output.LayerNorm.weight"), W(p + "output.LayerNorm.bias"), eps);
  }
  RefOut out{x, {}};
  if (w64.count("pooler.dense.weight"))
    out.pooled = at::tanh(at::matmul(x.select(1, 0), W("pooler.dense.weight").t()) + W("pooler.dense.bias"));
  return out;
}

Weights to_double(const Weights& w) {
  Weights out;
  for (const auto& [n, t] : w) out[n] = t.to(at::kDouble);
  return out;
}

std::unique_ptr<fmwork::Model> load(const std::string& dir, const std::string& cls, ModelOptions opt = {}) {
  LoadRequest r;
  r.path = dir;
  r.model_class = cls;
  r.options = opt;
  return fmwork::load_hf_model(r);
}

// Splits a forward result into (hidden, pooled).
std::pair<at::Tensor, at::Tensor> outputs(const c10::IValue& v) {
  if (v.isTensor()) return {v.toTensor(), at::Tensor()};
  auto t = v.toTuple();
  return {t->elements().at(0).toTensor(), t->elements().at(1).toTensor()};
}

double max_diff(const at::Tensor& a, const at::Tensor& b) {
  return (a.to(at::kDouble) - b.to(at::kDouble)).abs().max().item<double>();
}

struct Inputs {
  at::Tensor ids, mask, types;
};
// Two sequences of length 9; the second padded after 6 tokens (pad id in the ids, 0 in the mask).
Inputs tiny_inputs(int64_t pad, bool with_types) {
  Inputs in;
  in.ids = at::tensor(std::vector<int64_t>{5, 17, 33, 8, 90, 41, 2, 77, 13, 6, 61, 28, 72, 3, 50, pad, pad, pad}).view({2, 9});
  in.mask = at::ones({2, 9}, at::kLong);
  in.mask[1].narrow(0, 6, 3).zero_();
  in.types = at::zeros({2, 9}, at::kLong);
  if (with_types) in.types[0].narrow(0, 4, 5).fill_(1);
  return in;
}

std::string error_of(const std::function<void()>& f, ErrorKind kind) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    std::string m = e.what();
    EXPECT_EQ(m.find('\n'), std::string::npos) << "one line: " << m;
    return m;
  }
  ADD_FAILURE() << "no error";
  return "";
}

// ---- against the reference --------------------------------------------------------------------------------

void check_against_reference(const std::string& model_type, const std::string& cls, const json& cfg, bool pooler,
                             const std::string& prefix = "", bool sorted = true, ModelOptions opt = {}) {
  ScratchDir dir;
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
  ScratchDir dir;
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
  ScratchDir dir;
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
  ScratchDir dir;
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

// ---- weights: names, zero-copy, fusion, shards ------------------------------------------------------------

// The [begin, end) address ranges where `path` is mapped into this process.
std::vector<std::pair<uintptr_t, uintptr_t>> mappings_of(const std::string& path) {
  std::vector<std::pair<uintptr_t, uintptr_t>> out;
  std::ifstream maps("/proc/self/maps");
  std::string line;
  const std::string canonical = fs::canonical(path).string();
  while (std::getline(maps, line)) {
    if (line.size() < canonical.size() || line.compare(line.size() - canonical.size(), canonical.size(), canonical) != 0)
      continue;
    std::istringstream is(line);
    std::string range;
    is >> range;
    auto dash = range.find('-');
    out.emplace_back(std::stoull(range.substr(0, dash), nullptr, 16), std::stoull(range.substr(dash + 1), nullptr, 16));
  }
  return out;
}

TEST(HfEncoderWeights, Float32WeightsAreZeroCopyAndQkvFusedWhenAdjacent) {
  ScratchDir dir;
  json cfg = tiny_config("bert");
  write_folder(dir.path(), cfg, tiny_weights(cfg, true, 2), "", /*sorted=*/false);
  auto model = load(dir.path(), "BertModel");
  auto* hf = dynamic_cast<fmwork::hf::HfModel*>(model.get());
  ASSERT_NE(hf, nullptr);
  auto ranges = mappings_of(dir.file("model.safetensors"));
  ASSERT_FALSE(ranges.empty()) << "model.safetensors stays mapped";
  auto inside = [&](const at::Tensor& t) {
    auto p = reinterpret_cast<uintptr_t>(t.data_ptr());
    for (auto [b, e] : ranges)
      if (p >= b && p < e) return true;
    return false;
  };
  const auto& w = hf->encoder().weights();
  EXPECT_TRUE(inside(w.word));
  EXPECT_TRUE(inside(w.layers[1].ffn_out.weight));
  EXPECT_TRUE(hf->encoder().fused_qkv());
  EXPECT_TRUE(inside(w.layers[0].qkv.weight)) << "fused without a copy";
  EXPECT_NE(model->describe().find("zero-copy from the mapping, 0 converted"), std::string::npos) << model->describe();
  EXPECT_NE(model->describe().find("one fused"), std::string::npos);
  EXPECT_EQ(model->dtype_name(), "float32");
}

TEST(HfEncoderWeights, SortedFileKeepsQkvSeparateAndGivesTheSameOutputs) {
  ScratchDir dir;
  json cfg = tiny_config("bert");
  Weights w = tiny_weights(cfg, true, 2);
  write_folder(dir.file("sorted"), cfg, w, "", true);
  write_folder(dir.file("module"), cfg, w, "", false);
  auto a = load(dir.file("sorted"), "BertModel");
  auto b = load(dir.file("module"), "BertModel");
  EXPECT_FALSE(dynamic_cast<fmwork::hf::HfModel*>(a.get())->encoder().fused_qkv());
  Inputs in = tiny_inputs(0, true);
  auto ha = outputs(a->forward(Batch{in.ids, in.mask, in.types}));
  auto hb = outputs(b->forward(Batch{in.ids, in.mask, in.types}));
  EXPECT_LE(max_diff(ha.first, hb.first), 1e-5);
  EXPECT_LE(max_diff(ha.second, hb.second), 1e-5);
  EXPECT_EQ(a->parameter_count(), b->parameter_count());
  int64_t n = 0;
  for (const auto& [name, t] : w) n += t.numel();
  EXPECT_EQ(a->parameter_count(), n);
}

TEST(HfEncoderWeights, HeadsBuffersAndOldLayerNormNamesAreAccepted) {
  // As bert-base-uncased ships: bert.* with LayerNorm gamma/beta, cls.* heads, a position_ids buffer.
  ScratchDir dir;
  json cfg = tiny_config("bert");
  Weights w = tiny_weights(cfg, true, 4);
  Weights renamed;
  for (const auto& [n, t] : w) {
    std::string m = n;
    if (m.size() > 16 && m.compare(m.size() - 16, 16, "LayerNorm.weight") == 0) m = m.substr(0, m.size() - 6) + "gamma";
    if (m.size() > 14 && m.compare(m.size() - 14, 14, "LayerNorm.bias") == 0) m = m.substr(0, m.size() - 4) + "beta";
    renamed[m] = t;
  }
  Weights extra = {{"cls.predictions.bias", at::zeros({99})},
                   {"cls.predictions.transform.dense.weight", at::zeros({32, 32})},
                   {"cls.seq_relationship.weight", at::zeros({2, 32})},
                   {"bert.embeddings.position_ids", at::arange(40, at::kLong).view({1, 40})}};
  write_folder(dir.path(), cfg, renamed, "bert.", true, extra);
  auto model = load(dir.path(), "BertModel");
  Inputs in = tiny_inputs(0, true);
  auto [h, p] = outputs(model->forward(Batch{in.ids, in.mask, in.types}));
  EXPECT_LE(max_diff(h, reference(cfg, to_double(w), in.ids, in.mask, in.types).hidden), 1e-4);
  EXPECT_NE(model->describe().find("ignored"), std::string::npos) << model->describe();
}

TEST(HfEncoderWeights, ShardedCheckpoint) {
  ScratchDir dir;
  json cfg = tiny_config("bert");
  Weights w = tiny_weights(cfg, true, 9);
  fmwork::testing::write_file(dir.file("config.json"), cfg.dump());
  std::vector<std::pair<std::string, at::Tensor>> first, second;
  json map;
  for (const auto& [n, t] : w) {
    bool one = n.find("encoder.layer.1.") == std::string::npos;
    (one ? first : second).emplace_back(n, t);
    map[n] = one ? "model-00001-of-00002.safetensors" : "model-00002-of-00002.safetensors";
  }
  fmwork::hf::write_safetensors(dir.file("model-00001-of-00002.safetensors"), first);
  fmwork::hf::write_safetensors(dir.file("model-00002-of-00002.safetensors"), second);
  fmwork::testing::write_file(dir.file("model.safetensors.index.json"), json{{"weight_map", map}}.dump());
  auto model = load(dir.path(), "AutoModel");
  Inputs in = tiny_inputs(0, true);
  auto h = outputs(model->forward(Batch{in.ids, in.mask, in.types})).first;
  EXPECT_LE(max_diff(h, reference(cfg, to_double(w), in.ids, in.mask, in.types).hidden), 1e-4);
  EXPECT_NE(model->describe().find("2 shards"), std::string::npos);
}

TEST(HfEncoderWeights, MissingUnexpectedMisshapenAndDuplicateWeights) {
  ScratchDir dir;
  json cfg = tiny_config("bert");
  Weights w = tiny_weights(cfg, true, 1);

  Weights missing = w;
  missing.erase("encoder.layer.1.output.dense.bias");
  write_folder(dir.file("missing"), cfg, missing);
  auto m = error_of([&] { load(dir.file("missing"), "BertModel"); }, ErrorKind::runtime);
  EXPECT_NE(m.find("missing weights for BertModel: encoder.layer.1.output.dense.bias (1 in all)"), std::string::npos) << m;
  EXPECT_NE(m.find("model.safetensors"), std::string::npos) << m;

  Weights unexpected = w;
  unexpected["encoder.layer.2.output.dense.bias"] = at::zeros({32});
  unexpected["encoder.rel_embeddings.weight"] = at::zeros({4, 32});
  write_folder(dir.file("unexpected"), cfg, unexpected);
  m = error_of([&] { load(dir.file("unexpected"), "BertModel"); }, ErrorKind::runtime);
  EXPECT_NE(m.find("unexpected weights for BertModel: encoder.layer.2.output.dense.bias, encoder.rel_embeddings.weight (2 in all)"),
            std::string::npos)
      << m;

  Weights misshapen = w;
  misshapen["encoder.layer.0.attention.self.query.weight"] = at::zeros({32, 31});
  write_folder(dir.file("shape"), cfg, misshapen);
  m = error_of([&] { load(dir.file("shape"), "BertModel"); }, ErrorKind::runtime);
  EXPECT_NE(m.find("tensor encoder.layer.0.attention.self.query.weight has shape [32, 31], but"), std::string::npos) << m;
  EXPECT_NE(m.find("implies [32, 32]"), std::string::npos) << m;

  write_folder(dir.file("dup"), cfg, w, "", true, {{"bert.embeddings.word_embeddings.weight", w["embeddings.word_embeddings.weight"]}});
  m = error_of([&] { load(dir.file("dup"), "BertModel"); }, ErrorKind::runtime);
  EXPECT_NE(m.find("are both embeddings.word_embeddings.weight"), std::string::npos) << m;

  // A roberta checkpoint under a bert config: every name is unexpected, the message shows the expected form.
  write_folder(dir.file("prefix"), cfg, w, "roberta.");
  m = error_of([&] { load(dir.file("prefix"), "BertModel"); }, ErrorKind::runtime);
  EXPECT_NE(m.find("unexpected weights"), std::string::npos) << m;
  EXPECT_NE(m.find("with or without the prefix \"bert.\""), std::string::npos) << m;
}

TEST(HfEncoderWeights, Pooler) {
  ScratchDir dir;
  json cfg = tiny_config("bert");
  write_folder(dir.file("nopool"), cfg, tiny_weights(cfg, false, 1));
  Inputs in = tiny_inputs(0, true);
  Batch batch{in.ids, in.mask, in.types};
  // A checkpoint without a pooler runs without one, and says so.
  auto model = load(dir.file("nopool"), "BertModel");
  EXPECT_TRUE(model->forward(batch).isTensor());
  EXPECT_NE(model->describe().find("no pooler"), std::string::npos);
  // Asked for explicitly, it is missing.
  ModelOptions with;
  with.add_pooling_layer = true;
  auto m = error_of([&] { load(dir.file("nopool"), "BertModel", with); }, ErrorKind::runtime);
  EXPECT_NE(m.find("missing weights for BertModel: pooler.dense.weight, pooler.dense.bias"), std::string::npos) << m;
  EXPECT_NE(m.find("add_pooling_layer@ False"), std::string::npos) << m;
  // Dropped on request from a checkpoint that has it.
  write_folder(dir.file("pool"), cfg, tiny_weights(cfg, true, 1));
  EXPECT_TRUE(load(dir.file("pool"), "BertModel")->forward(batch).isTuple());
  ModelOptions without;
  without.add_pooling_layer = false;
  EXPECT_TRUE(load(dir.file("pool"), "BertModel", without)->forward(batch).isTensor());
  // DistilBERT has none.
  json dcfg = tiny_config("distilbert");
  write_folder(dir.file("distil"), dcfg, tiny_weights(dcfg, false, 1));
  error_of([&] { load(dir.file("distil"), "DistilBertModel", with); }, ErrorKind::usage);
}

// ---- folders, classes, options ----------------------------------------------------------------------------

TEST(HfEncoderFolders, UsageErrors) {
  ScratchDir dir;
  json cfg = tiny_config("bert");
  EXPECT_NE(error_of([&] { load(dir.file("nope"), "BertModel"); }, ErrorKind::usage).find("no such folder"), std::string::npos);
  fs::create_directories(dir.file("empty"));
  EXPECT_NE(error_of([&] { load(dir.file("empty"), "BertModel"); }, ErrorKind::usage).find("no config.json"), std::string::npos);

  // Only pytorch_model.bin: how to convert.
  fs::create_directories(dir.file("bin"));
  fmwork::testing::write_file(dir.file("bin/config.json"), cfg.dump());
  fmwork::testing::write_file(dir.file("bin/pytorch_model.bin"), "PK");
  auto m = error_of([&] { load(dir.file("bin"), "BertModel"); }, ErrorKind::usage);
  EXPECT_NE(m.find("has pytorch_model.bin but no model.safetensors"), std::string::npos) << m;
  EXPECT_NE(m.find("save_pretrained("), std::string::npos) << m;
  EXPECT_NE(m.find("safe_serialization=True"), std::string::npos) << m;

  // No weights at all: the opt-in.
  fs::create_directories(dir.file("config-only"));
  fmwork::testing::write_file(dir.file("config-only/config.json"), cfg.dump());
  m = error_of([&] { load(dir.file("config-only"), "BertModel"); }, ErrorKind::usage);
  EXPECT_NE(m.find("--model:random_weights@ True"), std::string::npos) << m;

  // Classes.
  m = error_of([&] { load(dir.file("config-only"), "BertForMaskedLM"); }, ErrorKind::usage);
  EXPECT_NE(m.find("use --model_class BertModel"), std::string::npos) << m;
  m = error_of([&] { load(dir.file("config-only"), "RobertaModel"); }, ErrorKind::usage);
  EXPECT_NE(m.find("does not match"), std::string::npos) << m;

  // Config problems reach the user with the file name.
  json rel = cfg;
  rel["position_embedding_type"] = "relative_key";
  fs::create_directories(dir.file("rel"));
  fmwork::testing::write_file(dir.file("rel/config.json"), rel.dump());
  m = error_of([&] { load(dir.file("rel"), "BertModel"); }, ErrorKind::usage);
  EXPECT_NE(m.find("rel/config.json: position_embedding_type \"relative_key\""), std::string::npos) << m;
  json unknown = cfg;
  unknown["model_type"] = "deberta-v2";
  fmwork::testing::write_file(dir.file("rel/config.json"), unknown.dump());
  m = error_of([&] { load(dir.file("rel"), "AutoModel"); }, ErrorKind::usage);
  EXPECT_NE(m.find("model_type \"deberta-v2\" is not supported"), std::string::npos) << m;
  json broken = cfg;
  broken.erase("num_attention_heads");
  fmwork::testing::write_file(dir.file("rel/config.json"), broken.dump());
  m = error_of([&] { load(dir.file("rel"), "BertModel"); }, ErrorKind::runtime);
  EXPECT_NE(m.find("missing field \"num_attention_heads\""), std::string::npos) << m;

  // Options.
  ModelOptions opt;
  opt.random_weights = true;
  opt.attn_implementation = "flash_attention_2";
  m = error_of([&] { load(dir.file("config-only"), "BertModel", opt); }, ErrorKind::usage);
  EXPECT_NE(m.find("--model:attn_implementation flash_attention_2"), std::string::npos) << m;
}

TEST(HfEncoderFolders, BrokenSafetensorsIsARuntimeErrorNamingTheFile) {
  ScratchDir dir;
  json cfg = tiny_config("bert");
  write_folder(dir.path(), cfg, tiny_weights(cfg, true, 1));
  std::string bytes = fmwork::testing::read_file(dir.file("model.safetensors"));
  fmwork::testing::write_file(dir.file("model.safetensors"), bytes.substr(0, bytes.size() / 2));
  auto m = error_of([&] { load(dir.path(), "BertModel"); }, ErrorKind::runtime);
  EXPECT_NE(m.find(dir.file("model.safetensors")), std::string::npos) << m;
}

TEST(HfEncoderRandom, OptInSeededAndLoud) {
  ScratchDir dir;
  json cfg = tiny_config("roberta");
  fmwork::testing::write_file(dir.file("config.json"), cfg.dump());
  ModelOptions opt;
  opt.random_weights = true;
  auto a = load(dir.path(), "RobertaModel", opt);
  auto b = load(dir.path(), "RobertaModel", opt);
  opt.random_weights_seed = 5;
  auto c = load(dir.path(), "RobertaModel", opt);
  EXPECT_NE(a->describe().find("RANDOM WEIGHTS"), std::string::npos) << a->describe();
  EXPECT_NE(a->describe().find("seed 0"), std::string::npos);
  EXPECT_NE(c->describe().find("seed 5"), std::string::npos);
  auto* hf = dynamic_cast<fmwork::hf::HfModel*>(c.get());
  ASSERT_NE(hf, nullptr);
  EXPECT_TRUE(hf->random_weights());
  EXPECT_EQ(hf->random_weights_seed(), 5u);
  EXPECT_TRUE(hf->encoder().fused_qkv()) << "random q/k/v are generated adjacent";
  Inputs in = tiny_inputs(1, false);
  Batch batch{in.ids, in.mask, in.types};
  auto ha = outputs(a->forward(batch)).first, hb = outputs(b->forward(batch)).first, hc = outputs(c->forward(batch)).first;
  EXPECT_TRUE(ha.equal(hb));
  EXPECT_FALSE(at::allclose(ha, hc));
  EXPECT_TRUE(at::isfinite(ha).all().item<bool>());
}

TEST(HfEncoderRandom, WriteRandomModelFolderThenLoadZeroCopy) {
  ScratchDir dir;
  json cfg = tiny_config("xlm-roberta");
  fmwork::testing::write_file(dir.file("config.json"), cfg.dump());
  fmwork::testing::write_file(dir.file("tokenizer_config.json"),
                              R"({"added_tokens_decoder": {"98": {"content": "<mask>", "special": true}}})");
  uint64_t bytes = fmwork::hf::write_random_model_folder(dir.file("config.json"), dir.file("out"), 3);
  EXPECT_EQ(bytes, fs::file_size(dir.file("out/model.safetensors")));
  EXPECT_TRUE(fs::exists(dir.file("out/tokenizer_config.json")));
  auto model = load(dir.file("out"), "XLMRobertaModel");
  EXPECT_EQ(model->describe().find("RANDOM"), std::string::npos);
  EXPECT_NE(model->describe().find("0 converted"), std::string::npos) << model->describe();
  EXPECT_TRUE(dynamic_cast<fmwork::hf::HfModel*>(model.get())->encoder().fused_qkv());
  auto facts = model->token_facts();
  EXPECT_EQ(facts.vocab_size, 99);
  EXPECT_EQ(facts.special_ids, (std::vector<int64_t>{1, 98}));
  // The same seed through the random path gives the same model.
  ModelOptions opt;
  opt.random_weights = true;
  opt.random_weights_seed = 3;
  auto random = load(dir.path(), "XLMRobertaModel", opt);
  Inputs in = tiny_inputs(1, false);
  Batch batch{in.ids, in.mask, in.types};
  EXPECT_TRUE(outputs(model->forward(batch)).first.equal(outputs(random->forward(batch)).first));
  // bfloat16 on disk, float32 at run time: converted.
  fmwork::hf::write_random_model_folder(dir.file("config.json"), dir.file("bf16"), 3, "bfloat16");
  auto converted = load(dir.file("bf16"), "XLMRobertaModel");
  EXPECT_EQ(converted->describe().find(" 0 converted"), std::string::npos) << converted->describe();
  EXPECT_LE(max_diff(outputs(converted->forward(batch)).first, outputs(model->forward(batch)).first), 0.1);
}

TEST(HfEncoderRandom, DistilBertSinusoidalTable) {
  ScratchDir dir;
  json cfg = tiny_config("distilbert");
  cfg["sinusoidal_pos_embds"] = true;
  fmwork::testing::write_file(dir.file("config.json"), cfg.dump());
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

TEST(HfEncoderDtypes, Bfloat16AndAutoLoadInBfloat16) {
  ScratchDir dir;
  json cfg = tiny_config("bert");
  cfg["torch_dtype"] = "bfloat16";
  write_folder(dir.path(), cfg, tiny_weights(cfg, true, 8));
  for (const char* d : {"bfloat16", "auto"}) {
    ModelOptions opt;
    opt.dtype = d;
    auto model = load(dir.path(), "BertModel", opt);
    EXPECT_EQ(model->dtype_name(), "bfloat16") << d;
    EXPECT_NE(model->describe().find("converted to bfloat16"), std::string::npos) << d;
  }
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
    ScratchDir dir;
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
        EXPECT_EQ(model->dtype_name(), tol.dtype);
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
  ScratchDir dir;
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
    const double tol = std::string(dtype) == "float32" ? 1e-5 : 0.05;
    for (const auto& batch : batches) {
      SCOPED_TRACE(std::string(dtype) + " batch " + std::to_string(batch.input_ids.size(0)));
      auto [he, pe] = outputs(eager->forward(batch));
      auto [hs, ps] = outputs(sdpa->forward(batch));
      EXPECT_LE(max_diff(hs, he), tol);
      EXPECT_LE(max_diff(ps, pe), tol);
    }
  }
}

// MKL packed GEMM (the CPU float32 default) against at::linear: the same outputs for the prepared shape,
// and a shape it was not prepared for still runs (on at::linear) and agrees too.
TEST(HfEncoderPackedGemm, SameOutputsAsAtLinear) {
  ScratchDir dir;
  json cfg = tiny_config("bert");
  write_folder(dir.path(), cfg, tiny_weights(cfg, true, 5));
  Inputs in = tiny_inputs(0, true);
  Batch batch{in.ids, in.mask, in.types};
  ModelOptions plain_opt;
  plain_opt.packed_gemm = false;
  auto plain = load(dir.path(), "BertModel", plain_opt);
  auto packed = load(dir.path(), "BertModel");
  EXPECT_NE(packed->describe().find("linear layers: MKL packed GEMM"), std::string::npos) << packed->describe();
  EXPECT_NE(plain->describe().find("linear layers: at::linear (--model:packed_gemm@ False)"), std::string::npos);
  auto [h0, p0] = outputs(plain->forward(batch));
  packed->prepare(2, 9);
  const auto& encoder = dynamic_cast<const fmwork::hf::HfModel&>(*packed).encoder();
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
  EXPECT_NE(load(dir.path(), "BertModel", bf16)->describe().find("at::linear (packed GEMM is for float32)"),
            std::string::npos);
}

TEST(HfEncoderDtypes, DescribeSaysWhichAttentionRan) {
  ScratchDir dir;
  json cfg = tiny_config("bert");
  write_folder(dir.path(), cfg, tiny_weights(cfg, true, 1));
  ModelOptions opt;
  opt.attn_implementation = "sdpa";
  auto d = load(dir.path(), "BertModel", opt)->describe();
  EXPECT_NE(d.find("attention: sdpa: at::scaled_dot_product_attention"), std::string::npos) << d;
  EXPECT_NE(load(dir.path(), "BertModel")->describe().find("attention: eager"), std::string::npos);
}

}  // namespace
