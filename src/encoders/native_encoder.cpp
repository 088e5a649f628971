// What the native families share. See include/fmwork/encoders/native_encoder.hpp.
#include "fmwork/encoders/native_encoder.hpp"

#include "fmwork/base/error.hpp"

namespace fmwork::hf {

at::Tensor WeightMap::get(const std::string& name) const {
  auto it = map_.find(name);
  if (it == map_.end()) throw runtime_error("native encoder: weight " + name + " was not given");
  return it->second;
}

at::Tensor WeightMap::optional(const std::string& name) const {
  auto it = map_.find(name);
  return it == map_.end() ? at::Tensor() : it->second;
}

at::Tensor activated(const at::Tensor& h, Activation a) {
  switch (a) {
    case Activation::gelu: return at::gelu(h);
    case Activation::gelu_tanh: return at::gelu(h, "tanh");
    case Activation::quick_gelu: return h * at::sigmoid(h * 1.702);
    case Activation::relu: return at::relu(h);
    case Activation::silu: return at::silu(h);
    case Activation::tanh: return at::tanh(h);
  }
  return h.contiguous();
}

at::Tensor& activate_(at::Tensor& h, Activation a) {
  switch (a) {
    case Activation::gelu: return at::gelu_(h);
    case Activation::gelu_tanh: return at::gelu_(h, "tanh");
    case Activation::quick_gelu: return h.mul_(at::sigmoid(h * 1.702));
    case Activation::relu: return at::relu_(h);
    case Activation::silu: return at::silu_(h);
    case Activation::tanh: return h.tanh_();
  }
  return h;
}

void check_input_size(const EncoderConfig& config, int64_t T) {
  if (T <= config.max_input_size()) return;
  std::string why = config.family == Family::roberta
                        ? " (max_position_embeddings " + std::to_string(config.max_position_embeddings) +
                              " less pad_token_id " + std::to_string(*config.pad_token_id) + " + 1)"
                        : " (max_position_embeddings)";
  throw usage_error("input size " + std::to_string(T) + " is longer than " + config.base_class() + " allows: " +
                    std::to_string(config.max_input_size()) + why + "; use --input_sizes up to " +
                    std::to_string(config.max_input_size()));
}

}  // namespace fmwork::hf
