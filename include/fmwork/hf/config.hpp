// A Hugging Face config.json of the encoder family the native encoder runs (bert, roberta, xlm-roberta,
// distilbert), read into one normalised, validated description. DistilBERT's own names (dim, n_layers,
// n_heads, hidden_dim, activation) are mapped onto the common fields.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace fmwork::hf {

enum class Family { bert, roberta, distilbert };  // roberta covers xlm-roberta (same modules and names)

struct EncoderConfig {
  std::string source;      // the file read ("/m/config.json"), prefixed to every error
  std::string model_type;  // "bert", "roberta", "xlm-roberta", "distilbert"
  Family family = Family::bert;
  std::vector<std::string> architectures;

  int64_t hidden_size = 0;
  int64_t num_hidden_layers = 0;
  int64_t num_attention_heads = 0;
  int64_t intermediate_size = 0;
  int64_t vocab_size = 0;
  int64_t max_position_embeddings = 0;
  int64_t type_vocab_size = 0;  // 0: no token type embeddings (DistilBERT)
  std::string hidden_act = "gelu";
  double layer_norm_eps = 1e-12;
  std::optional<int64_t> pad_token_id;
  std::optional<int64_t> bos_token_id, eos_token_id, cls_token_id, sep_token_id, unk_token_id, mask_token_id;
  std::string position_embedding_type = "absolute";
  std::optional<std::string> torch_dtype;  // "float32", "float16", "bfloat16"
  double initializer_range = 0.02;
  bool sinusoidal_pos_embds = false;  // DistilBERT: position table initialised with sinusoids

  int64_t head_dim() const { return hidden_size / num_attention_heads; }
  // The checkpoint prefix of the base model: "bert.", "roberta.", "distilbert.".
  std::string weight_prefix() const;
  // The base model class of this model_type: "BertModel", "RobertaModel", "XLMRobertaModel", ...
  std::string base_class() const;
  // The longest input the position table allows: max_position_embeddings, less pad + 1 for RoBERTa.
  int64_t max_input_size() const;
  // One line: "layers=12 hidden=768 heads=12 intermediate=3072 act=gelu vocab=50265 ...".
  std::string summary() const;
};

// The model_types accepted, and the hidden_act values (for messages and docs).
const std::vector<std::string>& supported_model_types();
const std::vector<std::string>& supported_activations();

// The activation functions the native encoders compute. Several hidden_act names are one function:
// gelu_new, gelu_pytorch_tanh and gelu_fast are GELU's tanh approximation, swish is silu.
enum class Activation { gelu, gelu_tanh, quick_gelu, relu, silu, tanh };
// The function `hidden_act` names (one table with supported_activations()). Throws a usage Error
// "hidden_act \"x\" is not supported (supported: gelu, ...)" for a name it lacks.
Activation activation_of(const std::string& hidden_act);

// Validates and normalises. `source` names the file in errors. Throws a runtime Error for a malformed or
// out-of-range field ("config.json: num_attention_heads (12) must divide hidden_size (770)"), a usage Error
// for a valid but unsupported feature (model_type, position_embedding_type, hidden_act).
EncoderConfig parse_config(const nlohmann::json& json, const std::string& source);
// Reads and parses `path` with json_input's limits (a runtime Error for unreadable, too deep or invalid JSON;
// a usage Error for a FIFO, directory or dangling link).
EncoderConfig load_config(const std::string& path);

}  // namespace fmwork::hf
