// Which weights a BERT-family encoder has and how transformers names them, and seeded random weights for a
// config: the family's parts (family_parts.hpp) for the dispatch. Apart from bert.cpp: the names are the
// loaders' business as much as the forward pass's.

#include <ATen/CPUGeneratorImpl.h>

#include "bert_layer_names.hpp"
#include "family_parts.hpp"
#include "random_fill.hpp"
#include "fmwork/base/error.hpp"
#include "fmwork/base/text_format.hpp"
#include "fmwork/encoders/bert.hpp"

namespace fmwork::hf {
namespace {

// ---- names ------------------------------------------------------------------------------------------------

// The weights a base model of `c` has, as Hugging Face names them without the base-model prefix
// ("encoder.layer.0.attention.self.query.weight"), with their shapes, in module order except that each
// layer's query/key/value weights come together, then their biases: a file written in this order lets the
// encoder fuse them without a copy. With `pooler`, pooler.dense.{weight,bias} last.
NamedShapes bert_expected_weights(const EncoderConfig& c, bool pooler) {
  const int64_t H = c.hidden_size, I = c.intermediate_size;
  NamedShapes out;
  out.push_back({"embeddings.word_embeddings.weight", {c.vocab_size, H}});
  out.push_back({"embeddings.position_embeddings.weight", {c.max_position_embeddings, H}});
  if (c.family != Family::distilbert) out.push_back({"embeddings.token_type_embeddings.weight", {c.type_vocab_size, H}});
  out.push_back({"embeddings.LayerNorm.weight", {H}});
  out.push_back({"embeddings.LayerNorm.bias", {H}});
  const LayerNames& n = layer_names(c);
  for (int64_t i = 0; i < c.num_hidden_layers; ++i) {
    const std::string p = layer_prefix(c, i);
    auto weight_and_bias = [&](const char* name, std::vector<int64_t> shape) {
      out.push_back({p + name + ".weight", shape});
      out.push_back({p + name + ".bias", {shape[0]}});
    };
    for (const char* qkv : {n.q, n.k, n.v}) out.push_back({p + qkv + ".weight", {H, H}});
    for (const char* qkv : {n.q, n.k, n.v}) out.push_back({p + qkv + ".bias", {H}});
    weight_and_bias(n.attn_out, {H, H});
    weight_and_bias(n.attn_norm, {H});
    weight_and_bias(n.ffn_in, {I, H});
    weight_and_bias(n.ffn_out, {H, I});
    weight_and_bias(n.out_norm, {H});
  }
  if (pooler) {
    out.push_back({"pooler.dense.weight", {H, H}});
    out.push_back({"pooler.dense.bias", {H}});
  }
  return out;
}

// A checkpoint name mapped to the form expected_weights() uses: the base-model prefix ("bert.", "roberta.",
// "distilbert.") stripped, old LayerNorm names (gamma / beta) renamed to weight / bias.
std::string bert_canonical_weight_name(const std::string& name, const EncoderConfig& c) {
  std::string s = name;
  const std::string prefix = c.weight_prefix();
  if (starts_with(s, prefix)) s = s.substr(prefix.size());
  if (ends_with(s, ".gamma")) s = s.substr(0, s.size() - 6) + ".weight";
  else if (ends_with(s, ".beta")) s = s.substr(0, s.size() - 5) + ".bias";
  return s;
}

// Buffers (embeddings.position_ids, embeddings.token_type_ids) and task heads (cls.*, lm_head.*,
// classifier.*, qa_outputs.*, pre_classifier.*, vocab_*).
bool bert_is_ignorable_weight(const std::string& s) {
  if (s == "embeddings.position_ids" || s == "embeddings.token_type_ids") return true;
  for (const char* head : {"cls.", "lm_head.", "classifier.", "qa_outputs.", "pre_classifier.", "vocab_transform.",
                           "vocab_layer_norm.", "vocab_projector."})
    if (starts_with(s, head)) return true;
  return false;
}

// DistilBERT's create_sinusoidal_embeddings: angle(p, j) = p / 10000^(2 (j / 2) / dim); sin on even j, cos
// on odd j. float32.
at::Tensor sinusoidal_table(int64_t positions, int64_t H) {
  auto p = at::arange(positions, at::TensorOptions().dtype(at::kDouble)).unsqueeze(1);
  auto j = at::arange(H, at::TensorOptions().dtype(at::kDouble));
  auto angle = p / at::pow(10000.0, at::floor_divide(j, 2) * 2.0 / static_cast<double>(H)).unsqueeze(0);
  auto table = at::empty({positions, H}, at::TensorOptions().dtype(at::kDouble));
  using at::indexing::Slice;
  table.index_put_({Slice(), Slice(0, at::indexing::None, 2)}, at::sin(angle.index({Slice(), Slice(0, at::indexing::None, 2)})));
  table.index_put_({Slice(), Slice(1, at::indexing::None, 2)}, at::cos(angle.index({Slice(), Slice(1, at::indexing::None, 2)})));
  return table.to(at::kFloat);
}

// Random weights as Hugging Face's _init_weights makes them, over bert_expected_weights' list in its order:
// linear and embedding weights ~ N(0, initializer_range) (drawn in that order), biases 0, LayerNorm 1 / 0,
// the padding row of the embeddings 0, DistilBERT's sinusoidal position table when configured. Each layer's
// query/key/value weights are adjacent slices of one buffer, their biases of another (so the encoder fuses
// them without a copy).
NamedTensors bert_random_weights(const EncoderConfig& c, bool pooler, uint64_t seed, at::ScalarType dtype) {
  const NamedShapes shapes = bert_expected_weights(c, pooler);
  check_random_weights_fit(c, shapes, dtype);
  NormalFiller normal(seed, c.initializer_range);
  const auto options = at::TensorOptions().dtype(dtype);
  NamedTensors out;
  for (size_t i = 0; i < shapes.size(); ++i) {
    const auto& [name, shape] = shapes[i];
    const bool qkv = shapes.size() - i >= 3 && shape == shapes[i + 1].second && shape == shapes[i + 2].second &&
                     name.find(layer_names(c).q) != std::string::npos;
    if (qkv) {  // q, k, v of one layer: one buffer, handed out as adjacent slices
      at::Tensor block = shape.size() == 2 ? normal({3 * shape[0], shape[1]}).to(dtype) : at::zeros({3 * shape[0]}, options);
      for (int64_t j = 0; j < 3; ++j) out.emplace_back(shapes[i + j].first, block.narrow(0, j * shape[0], shape[0]));
      i += 2;
      continue;
    }
    at::Tensor t;
    if (name == "embeddings.position_embeddings.weight" && c.family == Family::distilbert && c.sinusoidal_pos_embds) {
      t = sinusoidal_table(shape[0], shape[1]);
    } else if (shape.size() == 2) {
      t = normal(shape);
      if (name == "embeddings.word_embeddings.weight" && c.pad_token_id) t[*c.pad_token_id].zero_();
      if (name == "embeddings.position_embeddings.weight" && c.positions_after_pad())
        t[*c.pad_token_id].zero_();  // the table has padding_idx, as RoBERTa's
    } else {
      t = ends_with(name, ".weight") ? at::ones(shape) : at::zeros(shape);  // a norm's weight; biases
    }
    out.emplace_back(name, t.to(dtype));
  }
  return out;
}

std::unique_ptr<NativeEncoder> make_bert(const EncoderConfig& config, const NamedTensors& named, bool pooler,
                                         AttentionImpl attention, bool owned_weights) {
  return std::make_unique<BertEncoder>(config, named, pooler, attention, owned_weights);
}

}  // namespace

const FamilyParts kBertParts = {bert_expected_weights, bert_canonical_weight_name, bert_is_ignorable_weight,
                                bert_random_weights, make_bert};

}  // namespace fmwork::hf
