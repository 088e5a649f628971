// A Hugging Face config.json of a family the native encoders run (a row of family_table.hpp), read into
// one normalised, validated description. Each family's own names are mapped
// onto the common fields (DistilBERT's dim, n_layers, ...; ModernBERT's hidden_activation and norm_eps;
// Qwen3's rms_norm_eps), and every field that changes the forward pass and that the encoders do not honour
// is refused in one line naming it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fmwork/hf/family_table.hpp"

namespace fmwork::hf {

// The largest vocabulary read (config.json's vocab_size, --model:vocab_size): 16.7 M ids, over 60 times the
// largest published tokenizer's; the input generator keeps a table of the ids it draws from.
inline constexpr int64_t kMaxVocabSize = 1 << 24;

// What one layer of a rotary family attends to (config.json layer_types: "full_attention" /
// "sliding_attention").
enum class LayerAttention { full, sliding };

struct EncoderConfig {
  std::string source;      // the file read ("/m/config.json"), prefixed to every error
  std::string model_type;  // one of supported_model_types() (family_table.hpp)
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

  // ---- the rotary families (modernbert, qwen3) ----
  int64_t num_key_value_heads = 0;   // Qwen3's grouped-query attention; 0 elsewhere (one per head)
  int64_t explicit_head_dim = 0;     // Qwen3's head_dim (need not be hidden / heads); 0: hidden / heads
  bool norm_bias = true;             // LayerNorm biases (ModernBERT's norm_bias)
  bool attention_bias = true;        // q/k/v/o biases
  bool mlp_bias = true;              // feed-forward biases
  bool causal = false;               // Qwen3 attends to earlier tokens only
  std::vector<LayerAttention> layer_types;  // one per layer; empty for the absolute-position families
  // ModernBERT: a token attends to those at distance <= sliding_window (local_attention / 2, floored: 0 for
  // local_attention 0 or 1, each token itself alone, as transformers); Qwen3: to the sliding_window latest
  // tokens, itself included (q - k < sliding_window, at least 1). None when no layer slides (Qwen3).
  std::optional<int64_t> sliding_window;
  double rope_theta = 0;        // rotary base of full-attention layers
  double local_rope_theta = 0;  // rotary base of sliding-attention layers
  double initializer_cutoff_factor = 0;  // ModernBERT's truncated-normal init (random weights): +-factor x std

  // No position table, rotary embeddings in attention, some layers attending in a sliding window.
  bool rotary() const { return family_row(family).rotary; }
  // Position ids start after the padding index (the row's after_pad: RoBERTa's, from pad_token_id + 1).
  bool positions_after_pad() const { return family_row(family).after_pad; }
  int64_t head_dim() const { return explicit_head_dim ? explicit_head_dim : hidden_size / num_attention_heads; }
  int64_t kv_heads() const { return num_key_value_heads ? num_key_value_heads : num_attention_heads; }
  // The checkpoint prefix of the base model: "bert.", "roberta.", "distilbert.", "model.".
  std::string weight_prefix() const;
  // The base model class of this model_type: "BertModel", "RobertaModel", "XLMRobertaModel", ...
  std::string base_class() const;
  // The longest input the model allows: max_position_embeddings, less pad + 1 where positions start after it.
  int64_t max_input_size() const;
  // One line: "layers=12 hidden=768 heads=12 intermediate=3072 act=gelu vocab=50265 ...".
  std::string summary() const;
};

// The hidden_act values accepted (for messages and docs); the model_types are supported_model_types().
const std::vector<std::string>& supported_activations();

// The activation functions the native encoders compute. Several hidden_act names are one function:
// gelu_new, gelu_pytorch_tanh and gelu_fast are GELU's tanh approximation, swish is silu.
enum class Activation { gelu, gelu_tanh, quick_gelu, relu, silu, tanh };
// The function `hidden_act` names (one table with supported_activations()). Throws a usage Error
// "hidden_act \"x\" is not supported (supported: gelu, ...)" for a name it lacks.
Activation activation_of(const std::string& hidden_act);

// Validates and normalises. `source` names the file in errors. Throws a runtime Error for a malformed or
// out-of-range field ("config.json: num_attention_heads (12) must divide hidden_size (770)"), a usage Error
// for a valid but unsupported feature (model_type, position_embedding_type, hidden_act, a rope_type other
// than "default").
EncoderConfig parse_config(const nlohmann::json& json, const std::string& source);
// The longest input a config.json of any model_type allows, for what has no native encoder (compiled ahead
// of time through transformers' own class): max_position_embeddings, less pad_token_id + 1 (default 1) for the
// model types whose positions start after the padding index (positions_after_pad, family_table.hpp:
// kCompiledModelTypes' rows, camembert and mpnet); the native families' own rule for theirs. Nothing when
// config.json has no max_position_embeddings. Errors as
// parse_config's for a native model_type, a runtime Error for a malformed field.
std::optional<int64_t> max_input_size_of(const nlohmann::json& json, const std::string& source);

// The longest input the Hugging Face folder `folder` allows, from its config.json alone (max_input_size_of),
// for checks made before anything is loaded: nothing when `folder` is no folder with a config.json, when
// config.json names no positions, or when it cannot be read or parsed (the loader then says why itself).
std::optional<int64_t> folder_max_input_size(const std::string& folder);

// Reads and parses `path` with json_input's limits (a runtime Error for unreadable, too deep or invalid JSON;
// a usage Error for a FIFO, directory or dangling link).
EncoderConfig load_config(const std::string& path);

}  // namespace fmwork::hf
