// Which weights a BERT-family encoder has and how transformers names them (bert_expected_weights,
// bert_canonical_weight_name, bert_is_ignorable_weight), and seeded random weights for a config
// (bert_random_weights). Apart from bert.cpp: the names are the loaders' business as much as the forward
// pass's.
#include <algorithm>
#include <cstring>
#include <optional>

#include <ATen/CPUGeneratorImpl.h>

#include "bert_layer_names.hpp"
#include "random_fill.hpp"
#include "fmwork/base/error.hpp"
#include "fmwork/base/host_memory.hpp"
#include "fmwork/base/text_format.hpp"
#include "fmwork/encoders/bert.hpp"

namespace fmwork::hf {
namespace {

using Shape = std::vector<int64_t>;


}  // namespace

// ---- names ------------------------------------------------------------------------------------------------

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
    auto linear = [&](const char* name, int64_t rows, int64_t cols) {
      out.push_back({p + name + ".weight", {rows, cols}});
      out.push_back({p + name + ".bias", {rows}});
    };
    auto norm = [&](const char* name) {
      out.push_back({p + name + ".weight", {H}});
      out.push_back({p + name + ".bias", {H}});
    };
    // q, k, v weights next to each other (then their biases): a file written in this order lets the
    // encoder fuse them without a copy.
    for (const char* qkv : {n.q, n.k, n.v}) out.push_back({p + qkv + ".weight", {H, H}});
    for (const char* qkv : {n.q, n.k, n.v}) out.push_back({p + qkv + ".bias", {H}});
    linear(n.attn_out, H, H);
    norm(n.attn_norm);
    linear(n.ffn_in, I, H);
    linear(n.ffn_out, H, I);
    norm(n.out_norm);
  }
  if (pooler) {
    out.push_back({"pooler.dense.weight", {H, H}});
    out.push_back({"pooler.dense.bias", {H}});
  }
  return out;
}

std::string bert_canonical_weight_name(const std::string& name, const EncoderConfig& c) {
  std::string s = name;
  const std::string prefix = c.weight_prefix();
  if (starts_with(s, prefix)) s = s.substr(prefix.size());
  if (ends_with(s, ".gamma")) s = s.substr(0, s.size() - 6) + ".weight";
  else if (ends_with(s, ".beta")) s = s.substr(0, s.size() - 5) + ".bias";
  return s;
}

bool bert_is_ignorable_weight(const std::string& s) {
  if (s == "embeddings.position_ids" || s == "embeddings.token_type_ids") return true;
  for (const char* head : {"cls.", "lm_head.", "classifier.", "qa_outputs.", "pre_classifier.", "vocab_transform.",
                           "vocab_layer_norm.", "vocab_projector."})
    if (starts_with(s, head)) return true;
  return false;
}

NamedTensors bert_random_weights(const EncoderConfig& c, bool pooler, uint64_t seed, at::ScalarType dtype) {
  check_random_weights_fit(c, bert_expected_weights(c, pooler), dtype);
  const int64_t H = c.hidden_size, I = c.intermediate_size;
  NormalFiller normal(seed, c.initializer_range);
  auto cast = [&](at::Tensor t) { return t.scalar_type() == dtype ? t : t.to(dtype); };
  std::vector<std::pair<std::string, at::Tensor>> out;
  auto add = [&](const std::string& name, const at::Tensor& t) { out.emplace_back(name, t); };

  at::Tensor word = normal({c.vocab_size, H});
  if (c.pad_token_id) word[*c.pad_token_id].zero_();
  add("embeddings.word_embeddings.weight", cast(word));
  at::Tensor pos;
  if (c.family == Family::distilbert && c.sinusoidal_pos_embds) {
    // create_sinusoidal_embeddings: angle(p, j) = p / 10000^(2 (j / 2) / dim); sin on even j, cos on odd j.
    auto p = at::arange(c.max_position_embeddings, at::TensorOptions().dtype(at::kDouble)).unsqueeze(1);
    auto j = at::arange(H, at::TensorOptions().dtype(at::kDouble));
    auto angle = p / at::pow(10000.0, at::floor_divide(j, 2) * 2.0 / static_cast<double>(H)).unsqueeze(0);
    auto table = at::empty({c.max_position_embeddings, H}, at::TensorOptions().dtype(at::kDouble));
    using at::indexing::Slice;
    table.index_put_({Slice(), Slice(0, at::indexing::None, 2)}, at::sin(angle.index({Slice(), Slice(0, at::indexing::None, 2)})));
    table.index_put_({Slice(), Slice(1, at::indexing::None, 2)}, at::cos(angle.index({Slice(), Slice(1, at::indexing::None, 2)})));
    pos = table.to(at::kFloat);
  } else {
    pos = normal({c.max_position_embeddings, H});
    if (c.family == Family::roberta) pos[*c.pad_token_id].zero_();  // RoBERTa's table has padding_idx
  }
  add("embeddings.position_embeddings.weight", cast(pos));
  if (c.family != Family::distilbert) add("embeddings.token_type_embeddings.weight", cast(normal({c.type_vocab_size, H})));
  add("embeddings.LayerNorm.weight", at::ones({H}, at::TensorOptions().dtype(dtype)));
  add("embeddings.LayerNorm.bias", at::zeros({H}, at::TensorOptions().dtype(dtype)));
  const LayerNames& n = layer_names(c);
  for (int64_t i = 0; i < c.num_hidden_layers; ++i) {
    const std::string p = layer_prefix(c, i);
    at::Tensor qkv = cast(normal({3 * H, H}));  // one buffer: q, k, v adjacent
    at::Tensor qkv_bias = at::zeros({3 * H}, at::TensorOptions().dtype(dtype));
    const char* qkv_names[] = {n.q, n.k, n.v};
    for (int j = 0; j < 3; ++j) add(p + qkv_names[j] + ".weight", qkv.narrow(0, j * H, H));
    for (int j = 0; j < 3; ++j) add(p + qkv_names[j] + ".bias", qkv_bias.narrow(0, j * H, H));
    auto linear = [&](const char* name, int64_t rows, int64_t cols) {
      add(p + name + ".weight", cast(normal({rows, cols})));
      add(p + name + ".bias", at::zeros({rows}, at::TensorOptions().dtype(dtype)));
    };
    auto norm = [&](const char* name) {
      add(p + name + ".weight", at::ones({H}, at::TensorOptions().dtype(dtype)));
      add(p + name + ".bias", at::zeros({H}, at::TensorOptions().dtype(dtype)));
    };
    linear(n.attn_out, H, H);
    norm(n.attn_norm);
    linear(n.ffn_in, I, H);
    linear(n.ffn_out, H, I);
    norm(n.out_norm);
  }
  if (pooler) {
    add("pooler.dense.weight", cast(normal({H, H})));
    add("pooler.dense.bias", at::zeros({H}, at::TensorOptions().dtype(dtype)));
  }
  return out;
}

}  // namespace fmwork::hf
