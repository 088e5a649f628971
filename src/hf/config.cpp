// config.json of the encoder family. See include/fmwork/hf/config.hpp.
#include "fmwork/hf/config.hpp"

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <utility>

#include "fmwork/base/text_format.hpp"
#include "fmwork/base/error.hpp"
#include "fmwork/base/json_input.hpp"
#include "config_reader.hpp"

namespace fmwork::hf {

static_assert(kMaxVocab == kMaxVocabSize, "config.json and --model:vocab_size share one bound");

namespace {

// Every hidden_act name and its function, in the order messages list them.
const std::vector<std::pair<std::string, Activation>>& activation_table() {
  static const std::vector<std::pair<std::string, Activation>> table = {
      {"gelu", Activation::gelu},           {"gelu_new", Activation::gelu_tanh},  {"gelu_pytorch_tanh", Activation::gelu_tanh},
      {"gelu_fast", Activation::gelu_tanh}, {"quick_gelu", Activation::quick_gelu}, {"relu", Activation::relu},
      {"silu", Activation::silu},           {"swish", Activation::silu},          {"tanh", Activation::tanh}};
  return table;
}

}  // namespace

const std::vector<std::string>& supported_activations() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& entry : activation_table()) out.push_back(entry.first);
    return out;
  }();
  return names;
}

std::string EncoderConfig::weight_prefix() const { return family_row(family).weight_prefix; }

std::string EncoderConfig::base_class() const { return base_class_of(model_type); }

int64_t EncoderConfig::max_input_size() const {
  if (positions_after_pad()) return max_position_embeddings - pad_token_id.value_or(1) - 1;
  return max_position_embeddings;
}

std::string EncoderConfig::summary() const {
  if (rotary()) return rotary_summary(*this);
  std::ostringstream os;
  os << "layers=" << num_hidden_layers << " hidden=" << hidden_size << " heads=" << num_attention_heads
     << " intermediate=" << intermediate_size << " act=" << hidden_act << " vocab=" << vocab_size
     << " max_positions=" << max_position_embeddings << " type_vocab=" << type_vocab_size
     << " pad=" << (pad_token_id ? std::to_string(*pad_token_id) : std::string("none")) << " eps=" << layer_norm_eps;
  return os.str();
}

namespace {

Family family_of(const std::string& model_type, const std::string& source) {
  if (const std::optional<Family> family = family_of_model_type(model_type)) return *family;
  throw usage_error(source + ": model_type \"" + excerpt(model_type) + "\" is not supported by the native encoder (supported: " +
                    joined(supported_model_types()) + ")");
}

void read_architectures(const json& j, const std::string& source, EncoderConfig& c) {
  if (!j.contains("architectures") || j["architectures"].is_null()) return;
  if (!j["architectures"].is_array()) throw runtime_error(source + ": architectures must be a list of class names");
  for (const auto& a : j["architectures"]) {
    if (!a.is_string()) throw runtime_error(source + ": architectures must be a list of class names, not " + json_excerpt(a));
    c.architectures.push_back(a.get<std::string>());
  }
}

// DistilBERT names its shape fields differently and has no token types.
void read_distilbert_shape(const Reader& r, EncoderConfig& c) {
  c.hidden_size = r.integer("dim", 1, kMaxHidden, "DistilBERT's hidden size, e.g. 768");
  c.num_hidden_layers = r.integer("n_layers", 1, kMaxLayers, "the number of layers, e.g. 6");
  c.num_attention_heads = r.integer("n_heads", 1, kMaxHidden, "the number of attention heads, e.g. 12");
  c.intermediate_size = r.integer("hidden_dim", 1, kMaxIntermediate, "the feed-forward size, e.g. 3072");
  c.hidden_act = r.string_or("activation", "gelu");
  c.type_vocab_size = 0;
  c.layer_norm_eps = 1e-12;  // fixed in DistilBERT's modules
  c.sinusoidal_pos_embds = r.boolean_or("sinusoidal_pos_embds", false);
  c.pad_token_id = r.has("pad_token_id") ? r.optional_integer("pad_token_id", 0, kMaxVocab) : std::optional<int64_t>(0);
}

void read_bert_shape(const Reader& r, const std::string& source, EncoderConfig& c) {
  c.hidden_size = r.integer("hidden_size", 1, kMaxHidden, "the model's width, e.g. 768");
  c.num_hidden_layers = r.integer("num_hidden_layers", 1, kMaxLayers, "the number of layers, e.g. 12");
  c.num_attention_heads = r.integer("num_attention_heads", 1, kMaxHidden, "the number of attention heads, e.g. 12");
  c.intermediate_size = r.integer("intermediate_size", 1, kMaxIntermediate, "the feed-forward size, e.g. 3072");
  c.type_vocab_size = r.integer("type_vocab_size", 1, kMaxTypes, "the number of token types: 2 for BERT, 1 for RoBERTa");
  c.hidden_act = r.string_or("hidden_act", "gelu");
  c.layer_norm_eps = r.number_or("layer_norm_eps", 1e-12, 0.0, 1.0);
  // BertModel / RobertaModel read these two: is_decoder makes every layer's attention causal (each token
  // sees those before it), add_cross_attention adds cross-attention layers (and is refused without
  // is_decoder). The native encoder attends both ways and has no such layers: refused, not run otherwise.
  if (r.boolean_or("is_decoder", false))
    throw usage_error(source + ": is_decoder is true: transformers then runs the model as a decoder (causal "
                      "attention), the native encoder attends both ways; set it false or remove it");
  if (r.boolean_or("add_cross_attention", false))
    throw usage_error(source + ": add_cross_attention is true: transformers then adds cross-attention layers "
                      "(and refuses them without is_decoder), which the native encoder has not; set it false or "
                      "remove it");
  c.position_embedding_type = r.string_or("position_embedding_type", "absolute");
  if (c.position_embedding_type != "absolute")
    throw usage_error(source + ": position_embedding_type \"" + excerpt(c.position_embedding_type) +
                      "\" is not supported by the native encoder (only \"absolute\")");
  if (r.has("pad_token_id"))
    c.pad_token_id = r.optional_integer("pad_token_id", 0, kMaxVocab);
  else
    c.pad_token_id = c.positions_after_pad() ? 1 : 0;  // the config classes' defaults
}

void read_common_fields(const Reader& r, EncoderConfig& c) {
  c.vocab_size = r.integer("vocab_size", 1, kMaxVocab, "the number of token ids");
  c.max_position_embeddings =
      r.integer("max_position_embeddings", 1, kMaxPositions, "the length of the position table, e.g. 512");
  c.initializer_range = r.number_or("initializer_range", 0.02, 0.0, 1e3);
  for (auto [key, field] : {std::pair{"bos_token_id", &c.bos_token_id}, {"eos_token_id", &c.eos_token_id},
                            {"cls_token_id", &c.cls_token_id}, {"sep_token_id", &c.sep_token_id},
                            {"unk_token_id", &c.unk_token_id}, {"mask_token_id", &c.mask_token_id}})
    *field = r.optional_integer(key, 0, kMaxVocab);
}

// torch_dtype ("dtype" in transformers >= 4.56). With both, transformers keeps "dtype" (PretrainedConfig:
// self.dtype if it is set, else torch_dtype), and so does this.
void read_torch_dtype(const Reader& r, const std::string& source, EncoderConfig& c) {
  for (const char* key : {"dtype", "torch_dtype"}) {
    if (!r.has(key)) continue;
    std::string d = r.string_or(key, "");
    if (d.rfind("torch.", 0) == 0) d = d.substr(6);
    if (d == "float" ) d = "float32";
    if (d == "half") d = "float16";
    if (d != "float32" && d != "float16" && d != "bfloat16" && d != "float64")
      throw runtime_error(source + ": " + key + " \"" + excerpt(d) + "\" is not a floating dtype (float32, float16, bfloat16)");
    c.torch_dtype = d;
    break;
  }
}

// Relations between fields.
void check_relations(const EncoderConfig& c, const std::string& source) {
  const auto& acts = supported_activations();
  const char* act_key = c.family == Family::distilbert   ? "activation"
                        : c.family == Family::modernbert ? "hidden_activation"
                                                         : "hidden_act";
  if (std::find(acts.begin(), acts.end(), c.hidden_act) == acts.end())
    throw usage_error(source + ": " + act_key + " \"" + excerpt(c.hidden_act) + "\" is not supported (supported: " +
                      joined(acts) + ")");
  if (c.rotary()) check_rotary_relations(c);
  const char* heads_key = c.family == Family::distilbert ? "n_heads" : "num_attention_heads";
  const char* hidden_key = c.family == Family::distilbert ? "dim" : "hidden_size";
  if (c.family != Family::qwen3 && c.hidden_size % c.num_attention_heads != 0)
    throw runtime_error(source + ": " + heads_key + " (" + std::to_string(c.num_attention_heads) + ") must divide " +
                        hidden_key + " (" + std::to_string(c.hidden_size) + ")");
  if (c.pad_token_id && *c.pad_token_id >= c.vocab_size)
    throw runtime_error(source + ": pad_token_id (" + std::to_string(*c.pad_token_id) + ") must be less than vocab_size (" +
                        std::to_string(c.vocab_size) + ")");
  if (c.positions_after_pad()) {
    if (!c.pad_token_id)
      throw runtime_error(source + ": pad_token_id is null; " + c.model_type +
                          " needs it (position ids start after the padding index)");
    if (c.max_input_size() < 1)
      throw runtime_error(source + ": max_position_embeddings (" + std::to_string(c.max_position_embeddings) +
                          ") leaves no positions after pad_token_id (" + std::to_string(*c.pad_token_id) +
                          ") + 1; it must be at least " + std::to_string(*c.pad_token_id + 2));
  }
}

// The family's own fields. No default: a row of the family table not read here fails to compile
// (-Werror=switch), instead of being read as BERT.
void read_shape(const Reader& r, EncoderConfig& c) {
  switch (c.family) {
    case Family::bert:
    case Family::roberta: return read_bert_shape(r, c.source, c);
    case Family::distilbert: return read_distilbert_shape(r, c);
    case Family::modernbert: return read_modernbert_shape(r, c);
    case Family::qwen3: return read_qwen3_shape(r, c);
  }
}

}  // namespace

EncoderConfig parse_config(const nlohmann::json& j, const std::string& source) {
  if (!j.is_object()) throw runtime_error(source + ": must be a JSON object");
  Reader r(j, source);
  EncoderConfig c;
  c.source = source;
  c.model_type = r.string("model_type", "one of " + joined(supported_model_types()));
  c.family = family_of(c.model_type, source);
  read_architectures(j, source, c);
  read_shape(r, c);
  read_common_fields(r, c);
  read_torch_dtype(r, source, c);
  check_relations(c, source);
  return c;
}

std::optional<int64_t> max_input_size_of(const nlohmann::json& j, const std::string& source) {
  if (!j.is_object()) throw runtime_error(source + ": must be a JSON object");
  const Reader r(j, source);
  const std::string model_type = r.string_or("model_type", "");
  if (family_of_model_type(model_type)) return parse_config(j, source).max_input_size();
  const std::optional<int64_t> positions = r.optional_integer("max_position_embeddings", 1, kMaxPositions);
  if (!positions) return std::nullopt;
  if (!positions_after_pad(model_type)) return positions;
  const int64_t pad = r.optional_integer("pad_token_id", 0, kMaxVocab).value_or(1);
  if (*positions - pad - 1 < 1)
    throw runtime_error(source + ": max_position_embeddings (" + std::to_string(*positions) +
                        ") leaves no positions after pad_token_id (" + std::to_string(pad) + ") + 1");
  return *positions - pad - 1;
}

EncoderConfig load_config(const std::string& path) { return parse_config(read_json_file(path), path); }

std::optional<int64_t> folder_max_input_size(const std::string& folder) {
  std::error_code error;
  const std::filesystem::path config = std::filesystem::path(folder) / "config.json";
  if (!std::filesystem::is_directory(folder, error) || !std::filesystem::is_regular_file(config, error))
    return std::nullopt;
  try {
    return max_input_size_of(read_json_file(config.string()), config.string());
  } catch (const Error&) {
    return std::nullopt;  // the loader reads it again and says what is wrong, as for every other run
  }
}

Activation activation_of(const std::string& hidden_act) {
  for (const auto& [name, activation] : activation_table())
    if (name == hidden_act) return activation;
  throw usage_error("hidden_act \"" + excerpt(hidden_act) + "\" is not supported (supported: " +
                    joined(supported_activations()) + ")");
}

}  // namespace fmwork::hf
