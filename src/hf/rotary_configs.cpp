// config.json of the rotary families, ModernBERT and Qwen3: what their transformers config classes read, with
// the same defaults, in both the layouts transformers 4 wrote (global_rope_theta, rope_theta, rope_scaling)
// and 5 writes (rope_parameters, layer_types). See include/fmwork/hf/config.hpp.
#include <algorithm>
#include <sstream>

#include "fmwork/hf/config.hpp"
#include "config_reader.hpp"

namespace fmwork::hf {
namespace {

// ModernBertConfig.default_theta and Qwen3's rope default.
constexpr double kModernBertGlobalTheta = 160000.0, kModernBertLocalTheta = 10000.0, kQwen3Theta = 10000.0;
// A rotary base at or below 1 makes base^(-2i/d) grow with i: past ~1e-38 it overflows float32 and every output
// is NaN (transformers' too). Published bases are 10^4 to 10^7.
constexpr double kMinTheta = 1.0, kMaxTheta = 1e12;

// config.json's layer_types, one per layer; empty when absent (the family derives it).
std::vector<LayerAttention> read_layer_types(const Reader& r, int64_t layers, const std::string& source) {
  if (!r.has("layer_types")) return {};
  const json& v = r.raw("layer_types");
  if (!v.is_array() || static_cast<int64_t>(v.size()) != layers)
    throw runtime_error(source + ": layer_types must be a list of " + std::to_string(layers) +
                        " entries (one per layer, num_hidden_layers), not " + json_excerpt(v));
  std::vector<LayerAttention> out;
  for (size_t i = 0; i < v.size(); ++i) {
    const std::string kind = v[i].is_string() ? v[i].get<std::string>() : json_excerpt(v[i]);
    if (kind == "full_attention")
      out.push_back(LayerAttention::full);
    else if (kind == "sliding_attention")
      out.push_back(LayerAttention::sliding);
    else
      throw usage_error(source + ": layer_types[" + std::to_string(i) + "] \"" + excerpt(kind) +
                        "\" is not supported by the native encoder (full_attention or sliding_attention)");
  }
  return out;
}

// One rotary parameter set (an entry of rope_parameters, or rope_scaling): only unscaled rotary is honoured.
void check_rope_kind(const Reader& rope, const std::string& source) {
  const std::string type = rope.has("rope_type") ? rope.string_or("rope_type", "default") : rope.string_or("type", "default");
  if (type != "default")
    throw usage_error(source + ": " + rope.name("rope_type") + " \"" + excerpt(type) +
                      "\" is not supported by the native encoder (only \"default\": rotary embeddings without scaling)");
  if (rope.has("partial_rotary_factor") && rope.number_or("partial_rotary_factor", 1.0, 0.0, 2.0) != 1.0)
    throw usage_error(source + ": " + rope.name("partial_rotary_factor") +
                      " other than 1.0 is not supported by the native encoder (rotary over the whole head)");
}

// `key` given as null where transformers needs a number (it would fail on None): refused, naming the field.
void refuse_null(const Reader& r, const std::string& source, const std::string& key, const std::string& what) {
  if (r.present(key) && !r.has(key))
    throw runtime_error(source + ": " + r.name(key) + " is null, which transformers cannot use; give an integer (" +
                        what + ") or leave it out");
}

// Whether `key` holds an integer below `lo` (JSON's non-negative integers are unsigned: read as such).
bool integer_below(const Reader& r, const std::string& key, int64_t lo) {
  if (!r.has(key) || !r.raw(key).is_number_integer()) return false;
  const json& v = r.raw(key);
  return v.is_number_unsigned() ? lo > 0 && v.get<uint64_t>() < static_cast<uint64_t>(lo) : v.get<int64_t>() < lo;
}

// rope_scaling (transformers 4): null, or a kind the encoders do not implement.
void check_rope_scaling(const Reader& r, const std::string& source) {
  if (r.has("rope_scaling")) check_rope_kind(r.object("rope_scaling"), source);
}

void read_modernbert_rope(const Reader& r, EncoderConfig& c) {
  check_rope_scaling(r, c.source);
  c.rope_theta = r.number_or("global_rope_theta", kModernBertGlobalTheta, kMinTheta, kMaxTheta);
  c.local_rope_theta = r.number_or("local_rope_theta", kModernBertLocalTheta, kMinTheta, kMaxTheta);
  if (!r.has("rope_parameters")) return;
  const Reader rope = r.object("rope_parameters");
  // ModernBertConfig takes rope_parameters only per attention kind; transformers refuses a flat one, which
  // would otherwise leave both bases at their defaults here without a word.
  for (const char* key : {"rope_type", "type", "rope_theta", "factor", "partial_rotary_factor"})
    if (rope.present(key))
      throw runtime_error(c.source + ": rope_parameters." + key + ": ModernBERT's rope_parameters holds one entry "
                          "per attention kind ({\"full_attention\": {...}, \"sliding_attention\": {...}}), as "
                          "transformers requires");
  for (auto [key, theta] : {std::pair{"full_attention", &c.rope_theta}, {"sliding_attention", &c.local_rope_theta}}) {
    if (!rope.has(key)) continue;
    const Reader one = rope.object(key);
    check_rope_kind(one, c.source);
    *theta = one.number_or("rope_theta", *theta, kMinTheta, kMaxTheta);
  }
}

void read_qwen3_rope(const Reader& r, EncoderConfig& c) {
  check_rope_scaling(r, c.source);
  c.rope_theta = r.number_or("rope_theta", kQwen3Theta, kMinTheta, kMaxTheta);
  if (r.has("rope_parameters")) {
    const Reader rope = r.object("rope_parameters");
    check_rope_kind(rope, c.source);
    c.rope_theta = rope.number_or("rope_theta", c.rope_theta, kMinTheta, kMaxTheta);
  }
  c.local_rope_theta = c.rope_theta;  // Qwen3 has one rotary base for every layer
}

void read_rotary_common(const Reader& r, EncoderConfig& c) {
  c.hidden_size = r.integer("hidden_size", 1, kMaxHidden, "the model's width, e.g. 768");
  c.num_hidden_layers = r.integer("num_hidden_layers", 1, kMaxLayers, "the number of layers, e.g. 22");
  c.num_attention_heads = r.integer("num_attention_heads", 1, kMaxHidden, "the number of attention heads, e.g. 12");
  c.intermediate_size = r.integer("intermediate_size", 1, kMaxIntermediate, "the feed-forward size, e.g. 1152");
  c.type_vocab_size = 0;
  c.pad_token_id = r.optional_integer("pad_token_id", 0, kMaxVocab);
}

}  // namespace

void read_modernbert_shape(const Reader& r, EncoderConfig& c) {
  read_rotary_common(r, c);
  c.hidden_act = r.string_or("hidden_activation", "gelu");
  c.layer_norm_eps = r.number_or("norm_eps", 1e-5, 0.0, 1.0);
  c.norm_bias = r.boolean_or("norm_bias", false);
  c.attention_bias = r.boolean_or("attention_bias", false);
  c.mlp_bias = r.boolean_or("mlp_bias", false);
  c.initializer_cutoff_factor = r.number_or("initializer_cutoff_factor", 2.0, 0.0, 1e3);
  // local_attention is the whole window; a token sees local_attention // 2 on each side (config.sliding_window):
  // 0 and 1 leave it only itself. transformers takes any int there and fails on null (None // 2); a negative
  // one would leave a token nothing to see.
  refuse_null(r, c.source, "local_attention", "the sliding-window layers' whole window, e.g. 128");
  c.sliding_window = r.integer_or("local_attention", 128, 0, kMaxPositions) / 2;
  c.layer_types = read_layer_types(r, c.num_hidden_layers, c.source);
  if (c.layer_types.empty()) {
    // Read only where transformers reads it (no layer_types): layer i is global when i % n == 0. Any n past
    // the layer count makes layer 0 alone global; 0 and null transformers cannot divide by.
    refuse_null(r, c.source, "global_attn_every_n_layers", "every n-th layer attends globally, e.g. 3");
    if (integer_below(r, "global_attn_every_n_layers", 1))
      throw runtime_error(c.source + ": global_attn_every_n_layers (" +
                          json_excerpt(r.raw("global_attn_every_n_layers")) +
                          ") must be at least 1: layer i attends globally where i % n is 0");
    const int64_t every = r.integer_or("global_attn_every_n_layers", 3, 1, INT64_MAX);
    for (int64_t i = 0; i < c.num_hidden_layers; ++i)
      c.layer_types.push_back(i % every ? LayerAttention::sliding : LayerAttention::full);
  }
  read_modernbert_rope(r, c);
}

void read_qwen3_shape(const Reader& r, EncoderConfig& c) {
  read_rotary_common(r, c);
  c.num_key_value_heads = r.integer_or("num_key_value_heads", c.num_attention_heads, 1, kMaxHidden);
  // Qwen3Config's default, not hidden / heads; an explicit null transformers refuses (head_dim is an int).
  if (r.present("head_dim") && !r.has("head_dim"))
    throw runtime_error(c.source + ": head_dim must be an integer (Qwen3Config has no default for null; leave it out "
                        "for 128)");
  c.explicit_head_dim = r.integer_or("head_dim", 128, 1, kMaxHidden);
  c.hidden_act = r.string_or("hidden_act", "silu");
  c.layer_norm_eps = r.number_or("rms_norm_eps", 1e-6, 0.0, 1.0);
  c.attention_bias = r.boolean_or("attention_bias", false);
  c.norm_bias = c.mlp_bias = false;
  c.causal = true;
  // Qwen3Config: sliding_window counts only with use_sliding_window, and then from layer max_window_layers on
  // (null: no window, no layer slides). A window of 0 would leave every query no key at all (transformers' mask
  // then has empty rows): refused, naming it.
  std::optional<int64_t> window;
  if (r.boolean_or("use_sliding_window", false)) {
    if (integer_below(r, "sliding_window", 1))
      throw runtime_error(c.source + ": sliding_window (" + json_excerpt(r.raw("sliding_window")) +
                          ") must be at least 1 with use_sliding_window: a sliding layer's query sees the "
                          "sliding_window latest tokens, itself included");
    window = r.present("sliding_window") ? r.optional_integer("sliding_window", 1, kMaxPositions) : 4096;
  }
  c.layer_types = read_layer_types(r, c.num_hidden_layers, c.source);
  if (c.layer_types.empty() && window) {
    // Layers from max_window_layers on slide: 0 (or less) all of them, the layer count or more none.
    refuse_null(r, c.source, "max_window_layers", "the first sliding layer, e.g. 28");
    const int64_t first_sliding = r.integer_or("max_window_layers", 28, INT64_MIN, INT64_MAX);
    for (int64_t i = 0; i < c.num_hidden_layers; ++i)
      c.layer_types.push_back(i >= first_sliding ? LayerAttention::sliding : LayerAttention::full);
  }
  if (c.layer_types.empty()) c.layer_types.assign(static_cast<size_t>(c.num_hidden_layers), LayerAttention::full);
  const bool slides = std::count(c.layer_types.begin(), c.layer_types.end(), LayerAttention::sliding) > 0;
  if (slides && !window)
    throw runtime_error(c.source + ": layer_types has sliding_attention layers but no window is set (use_sliding_window "
                        "true and sliding_window N), so transformers would not slide them either; make them "
                        "full_attention or set the window");
  c.sliding_window = slides ? window : std::nullopt;
  read_qwen3_rope(r, c);
}

void check_rotary_relations(const EncoderConfig& c) {
  if (c.family == Family::qwen3 && c.num_attention_heads % c.kv_heads() != 0)
    throw runtime_error(c.source + ": num_key_value_heads (" + std::to_string(c.kv_heads()) +
                        ") must divide num_attention_heads (" + std::to_string(c.num_attention_heads) + ")");
  if (c.head_dim() % 2 != 0)
    throw runtime_error(c.source + ": the head size (" + std::to_string(c.head_dim()) +
                        (c.family == Family::qwen3 ? ", head_dim" : ", hidden_size / num_attention_heads") +
                        ") must be even: rotary embeddings turn pairs of dimensions");
}

std::string rotary_summary(const EncoderConfig& c) {
  std::ostringstream os;
  os << std::boolalpha;
  os << "layers=" << c.num_hidden_layers << " hidden=" << c.hidden_size << " heads=" << c.num_attention_heads
     << " kv_heads=" << c.kv_heads() << " head_dim=" << c.head_dim() << " intermediate=" << c.intermediate_size
     << " act=" << c.hidden_act << " vocab=" << c.vocab_size << " max_positions=" << c.max_position_embeddings
     << " attention=" << (c.causal ? "causal" : "bidirectional") << " layer_types=";
  for (LayerAttention a : c.layer_types) os << (a == LayerAttention::full ? 'F' : 'S');
  if (c.sliding_window) os << " (F full, S sliding window " << *c.sliding_window << ")";
  os << " rope_theta=" << c.rope_theta;
  if (c.family == Family::modernbert) os << " local_rope_theta=" << c.local_rope_theta;
  os << " pad=" << (c.pad_token_id ? std::to_string(*c.pad_token_id) : std::string("none")) << " eps=" << c.layer_norm_eps;
  if (c.family == Family::modernbert)
    os << " norm_bias=" << c.norm_bias << " attention_bias=" << c.attention_bias << " mlp_bias=" << c.mlp_bias;
  else
    os << " attention_bias=" << c.attention_bias;
  return os.str();
}

}  // namespace fmwork::hf
