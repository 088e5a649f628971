// load_hf_model() (loaders/hf_model): a Hugging Face model folder's weights (names, zero-copy, q/k/v fusion,
// shards, pooler), folders, classes, options, random weights and errors, on the tiny models of
// tests/support/test_support.hpp. The encoder's arithmetic is tested in tests/encoders/bert_test.cpp.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "fmwork/base/error.hpp"
#include "fmwork/encoders/bert.hpp"
#include "fmwork/loaders/hf_model.hpp"
#include "fmwork/encoders/linear.hpp"
#include "fmwork/model/safetensors.hpp"
#include "fmwork/model/model.hpp"
#include "support/test_support.hpp"

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace fmwork::test_support::encoders;  // the tiny models; Batch, ErrorKind, ModelOptions, TempDir

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

TEST(HfModelWeights, Float32WeightsAreZeroCopyAndQkvFusedWhenAdjacent) {
  TempDir dir;
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
  const auto& w = dynamic_cast<const fmwork::hf::BertEncoder&>(hf->encoder()).weights();
  EXPECT_TRUE(inside(w.word));
  EXPECT_TRUE(inside(w.layers[1].ffn_out.weight));
  EXPECT_TRUE(hf->encoder().fused_qkv());
  EXPECT_TRUE(inside(w.layers[0].qkv.weight)) << "fused without a copy";
  EXPECT_NE(model->facts().description.find("zero-copy from the mapping, 0 converted"), std::string::npos) << model->facts().description;
  EXPECT_NE(model->facts().description.find("one fused"), std::string::npos);
  EXPECT_EQ(model->facts().dtype_name, "float32");
}

TEST(HfModelWeights, SortedFileKeepsQkvSeparateAndGivesTheSameOutputs) {
  TempDir dir;
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
  EXPECT_EQ(a->facts().parameter_count, b->facts().parameter_count);
  int64_t n = 0;
  for (const auto& [name, t] : w) n += t.numel();
  EXPECT_EQ(a->facts().parameter_count, n);
}

TEST(HfModelWeights, HeadsBuffersAndOldLayerNormNamesAreAccepted) {
  // As bert-base-uncased ships: bert.* with LayerNorm gamma/beta, cls.* heads, a position_ids buffer.
  TempDir dir;
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
  EXPECT_NE(model->facts().description.find("ignored"), std::string::npos) << model->facts().description;
}

TEST(HfModelWeights, ShardedCheckpoint) {
  TempDir dir;
  json cfg = tiny_config("bert");
  Weights w = tiny_weights(cfg, true, 9);
  fmwork::test_support::write_file(dir.file("config.json"), cfg.dump());
  std::vector<std::pair<std::string, at::Tensor>> first, second;
  json map;
  for (const auto& [n, t] : w) {
    bool one = n.find("encoder.layer.1.") == std::string::npos;
    (one ? first : second).emplace_back(n, t);
    map[n] = one ? "model-00001-of-00002.safetensors" : "model-00002-of-00002.safetensors";
  }
  fmwork::hf::write_safetensors(dir.file("model-00001-of-00002.safetensors"), first);
  fmwork::hf::write_safetensors(dir.file("model-00002-of-00002.safetensors"), second);
  fmwork::test_support::write_file(dir.file("model.safetensors.index.json"), json{{"weight_map", map}}.dump());
  auto model = load(dir.path(), "AutoModel");
  Inputs in = tiny_inputs(0, true);
  auto h = outputs(model->forward(Batch{in.ids, in.mask, in.types})).first;
  EXPECT_LE(max_diff(h, reference(cfg, to_double(w), in.ids, in.mask, in.types).hidden), 1e-4);
  EXPECT_NE(model->facts().description.find("2 shards"), std::string::npos);
}

TEST(HfModelWeights, MissingUnexpectedMisshapenAndDuplicateWeights) {
  TempDir dir;
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

TEST(HfModelWeights, Pooler) {
  TempDir dir;
  json cfg = tiny_config("bert");
  write_folder(dir.file("nopool"), cfg, tiny_weights(cfg, false, 1));
  Inputs in = tiny_inputs(0, true);
  Batch batch{in.ids, in.mask, in.types};
  // A checkpoint without a pooler runs without one, and says so.
  auto model = load(dir.file("nopool"), "BertModel");
  EXPECT_TRUE(model->forward(batch).isTensor());
  EXPECT_NE(model->facts().description.find("no pooler"), std::string::npos);
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

TEST(HfModelFolders, UsageErrors) {
  TempDir dir;
  json cfg = tiny_config("bert");
  EXPECT_NE(error_of([&] { load(dir.file("nope"), "BertModel"); }, ErrorKind::usage).find("no such folder"), std::string::npos);
  fs::create_directories(dir.file("empty"));
  EXPECT_NE(error_of([&] { load(dir.file("empty"), "BertModel"); }, ErrorKind::usage).find("no config.json"), std::string::npos);

  // Only pytorch_model.bin: how to convert.
  fs::create_directories(dir.file("bin"));
  fmwork::test_support::write_file(dir.file("bin/config.json"), cfg.dump());
  fmwork::test_support::write_file(dir.file("bin/pytorch_model.bin"), "PK");
  auto m = error_of([&] { load(dir.file("bin"), "BertModel"); }, ErrorKind::usage);
  EXPECT_NE(m.find("has pytorch_model.bin but no model.safetensors"), std::string::npos) << m;
  EXPECT_NE(m.find("save_pretrained("), std::string::npos) << m;
  EXPECT_NE(m.find("safe_serialization=True"), std::string::npos) << m;

  // No weights at all: the opt-in.
  fs::create_directories(dir.file("config-only"));
  fmwork::test_support::write_file(dir.file("config-only/config.json"), cfg.dump());
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
  fmwork::test_support::write_file(dir.file("rel/config.json"), rel.dump());
  m = error_of([&] { load(dir.file("rel"), "BertModel"); }, ErrorKind::usage);
  EXPECT_NE(m.find("rel/config.json: position_embedding_type \"relative_key\""), std::string::npos) << m;
  json unknown = cfg;
  unknown["model_type"] = "deberta-v2";
  fmwork::test_support::write_file(dir.file("rel/config.json"), unknown.dump());
  m = error_of([&] { load(dir.file("rel"), "AutoModel"); }, ErrorKind::usage);
  EXPECT_NE(m.find("model_type \"deberta-v2\" has no native encoder"), std::string::npos) << m;
  EXPECT_NE(m.find("add --compile to run it ahead of time through transformers' own class"), std::string::npos) << m;
  json broken = cfg;
  broken.erase("num_attention_heads");
  fmwork::test_support::write_file(dir.file("rel/config.json"), broken.dump());
  m = error_of([&] { load(dir.file("rel"), "BertModel"); }, ErrorKind::runtime);
  EXPECT_NE(m.find("missing field \"num_attention_heads\""), std::string::npos) << m;

  // Options.
  ModelOptions opt;
  opt.random_weights = true;
  opt.attn_implementation = "flash_attention_2";
  m = error_of([&] { load(dir.file("config-only"), "BertModel", opt); }, ErrorKind::usage);
  EXPECT_NE(m.find("--model:attn_implementation flash_attention_2"), std::string::npos) << m;
}

TEST(HfModelFolders, BrokenSafetensorsIsARuntimeErrorNamingTheFile) {
  TempDir dir;
  json cfg = tiny_config("bert");
  write_folder(dir.path(), cfg, tiny_weights(cfg, true, 1));
  std::string bytes = fmwork::test_support::read_file(dir.file("model.safetensors"));
  fmwork::test_support::write_file(dir.file("model.safetensors"), bytes.substr(0, bytes.size() / 2));
  auto m = error_of([&] { load(dir.path(), "BertModel"); }, ErrorKind::runtime);
  EXPECT_NE(m.find(dir.file("model.safetensors")), std::string::npos) << m;
}

// ---- random weights ---------------------------------------------------------------------------------------

TEST(HfModelRandom, OptInSeededAndLoud) {
  TempDir dir;
  json cfg = tiny_config("roberta");
  fmwork::test_support::write_file(dir.file("config.json"), cfg.dump());
  ModelOptions opt;
  opt.random_weights = true;
  auto a = load(dir.path(), "RobertaModel", opt);
  auto b = load(dir.path(), "RobertaModel", opt);
  opt.random_weights_seed = 5;
  auto c = load(dir.path(), "RobertaModel", opt);
  EXPECT_NE(a->facts().description.find("RANDOM WEIGHTS"), std::string::npos) << a->facts().description;
  EXPECT_NE(a->facts().description.find("seed 0"), std::string::npos);
  EXPECT_NE(c->facts().description.find("seed 5"), std::string::npos);
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

TEST(HfModelRandom, WriteRandomModelFolderThenLoadZeroCopy) {
  TempDir dir;
  json cfg = tiny_config("xlm-roberta");
  fmwork::test_support::write_file(dir.file("config.json"), cfg.dump());
  fmwork::test_support::write_file(dir.file("tokenizer_config.json"),
                              R"({"added_tokens_decoder": {"98": {"content": "<mask>", "special": true}}})");
  uint64_t bytes = fmwork::hf::write_random_model_folder(dir.file("config.json"), dir.file("out"), 3);
  EXPECT_EQ(bytes, fs::file_size(dir.file("out/model.safetensors")));
  EXPECT_TRUE(fs::exists(dir.file("out/tokenizer_config.json")));
  auto model = load(dir.file("out"), "XLMRobertaModel");
  EXPECT_EQ(model->facts().description.find("RANDOM"), std::string::npos);
  EXPECT_NE(model->facts().description.find("0 converted"), std::string::npos) << model->facts().description;
  EXPECT_TRUE(dynamic_cast<fmwork::hf::HfModel*>(model.get())->encoder().fused_qkv());
  auto facts = model->facts().tokens;
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
  EXPECT_EQ(converted->facts().description.find(" 0 converted"), std::string::npos) << converted->facts().description;
  EXPECT_LE(max_diff(outputs(converted->forward(batch)).first, outputs(model->forward(batch)).first), 0.1);
}

// ---- dtype and attention options ---------------------------------------------------------------------------

TEST(HfModelOptions, Bfloat16AndAutoLoadInBfloat16) {
  TempDir dir;
  json cfg = tiny_config("bert");
  cfg["torch_dtype"] = "bfloat16";
  write_folder(dir.path(), cfg, tiny_weights(cfg, true, 8));
  for (const char* d : {"bfloat16", "auto"}) {
    ModelOptions opt;
    opt.dtype = d;
    auto model = load(dir.path(), "BertModel", opt);
    EXPECT_EQ(model->facts().dtype_name, "bfloat16") << d;
    EXPECT_NE(model->facts().description.find("converted to bfloat16"), std::string::npos) << d;
  }
}

TEST(HfModelOptions, DescribeSaysWhichAttentionRan) {
  TempDir dir;
  json cfg = tiny_config("bert");
  write_folder(dir.path(), cfg, tiny_weights(cfg, true, 1));
  ModelOptions opt;
  opt.attn_implementation = "eager";
  const std::string eager = load(dir.path(), "BertModel", opt)->facts().description;
  EXPECT_NE(eager.find("attention: eager: softmax"), std::string::npos) << eager;
  EXPECT_NE(eager.find("attention chosen: eager (--model:attn_implementation)\n"), std::string::npos) << eager;
  // Not given: transformers' default, sdpa, and the MODEL section says so.
  const std::string by_default = load(dir.path(), "BertModel")->facts().description;
  EXPECT_NE(by_default.find("attention: sdpa: at::scaled_dot_product_attention"), std::string::npos) << by_default;
  EXPECT_NE(by_default.find("attention chosen: sdpa (--model:attn_implementation not given: transformers' default; "
                            "eager on request)\n"),
            std::string::npos)
      << by_default;
}

// MKL's packed copy of the linear weights is named in MODEL with its size where it is made (float32 on the
// CPU with packing on), and nowhere else.
TEST(HfModelOptions, DescribeNamesThePackedCopyAndItsSize) {
  TempDir dir;
  json cfg = tiny_config("bert");
  write_folder(dir.path(), cfg, tiny_weights(cfg, true, 1));
  ModelOptions on;
  on.packed_gemm = true;
  const std::string packed = load(dir.path(), "BertModel", on)->facts().description;
  if (fmwork::hf::mkl_packed_gemm_available())
    EXPECT_NE(packed.find("packed copy: about "), std::string::npos) << packed;
  else
    EXPECT_EQ(packed.find("packed copy:"), std::string::npos) << packed;
  ModelOptions off;
  off.packed_gemm = false;
  const std::string plain = load(dir.path(), "BertModel", off)->facts().description;
  EXPECT_EQ(plain.find("packed copy:"), std::string::npos) << plain;
}

// ---- --model_class and --model:dtype ----

TEST(HfModelClass, AgreesWithModelType) {
  fmwork::hf::EncoderConfig bert = fmwork::hf::parse_config(tiny_config("bert"), "config.json");
  EXPECT_NO_THROW(fmwork::hf::check_model_class("BertModel", bert));
  EXPECT_NO_THROW(fmwork::hf::check_model_class("AutoModel", bert));
  fmwork::hf::EncoderConfig roberta = fmwork::hf::parse_config(tiny_config("roberta"), "config.json");
  try {
    fmwork::hf::check_model_class("BertModel", roberta);
    FAIL();
  } catch (const fmwork::Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    std::string m = e.what();
    EXPECT_NE(m.find("--model_class BertModel does not match"), std::string::npos) << m;
    EXPECT_NE(m.find("model_type \"roberta\""), std::string::npos) << m;
    EXPECT_NE(m.find("RobertaModel"), std::string::npos) << m;
  }
}

TEST(HfModelClass, HeadAndUnknownClasses) {
  fmwork::hf::EncoderConfig bert = fmwork::hf::parse_config(tiny_config("bert"), "config.json");
  auto message = [&](const std::string& cls) {
    try {
      fmwork::hf::check_model_class(cls, bert);
    } catch (const fmwork::Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::usage);
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("BertForMaskedLM").find("task-head class; the native encoder runs base models: use --model_class BertModel"),
            std::string::npos);
  EXPECT_NE(message("XLMRobertaForSequenceClassification").find("use --model_class XLMRobertaModel"), std::string::npos);
  EXPECT_NE(message("AutoModelForMaskedLM").find("use --model_class AutoModel"), std::string::npos);
  EXPECT_NE(message("BertLMHeadModel").find("task-head"), std::string::npos);
  const std::string gpt2 = message("GPT2Model");
  EXPECT_NE(gpt2.find("--model_class GPT2Model has no native encoder (native: BertModel, RobertaModel"),
            std::string::npos) << gpt2;
  EXPECT_NE(gpt2.find("ModernBertModel, Qwen3Model, and AutoModel on model_type"), std::string::npos) << gpt2;
  EXPECT_NE(gpt2.find("add --compile"), std::string::npos) << gpt2;
  EXPECT_NE(message("Qwen3ForCausalLM").find("use --model_class Qwen3Model"), std::string::npos);
}

TEST(HfModelDtype, Resolve) {
  fmwork::hf::EncoderConfig c = fmwork::hf::parse_config(tiny_config("bert"), "config.json");
  using fmwork::hf::resolve_dtype;
  EXPECT_EQ(resolve_dtype(std::nullopt, c), at::kFloat);
  EXPECT_EQ(resolve_dtype(std::string("bfloat16"), c), at::kBFloat16);
  EXPECT_EQ(resolve_dtype(std::string("torch.float16"), c), at::kHalf);
  EXPECT_EQ(resolve_dtype(std::string("auto"), c), at::kFloat);
  c.torch_dtype = "bfloat16";
  EXPECT_EQ(resolve_dtype(std::string("auto"), c), at::kBFloat16);
  c.torch_dtype.reset();
  EXPECT_EQ(resolve_dtype(std::string("auto"), c), at::kFloat);
  c.torch_dtype = "float64";
  EXPECT_THROW(resolve_dtype(std::string("auto"), c), fmwork::Error);
  EXPECT_THROW(resolve_dtype(std::string("int8"), c), fmwork::Error);
}

}  // namespace
