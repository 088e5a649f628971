// config.json of the rotary families (hf/rotary_configs): ModernBERT and Qwen3 in the layouts transformers 4
// wrote and 5 writes, their defaults, the layer pattern, and each refusal naming its field. The shipped
// configs of both families are pinned at the end.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "fmwork/base/error.hpp"
#include "fmwork/hf/config.hpp"
#include "fmwork/hf/special_tokens.hpp"

namespace {

using fmwork::Error;
using fmwork::ErrorKind;
using fmwork::hf::EncoderConfig;
using fmwork::hf::Family;
using fmwork::hf::LayerAttention;
using fmwork::hf::parse_config;
using json = nlohmann::json;

json modernbert_json() {
  return json::parse(R"({"model_type": "modernbert", "hidden_size": 48, "num_hidden_layers": 7,
    "num_attention_heads": 4, "intermediate_size": 40, "vocab_size": 99, "max_position_embeddings": 64,
    "pad_token_id": 0})");
}

json qwen3_json() {
  return json::parse(R"({"model_type": "qwen3", "hidden_size": 32, "num_hidden_layers": 3,
    "num_attention_heads": 6, "num_key_value_heads": 2, "head_dim": 10, "intermediate_size": 37,
    "vocab_size": 99, "max_position_embeddings": 64})");
}

// The layer pattern as a string, F for full and S for sliding: what the MODEL section prints.
std::string pattern(const EncoderConfig& c) {
  std::string out;
  for (LayerAttention a : c.layer_types) out += a == LayerAttention::full ? 'F' : 'S';
  return out;
}

// The one-line message of the Error parse_config throws for `j`, checked to be of `kind`.
std::string rotary_config_error(const json& j, ErrorKind kind) {
  try {
    parse_config(j, "m/config.json");
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    const std::string m = e.what();
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    EXPECT_EQ(m.rfind("m/config.json: ", 0), 0u) << "names the file first: " << m;
    return m;
  }
  ADD_FAILURE() << "no error for " << j.dump();
  return "";
}

TEST(RotaryConfigs, ModernBertDefaultsAsTransformers) {
  const EncoderConfig c = parse_config(modernbert_json(), "config.json");
  EXPECT_EQ(c.family, Family::modernbert);
  EXPECT_EQ(c.base_class(), "ModernBertModel");
  EXPECT_EQ(c.weight_prefix(), "model.");
  EXPECT_EQ(c.hidden_act, "gelu");
  EXPECT_DOUBLE_EQ(c.layer_norm_eps, 1e-5);
  EXPECT_FALSE(c.norm_bias);
  EXPECT_FALSE(c.attention_bias);
  EXPECT_FALSE(c.mlp_bias);
  EXPECT_FALSE(c.causal);
  // global_attn_every_n_layers 3: layers 0, 3, 6 global; local_attention 128 is +-64 tokens.
  EXPECT_EQ(pattern(c), "FSSFSSF");
  EXPECT_EQ(c.sliding_window, 64);
  EXPECT_DOUBLE_EQ(c.rope_theta, 160000.0);
  EXPECT_DOUBLE_EQ(c.local_rope_theta, 10000.0);
  EXPECT_EQ(c.head_dim(), 12);
  EXPECT_EQ(c.kv_heads(), 4);
  EXPECT_EQ(c.type_vocab_size, 0);
  EXPECT_EQ(c.max_input_size(), 64);
}

TEST(RotaryConfigs, ModernBertTransformers4Fields) {
  json j = modernbert_json();
  j["global_attn_every_n_layers"] = 2;
  j["local_attention"] = 9;  // odd: the half window rounds down, as config.sliding_window
  j["global_rope_theta"] = 1234.5;
  j["local_rope_theta"] = 333.0;
  j["norm_eps"] = 1e-3;
  j["norm_bias"] = true;
  j["hidden_activation"] = "silu";
  const EncoderConfig c = parse_config(j, "config.json");
  EXPECT_EQ(pattern(c), "FSFSFSF");
  EXPECT_EQ(c.sliding_window, 4);
  EXPECT_DOUBLE_EQ(c.rope_theta, 1234.5);
  EXPECT_DOUBLE_EQ(c.local_rope_theta, 333.0);
  EXPECT_DOUBLE_EQ(c.layer_norm_eps, 1e-3);
  EXPECT_TRUE(c.norm_bias);
  EXPECT_EQ(c.hidden_act, "silu");
}

TEST(RotaryConfigs, ModernBertTransformers5LayerTypesAndRopeParameters) {
  json j = modernbert_json();
  j["num_hidden_layers"] = 3;
  j["layer_types"] = {"sliding_attention", "full_attention", "sliding_attention"};
  j["rope_parameters"] = {{"full_attention", {{"rope_type", "default"}, {"rope_theta", 80000.0}}},
                          {"sliding_attention", {{"rope_type", "default"}, {"rope_theta", 500.0}}}};
  const EncoderConfig c = parse_config(j, "config.json");
  EXPECT_EQ(pattern(c), "SFS") << "layer_types wins over global_attn_every_n_layers";
  EXPECT_DOUBLE_EQ(c.rope_theta, 80000.0);
  EXPECT_DOUBLE_EQ(c.local_rope_theta, 500.0);
}

TEST(RotaryConfigs, Qwen3GroupsWindowsAndDefaults) {
  EncoderConfig c = parse_config(qwen3_json(), "config.json");
  EXPECT_EQ(c.family, Family::qwen3);
  EXPECT_EQ(c.base_class(), "Qwen3Model");
  EXPECT_TRUE(c.causal);
  EXPECT_EQ(c.kv_heads(), 2);
  EXPECT_EQ(c.head_dim(), 10) << "head_dim need not be hidden / heads";
  EXPECT_EQ(c.hidden_act, "silu");
  EXPECT_DOUBLE_EQ(c.layer_norm_eps, 1e-6);
  EXPECT_DOUBLE_EQ(c.rope_theta, 10000.0);
  EXPECT_EQ(pattern(c), "FFF") << "no window unless use_sliding_window";
  EXPECT_FALSE(c.sliding_window.has_value());

  json j = qwen3_json();
  j.erase("head_dim");
  j["use_sliding_window"] = true;
  j["sliding_window"] = 5;
  j["max_window_layers"] = 1;
  j["rope_theta"] = 777.0;
  c = parse_config(j, "config.json");
  EXPECT_EQ(c.head_dim(), 128) << "Qwen3Config's default head_dim, not hidden / heads";
  EXPECT_EQ(pattern(c), "FSS") << "layers from max_window_layers on slide";
  EXPECT_EQ(c.sliding_window, 5);
  EXPECT_DOUBLE_EQ(c.rope_theta, 777.0);

  j["rope_parameters"] = {{"rope_type", "default"}, {"rope_theta", 5e6}};
  EXPECT_DOUBLE_EQ(parse_config(j, "config.json").rope_theta, 5e6) << "rope_parameters wins (transformers 5)";
}

// The ends of every window, ratio and count, as transformers takes them. local_attention 0 and 1 were read as
// "no window" (0), so nothing was masked where transformers leaves each token only itself.
TEST(RotaryConfigs, WindowAndCountEndsAsTransformers) {
  json j = modernbert_json();
  for (const int64_t local : {0, 1, 2, 3}) {
    j["local_attention"] = local;
    const EncoderConfig c = parse_config(j, "config.json");
    ASSERT_TRUE(c.sliding_window.has_value()) << local << ": a window of +-0 is a window (each token itself)";
    EXPECT_EQ(*c.sliding_window, local / 2) << local;
  }
  j = modernbert_json();
  j["global_attn_every_n_layers"] = 1;
  EXPECT_EQ(pattern(parse_config(j, "config.json")), "FFFFFFF") << "every layer global";
  j["global_attn_every_n_layers"] = 5000;  // past the layer count (and kMaxLayers): layer 0 alone global
  EXPECT_EQ(pattern(parse_config(j, "config.json")), "FSSSSSS");
  j["global_attn_every_n_layers"] = 0;  // transformers: ZeroDivisionError
  j["layer_types"] = json::array();
  for (int i = 0; i < 7; ++i) j["layer_types"].push_back(i % 2 ? "sliding_attention" : "full_attention");
  EXPECT_EQ(pattern(parse_config(j, "config.json")), "FSFSFSF") << "layer_types given: n is not read, as transformers";

  j = qwen3_json();
  j["use_sliding_window"] = true;
  j["sliding_window"] = 1;  // each token itself alone
  j["max_window_layers"] = 0;
  EncoderConfig c = parse_config(j, "config.json");
  EXPECT_EQ(pattern(c), "SSS") << "max_window_layers 0: every layer slides";
  EXPECT_EQ(c.sliding_window, 1);
  j["max_window_layers"] = 3;
  c = parse_config(j, "config.json");
  EXPECT_EQ(pattern(c), "FFF") << "from the layer count on: none slides";
  EXPECT_FALSE(c.sliding_window.has_value());
  j["max_window_layers"] = 100000;
  EXPECT_EQ(pattern(parse_config(j, "config.json")), "FFF");
  j["sliding_window"] = nullptr;  // Qwen3Config: no window, so no layer slides
  j["max_window_layers"] = 0;
  EXPECT_EQ(pattern(parse_config(j, "config.json")), "FFF");
  j = qwen3_json();
  j["max_window_layers"] = nullptr;  // read only with a window, as transformers
  EXPECT_EQ(pattern(parse_config(j, "config.json")), "FFF");
}

TEST(RotaryConfigs, WindowAndCountEndsTransformersCannotRunAreRefused) {
  json j = modernbert_json();
  j["global_attn_every_n_layers"] = 0;
  EXPECT_NE(rotary_config_error(j, ErrorKind::runtime).find("global_attn_every_n_layers (0) must be at least 1"),
            std::string::npos);
  j["global_attn_every_n_layers"] = nullptr;
  EXPECT_NE(rotary_config_error(j, ErrorKind::runtime).find("global_attn_every_n_layers is null"), std::string::npos);
  j = modernbert_json();
  j["local_attention"] = nullptr;  // transformers: None // 2
  EXPECT_NE(rotary_config_error(j, ErrorKind::runtime).find("local_attention is null"), std::string::npos);
  j["local_attention"] = -2;
  EXPECT_NE(rotary_config_error(j, ErrorKind::runtime).find("local_attention (-2)"), std::string::npos);
  j = qwen3_json();
  j["use_sliding_window"] = true;
  j["sliding_window"] = 0;  // every query would see no key at all
  EXPECT_NE(rotary_config_error(j, ErrorKind::runtime).find("sliding_window (0) must be at least 1"), std::string::npos);
  j["sliding_window"] = 4;
  j["max_window_layers"] = nullptr;
  EXPECT_NE(rotary_config_error(j, ErrorKind::runtime).find("max_window_layers is null"), std::string::npos);
}

TEST(RotaryConfigs, RefusedInOneLineNamingTheField) {
  json j = modernbert_json();
  j["rope_scaling"] = {{"rope_type", "yarn"}, {"factor", 4.0}};
  EXPECT_NE(rotary_config_error(j, ErrorKind::usage).find("rope_scaling.rope_type \"yarn\" is not supported"), std::string::npos);

  j = modernbert_json();
  j["rope_parameters"] = {{"full_attention", {{"rope_type", "linear"}, {"factor", 2.0}}}};
  EXPECT_NE(rotary_config_error(j, ErrorKind::usage).find("rope_parameters.full_attention.rope_type \"linear\""),
            std::string::npos);

  j = modernbert_json();
  j["layer_types"] = {"full_attention", "chunked_attention", "full_attention", "full_attention", "full_attention",
                      "full_attention", "full_attention"};
  EXPECT_NE(rotary_config_error(j, ErrorKind::usage).find("layer_types[1] \"chunked_attention\""), std::string::npos);

  j["layer_types"] = {"full_attention"};
  EXPECT_NE(rotary_config_error(j, ErrorKind::runtime).find("layer_types must be a list of 7 entries"), std::string::npos);

  j = modernbert_json();
  j["num_attention_heads"] = 16;  // 48 / 16 = 3: an odd head size has no pairs to turn
  EXPECT_NE(rotary_config_error(j, ErrorKind::runtime).find("must be even"), std::string::npos);

  j = qwen3_json();
  j["num_key_value_heads"] = 4;
  EXPECT_NE(rotary_config_error(j, ErrorKind::runtime).find("num_key_value_heads (4) must divide num_attention_heads (6)"),
            std::string::npos);

  j = qwen3_json();
  j["layer_types"] = {"full_attention", "sliding_attention", "full_attention"};
  EXPECT_NE(rotary_config_error(j, ErrorKind::runtime).find("no window is set"), std::string::npos);

  j = qwen3_json();
  j["rope_parameters"] = {{"rope_type", "dynamic"}, {"rope_theta", 1e6}};
  EXPECT_NE(rotary_config_error(j, ErrorKind::usage).find("rope_parameters.rope_type \"dynamic\""), std::string::npos);

  j = qwen3_json();
  j["rope_theta"] = -1.0;
  EXPECT_NE(rotary_config_error(j, ErrorKind::runtime).find("rope_theta"), std::string::npos);

  // Values transformers refuses, or runs to NaN everywhere: refused naming the field.
  for (const double theta : {1e-300, 0.5, 1.0}) {
    j = qwen3_json();
    j["rope_theta"] = theta;
    EXPECT_NE(rotary_config_error(j, ErrorKind::runtime).find("rope_theta"), std::string::npos) << theta;
  }
  j = qwen3_json();
  j["head_dim"] = nullptr;
  EXPECT_NE(rotary_config_error(j, ErrorKind::runtime).find("head_dim must be an integer"), std::string::npos);
  j = modernbert_json();
  j["rope_parameters"] = {{"rope_type", "default"}, {"rope_theta", 5000.0}};
  EXPECT_NE(rotary_config_error(j, ErrorKind::runtime).find("rope_parameters.rope_type: ModernBERT's rope_parameters holds "
                                                     "one entry per attention kind"),
            std::string::npos);
}

// The shipped architectures of both families (configs/models, sources in its README).
TEST(RotaryConfigs, ShippedFoldersParseAsPublished) {
  const std::string root = std::string(FMWORK_SOURCE_DIR) + "/configs/models/";
  const EncoderConfig r2 = fmwork::hf::load_config(root + "granite-embedding-english-r2/config.json");
  EXPECT_EQ(r2.family, Family::modernbert);
  EXPECT_EQ(r2.hidden_size, 768);
  EXPECT_EQ(r2.num_hidden_layers, 22);
  EXPECT_EQ(r2.intermediate_size, 1152);
  EXPECT_EQ(r2.vocab_size, 50368);
  EXPECT_EQ(pattern(r2), "FSSFSSFSSFSSFSSFSSFSSF");
  EXPECT_EQ(r2.sliding_window, 64);
  EXPECT_DOUBLE_EQ(r2.rope_theta, 80000.0);
  EXPECT_DOUBLE_EQ(r2.local_rope_theta, 10000.0);
  EXPECT_EQ(r2.max_input_size(), 8192);
  EXPECT_EQ(r2.pad_token_id, 50283);

  const EncoderConfig small = fmwork::hf::load_config(root + "granite-embedding-small-english-r2/config.json");
  EXPECT_EQ(small.hidden_size, 384);
  EXPECT_EQ(small.num_hidden_layers, 12);
  EXPECT_EQ(small.intermediate_size, 1536);

  const EncoderConfig qwen = fmwork::hf::load_config(root + "Qwen3-Embedding-0.6B/config.json");
  EXPECT_EQ(qwen.family, Family::qwen3);
  EXPECT_EQ(qwen.hidden_size, 1024);
  EXPECT_EQ(qwen.num_hidden_layers, 28);
  EXPECT_EQ(qwen.num_attention_heads, 16);
  EXPECT_EQ(qwen.kv_heads(), 8);
  EXPECT_EQ(qwen.head_dim(), 128);
  EXPECT_EQ(qwen.intermediate_size, 3072);
  EXPECT_EQ(qwen.vocab_size, 151669);
  EXPECT_DOUBLE_EQ(qwen.rope_theta, 1000000.0);
  EXPECT_EQ(pattern(qwen), std::string(28, 'F'));
  const auto special = fmwork::hf::read_special_tokens(root + "Qwen3-Embedding-0.6B", qwen).ids;
  EXPECT_FALSE(special.empty());
  EXPECT_EQ(special.front(), 151643) << "<|endoftext|>, the pad and eos token";
}

}  // namespace
