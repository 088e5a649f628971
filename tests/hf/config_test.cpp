// config.json parsing (hf/config), and the shipped configs/models with their special tokens.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "fmwork/base/error.hpp"
#include "fmwork/hf/config.hpp"
#include "fmwork/hf/special_tokens.hpp"
#include "support/temp_dir.hpp"

namespace {

using fmwork::Error;
using fmwork::ErrorKind;
using fmwork::hf::Activation;
using fmwork::hf::activation_of;
using fmwork::hf::EncoderConfig;
using fmwork::hf::Family;
using fmwork::hf::parse_config;
using fmwork::hf::supported_activations;
using json = nlohmann::json;

json bert_json() {
  return json::parse(R"({
    "architectures": ["BertForMaskedLM"], "model_type": "bert", "hidden_size": 768, "num_hidden_layers": 12,
    "num_attention_heads": 12, "intermediate_size": 3072, "hidden_act": "gelu", "layer_norm_eps": 1e-12,
    "max_position_embeddings": 512, "type_vocab_size": 2, "vocab_size": 30522, "pad_token_id": 0,
    "position_embedding_type": "absolute", "torch_dtype": "float32"})");
}

// The message of the Error parse_config throws for `j`, checked to be of `kind` and one line.
std::string config_error(const json& j, ErrorKind kind = ErrorKind::runtime) {
  try {
    parse_config(j, "m/config.json");
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    std::string m = e.what();
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    EXPECT_EQ(m.rfind("m/config.json: ", 0), 0u) << "names the file first: " << m;
    return m;
  }
  ADD_FAILURE() << "no error for " << j.dump();
  return "";
}

TEST(HfConfig, Bert) {
  EncoderConfig c = parse_config(bert_json(), "config.json");
  EXPECT_EQ(c.family, Family::bert);
  EXPECT_EQ(c.hidden_size, 768);
  EXPECT_EQ(c.num_hidden_layers, 12);
  EXPECT_EQ(c.head_dim(), 64);
  EXPECT_EQ(c.type_vocab_size, 2);
  EXPECT_EQ(c.pad_token_id, 0);
  EXPECT_EQ(c.max_input_size(), 512);
  EXPECT_EQ(c.torch_dtype, "float32");
  EXPECT_EQ(c.weight_prefix(), "bert.");
  EXPECT_EQ(c.base_class(), "BertModel");
  EXPECT_EQ(c.architectures, std::vector<std::string>{"BertForMaskedLM"});
}

TEST(HfConfig, RobertaAndXlmRoberta) {
  json j = bert_json();
  j["model_type"] = "roberta";
  j["max_position_embeddings"] = 514;
  j["type_vocab_size"] = 1;
  j["pad_token_id"] = 1;
  EncoderConfig c = parse_config(j, "config.json");
  EXPECT_EQ(c.family, Family::roberta);
  EXPECT_EQ(c.max_input_size(), 512);
  EXPECT_EQ(c.weight_prefix(), "roberta.");
  j["model_type"] = "xlm-roberta";
  j.erase("pad_token_id");  // the config class default is 1
  c = parse_config(j, "config.json");
  EXPECT_EQ(c.pad_token_id, 1);
  EXPECT_EQ(c.base_class(), "XLMRobertaModel");
  EXPECT_EQ(c.weight_prefix(), "roberta.");
}

TEST(HfConfig, DistilBertNames) {
  json j = json::parse(R"({"model_type": "distilbert", "dim": 768, "n_layers": 6, "n_heads": 12,
    "hidden_dim": 3072, "activation": "gelu", "vocab_size": 30522, "max_position_embeddings": 512,
    "sinusoidal_pos_embds": false, "pad_token_id": 0})");
  EncoderConfig c = parse_config(j, "config.json");
  EXPECT_EQ(c.family, Family::distilbert);
  EXPECT_EQ(c.hidden_size, 768);
  EXPECT_EQ(c.num_hidden_layers, 6);
  EXPECT_EQ(c.num_attention_heads, 12);
  EXPECT_EQ(c.intermediate_size, 3072);
  EXPECT_EQ(c.type_vocab_size, 0);
  EXPECT_DOUBLE_EQ(c.layer_norm_eps, 1e-12);
  j.erase("n_heads");
  EXPECT_NE(config_error(j).find("missing field \"n_heads\""), std::string::npos);
}

TEST(HfConfig, HeadsMustDivideHidden) {
  json j = bert_json();
  j["hidden_size"] = 770;
  EXPECT_EQ(config_error(j), "m/config.json: num_attention_heads (12) must divide hidden_size (770)");
}

TEST(HfConfig, MissingFieldsAreNamed) {
  for (const char* key : {"model_type", "hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size",
                          "vocab_size", "max_position_embeddings", "type_vocab_size"}) {
    json j = bert_json();
    j.erase(key);
    auto m = config_error(j);
    EXPECT_NE(m.find(std::string("missing field \"") + key + "\""), std::string::npos) << m;
  }
}

TEST(HfConfig, WrongTypesAndRanges) {
  struct Case {
    const char* key;
    json value;
    const char* expect;
  } cases[] = {
      {"hidden_size", "768", "hidden_size must be an integer, not \"768\""},
      {"hidden_size", 768.0, "hidden_size must be an integer"},
      {"hidden_size", 0, "hidden_size (0) must be between 1 and 65536"},
      {"num_hidden_layers", -1, "num_hidden_layers (-1) must be between 1"},
      {"vocab_size", 1ll << 40, "vocab_size (1099511627776) must be between 1 and 16777216"},
      {"layer_norm_eps", 0, "layer_norm_eps (0) must be greater than 0"},
      {"layer_norm_eps", "small", "layer_norm_eps must be a number"},
      {"pad_token_id", 40000, "pad_token_id (40000) must be less than vocab_size (30522)"},
      {"torch_dtype", "int8", "torch_dtype \"int8\" is not a floating dtype"},
      {"architectures", "BertModel", "architectures must be a list"},
  };
  for (const auto& c : cases) {
    json j = bert_json();
    j[c.key] = c.value;
    auto m = config_error(j);
    EXPECT_NE(m.find(c.expect), std::string::npos) << c.key << ": " << m;
  }
}

TEST(HfConfig, UnsupportedFeaturesAreUsageErrors) {
  json j = bert_json();
  j["model_type"] = "gpt2";
  EXPECT_NE(config_error(j, ErrorKind::usage).find("model_type \"gpt2\" is not supported"), std::string::npos);
  j = bert_json();
  j["position_embedding_type"] = "relative_key";
  EXPECT_NE(config_error(j, ErrorKind::usage).find("position_embedding_type \"relative_key\" is not supported"),
            std::string::npos);
  j = bert_json();
  j["hidden_act"] = "mish";
  EXPECT_NE(config_error(j, ErrorKind::usage).find("hidden_act \"mish\" is not supported"), std::string::npos);
}

// transformers' BertModel / RobertaModel with is_decoder: true attend causally (checked: 1.8e-2 apart from
// the bidirectional run on a 1-layer BERT, transformers 5.23), and refuse add_cross_attention without it.
// The native encoder ran both as an encoder with exit 0: they are refused by name. False, or absent, runs.
TEST(HfConfig, DecoderSettingsOfBertAndRobertaAreRefusedByName) {
  for (const char* type : {"bert", "roberta", "xlm-roberta"}) {
    json j = bert_json();
    j["model_type"] = type;
    j["pad_token_id"] = 1;
    j["is_decoder"] = true;
    EXPECT_NE(config_error(j, ErrorKind::usage).find("m/config.json: is_decoder is true: transformers then runs the "
                                                     "model as a decoder (causal attention)"),
              std::string::npos) << type;
    j["is_decoder"] = false;
    j["add_cross_attention"] = true;
    EXPECT_NE(config_error(j, ErrorKind::usage).find("add_cross_attention is true"), std::string::npos) << type;
    j["add_cross_attention"] = false;
    EXPECT_NO_THROW(parse_config(j, "m/config.json")) << type;
  }
  json j = bert_json();
  j["is_decoder"] = "yes";
  EXPECT_NE(config_error(j).find("is_decoder must be true or false"), std::string::npos);
}

// A config with both keys: transformers keeps "dtype" (PretrainedConfig prefers it to the older torch_dtype);
// --model:dtype auto ran the torch_dtype's instead.
TEST(HfConfig, DtypeWinsOverTorchDtypeAsInTransformers) {
  json j = bert_json();
  j["dtype"] = "bfloat16";
  EXPECT_EQ(parse_config(j, "m/config.json").torch_dtype, "bfloat16");
  j.erase("dtype");
  EXPECT_EQ(parse_config(j, "m/config.json").torch_dtype, "float32");
  j.erase("torch_dtype");
  j["dtype"] = "float16";
  EXPECT_EQ(parse_config(j, "m/config.json").torch_dtype, "float16");
}

TEST(HfConfig, RobertaNeedsRoomAfterPad) {
  json j = bert_json();
  j["model_type"] = "roberta";
  j["pad_token_id"] = 1;
  j["max_position_embeddings"] = 2;
  EXPECT_NE(config_error(j).find("max_position_embeddings (2) leaves no positions"), std::string::npos);
}

TEST(HfConfig, Activations) {
  for (const char* act : {"gelu", "gelu_new", "gelu_pytorch_tanh", "relu", "silu", "swish"}) {
    json j = bert_json();
    j["hidden_act"] = act;
    EXPECT_EQ(parse_config(j, "c").hidden_act, act);
  }
}

TEST(HfConfig, LoadConfigNamesTheFile) {
  fmwork::TempDir dir;
  const std::string path = dir.write("config.json", "{\"model_type\": ");
  try {
    fmwork::hf::load_config(path);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::runtime);
    EXPECT_NE(std::string(e.what()).find(path + ": not valid JSON"), std::string::npos) << e.what();
  }
}

// ---- the shipped configs ----

struct Shipped {
  const char* folder;
  const char* model_type;
  int64_t hidden, layers, heads, intermediate, vocab, max_positions, type_vocab, pad;
  std::vector<int64_t> special;
};

TEST(HfShippedConfigs, FactsAndSpecialTokens) {
  const std::string root = std::string(FMWORK_SOURCE_DIR) + "/configs/models/";
  const Shipped models[] = {
      {"granite-embedding-125m-english", "roberta", 768, 12, 12, 3072, 50265, 514, 1, 1, {0, 1, 2, 3, 50264}},
      {"granite-embedding-30m-english", "roberta", 384, 6, 12, 1536, 50265, 514, 2, 1, {0, 1, 2, 3, 50264}},
      {"bert-base-uncased", "bert", 768, 12, 12, 3072, 30522, 512, 2, 0, {0, 100, 101, 102, 103}},
      {"all-MiniLM-L6-v2", "bert", 384, 6, 12, 1536, 30522, 512, 2, 0, {0, 100, 101, 102, 103}},
      {"xlm-roberta-base", "xlm-roberta", 768, 12, 12, 3072, 250002, 514, 1, 1, {0, 1, 2, 3, 250001}},
  };
  for (const auto& m : models) {
    const std::string dir = root + m.folder;
    ASSERT_TRUE(std::filesystem::exists(dir + "/config.json")) << dir;
    ASSERT_TRUE(std::filesystem::exists(dir + "/README.md")) << dir;
    EncoderConfig c = fmwork::hf::load_config(dir + "/config.json");
    EXPECT_EQ(c.model_type, m.model_type) << m.folder;
    EXPECT_EQ(c.hidden_size, m.hidden) << m.folder;
    EXPECT_EQ(c.num_hidden_layers, m.layers) << m.folder;
    EXPECT_EQ(c.num_attention_heads, m.heads) << m.folder;
    EXPECT_EQ(c.intermediate_size, m.intermediate) << m.folder;
    EXPECT_EQ(c.vocab_size, m.vocab) << m.folder;
    EXPECT_EQ(c.max_position_embeddings, m.max_positions) << m.folder;
    EXPECT_EQ(c.type_vocab_size, m.type_vocab) << m.folder;
    EXPECT_EQ(c.pad_token_id, m.pad) << m.folder;
    EXPECT_EQ(c.max_input_size(), 512) << m.folder;
    EXPECT_EQ(fmwork::hf::read_special_tokens(dir, c).ids, m.special) << m.folder;
    EXPECT_FALSE(std::filesystem::exists(dir + "/model.safetensors")) << "configs only: " << m.folder;
  }
}

// One table: every supported hidden_act name has its function, and a name outside it is a usage Error that
// lists the table.
TEST(HfConfig, ActivationNamesAndTheirFunctions) {
  EXPECT_EQ(activation_of("gelu"), Activation::gelu);
  EXPECT_EQ(activation_of("gelu_new"), Activation::gelu_tanh);
  EXPECT_EQ(activation_of("gelu_pytorch_tanh"), Activation::gelu_tanh);
  EXPECT_EQ(activation_of("gelu_fast"), Activation::gelu_tanh);
  EXPECT_EQ(activation_of("quick_gelu"), Activation::quick_gelu);
  EXPECT_EQ(activation_of("relu"), Activation::relu);
  EXPECT_EQ(activation_of("swish"), Activation::silu);
  EXPECT_EQ(activation_of("tanh"), Activation::tanh);
  for (const std::string& name : supported_activations()) EXPECT_NO_THROW(activation_of(name)) << name;
  try {
    activation_of("mish");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    EXPECT_EQ(std::string(e.what()), "hidden_act \"mish\" is not supported (supported: gelu, gelu_new, "
                                     "gelu_pytorch_tanh, gelu_fast, quick_gelu, relu, silu, swish, tanh)");
  }
}

}  // namespace
