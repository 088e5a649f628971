// What the native families share. See include/fmwork/encoders/native_encoder.hpp.
#include "fmwork/encoders/native_encoder.hpp"

#include <algorithm>
#include <cmath>

#include <c10/core/InferenceMode.h>

#include "fmwork/base/error.hpp"
#include "fmwork/encoders/varlen_attention.hpp"

namespace fmwork::hf {
namespace {

// Whether `a` is GELU, exact or its tanh form: what _addmm_activation's GELU can stand for.
bool is_gelu(Activation a) { return a == Activation::gelu || a == Activation::gelu_tanh; }

// What the variable-length kernel's trial call said, where packed batches could take it (sdpa on CUDA).
std::optional<std::string> varlen_refusal(const EncoderConfig& c, AttentionImpl attention, at::ScalarType dtype,
                                          const at::Device& device) {
  if (attention != AttentionImpl::sdpa || !device.is_cuda()) return std::nullopt;
  return varlen_attention_refusal(device, dtype, c.num_attention_heads, c.kv_heads(), c.head_dim(), c.causal);
}

void check_input_size(const EncoderConfig& config, int64_t T) {
  if (T <= config.max_input_size()) return;
  std::string why = config.positions_after_pad()
                        ? " (max_position_embeddings " + std::to_string(config.max_position_embeddings) +
                              " less pad_token_id " + std::to_string(*config.pad_token_id) + " + 1)"
                        : " (max_position_embeddings)";
  throw usage_error("input size " + std::to_string(T) + " is longer than " + config.base_class() + " allows: " +
                    std::to_string(config.max_input_size()) + why + "; use --input_sizes up to " +
                    std::to_string(config.max_input_size()));
}

}  // namespace

// ---- the base ---------------------------------------------------------------------------------------------

NativeEncoder::NativeEncoder(EncoderConfig config, AttentionImpl attention, const at::Tensor& embeddings,
                             bool token_types)
    : config_(std::move(config)),
      attention_(attention),
      activation_(activation_of(config_.hidden_act)),
      dtype_(embeddings.scalar_type()),
      device_(embeddings.device()),
      token_types_(token_types),
      varlen_refusal_(varlen_refusal(config_, attention_, dtype_, device_)) {}

EncoderOutput NativeEncoder::forward(const at::Tensor& input_ids, const at::Tensor& attention_mask,
                                     const at::Tensor& token_type_ids) const {
  c10::InferenceMode inference;
  if (!input_ids.defined() || input_ids.dim() != 2) throw usage_error("native encoder: input_ids must be [batch, input]");
  check_input_size(config_, input_ids.size(1));
  return run(input_ids, attention_mask, token_type_ids);
}

EncoderOutput NativeEncoder::forward_packed(const PackedTokens& input) const {
  c10::InferenceMode inference;
  const int64_t T = longest(input.lengths);
  check_input_size(config_, T);
  return run_packed(input, T);
}

void NativeEncoder::to(const at::Device& device) {
  for (at::Tensor* t : slots_.tables) move_to(*t, device);
  for (Norm* n : slots_.norms) move_to(*n, device);
  for (Linear* l : slots_.linears) move_to(*l, device);
  if (slots_.pooler) move_to(*slots_.pooler, device);
  device_ = device;
  if (!device.is_cpu()) fuse_off_cpu();
  // A device whose call would mean other math (a tanh-GELU model brought back to the CPU) runs the plain path.
  if (gelu_epilogue_ && !epilogue_refusal().empty()) gelu_epilogue_ = false;
  varlen_refusal_ = varlen_refusal(config_, attention_, dtype_, device_);
}

bool NativeEncoder::packs() const { return packs_here(packed_gemm_, dtype_, device_); }

bool NativeEncoder::in_epilogue(const Linear* l) const {
  return gelu_epilogue_ &&
         std::find(slots_.gelu_inputs.begin(), slots_.gelu_inputs.end(), l) != slots_.gelu_inputs.end();
}

void NativeEncoder::prepare(int64_t batch, int64_t input) {
  const bool on = packs();
  // A layer whose GEMM runs in _addmm_activation reads its weight, never a pack.
  for (Linear* l : slots_.linears) pack_linear(*l, batch * input, on && !in_epilogue(l));
  if (slots_.pooler) pack_linear(*slots_.pooler, batch, on);
}

uint64_t NativeEncoder::packed_bytes() const {
  if (!packs()) return 0;
  uint64_t n = 0;
  for (const Linear* l : slots_.linears)
    if (l->weight.defined() && !in_epilogue(l)) n += l->weight.nbytes();
  if (slots_.pooler && slots_.pooler->weight.defined()) n += slots_.pooler->weight.nbytes();
  return n;
}

std::string NativeEncoder::epilogue_refusal() const {
  if (slots_.gelu_inputs.empty())
    return config_.model_type + "'s feed-forward is not one linear layer then GELU (" + config_.hidden_act +
           ", gated); the epilogue is for the BERT family (BERT, RoBERTa, XLM-R, DistilBERT)";
  if (!is_gelu(activation_))
    return "the epilogue applies GELU; this model's hidden_act is " + config_.hidden_act;
  if (device_.is_cpu() && activation_ == Activation::gelu_tanh)
    return "on the CPU the call's GELU is exact, and this model's hidden_act " + config_.hidden_act +
           " is the tanh approximation; leave it off on the CPU";
  if (!device_.is_cpu() && !device_.is_cuda())
    return "runs on cpu and cuda (ATen's _addmm_activation); the device is " + device_.str();
  for (const Linear* l : slots_.gelu_inputs)
    if (!l->bias.defined())
      return "the feed-forward's first layer has no bias in this folder, and the call adds one; leave "
             "--model:gelu_epilogue off";
  return "";
}

void NativeEncoder::set_gelu_epilogue(bool on) {
  gelu_epilogue_ = false;
  if (!on) return;
  if (const std::string why = epilogue_refusal(); !why.empty())
    throw usage_error("--model:gelu_epilogue@ True: " + why);
  gelu_epilogue_ = true;
}

int64_t NativeEncoder::parameter_count() const {
  int64_t n = 0;
  auto count = [&](const at::Tensor& t) { n += t.defined() ? t.numel() : 0; };
  for (const at::Tensor* t : slots_.tables) count(*t);
  for (const Norm* nm : slots_.norms) count(nm->weight), count(nm->bias);
  for (const Linear* l : slots_.linears) count(l->weight), count(l->bias);
  if (slots_.pooler) count(slots_.pooler->weight), count(slots_.pooler->bias);
  return n;
}

uint64_t NativeEncoder::activation_bytes(int64_t batch, int64_t input) const {
  check_input_size(config_, input);
  // In long double: the products overflow 64 bits for the sizes a user may ask (batch 2^30 x input 2^20).
  const long double B = batch, T = input, N = B * T, H = config_.hidden_size, heads = config_.num_attention_heads,
                    e = at::elementSize(dtype_);
  const bool eager = attention_ == AttentionImpl::eager;
  const long double scores = eager ? 2 * B * heads * T * T * (figures_.float32_scores ? std::max(1.0L, 4 / e) : 1) : 0;
  const long double attention = figures_.attention_per_token * N + scores;
  const long double feed_forward = figures_.feed_forward_per_token * N;
  const long double masks = figures_.two_masks ? 2 * B * T * T * (eager ? 1 + 1 / e : 1 / e) : 0;
  long double bytes = e * (std::max(attention, feed_forward) + N * H + masks);
  if (!eager)  // the math kernel's scores where no fused kernel takes the call, repeated key/value heads
    bytes += sdpa_workspace_bytes(device_.type(), dtype_, batch, input, config_.num_attention_heads,
                                  config_.kv_heads(), config_.head_dim());
  bytes += static_cast<long double>(packed_bytes());  // prepare()'s packs for this shape
  return bytes >= static_cast<long double>(UINT64_MAX) ? UINT64_MAX : static_cast<uint64_t>(bytes);
}

std::vector<std::string> NativeEncoder::describe_lines() const {
  std::vector<std::string> lines = family_lines();
  if (varlen_refusal_) lines.push_back(*varlen_refusal_);
  return lines;
}

std::string NativeEncoder::attention_line(const std::string& eager, const std::string& pattern, bool windows) const {
  // varying_shape_sdpa's choice, said where it applies
  const bool cuda_sdpa = attention_ == AttentionImpl::sdpa && device_.is_cuda();
  return "attention: " + (attention_ == AttentionImpl::eager ? eager : "sdpa: at::scaled_dot_product_attention") +
         pattern +
         (cuda_sdpa ? "; padded batches and lone sequences without cuDNN attention (a graph per shape)" : "") +
         (varlen_refusal_ ? "" : varlen_attention_note(device_, dtype_, config_.head_dim(), attention_, windows));
}

std::string NativeEncoder::linear_line() const {
  return "linear layers: " + linear_description(packed_gemm_, dtype_, device_);
}

std::string NativeEncoder::feed_forward_line() const {
  const std::string act = config_.hidden_act;
  if (!gelu_epilogue_)
    return "feed-forward: first GEMM with its bias, then " + act +
           (is_gelu(activation_) ? " (--model:gelu_epilogue@ True puts bias and GELU in the GEMM's epilogue)" : "");
  if (device_.is_cpu())
    return std::string("feed-forward: first GEMM, bias and exact GELU in one ATen call (at::_addmm_activation: "
                       "addmm, then GELU, on the CPU; ") +
           (packs() ? "no MKL pack for that layer; " : "") + "--model:gelu_epilogue@ True)";
  return "feed-forward: bias and GELU in the first GEMM's epilogue (at::_addmm_activation, cuBLASLt; "
         "--model:gelu_epilogue@ True): GELU's tanh approximation" +
         std::string(activation_ == Activation::gelu
                         ? ", where this model's " + act + " is exact: --check_outputs judges the difference"
                         : ", as this model's " + act);
}

at::Tensor NativeEncoder::linear_activated(const at::Tensor& x, const Linear& l) const {
  if (!gelu_epilogue_) {
    auto h = run_linear(x, l);
    return activate_(h, activation_);
  }
  std::vector<int64_t> sizes = x.sizes().vec();
  sizes.back() = l.weight.size(0);
  return at::_addmm_activation(l.bias, x.reshape({-1, x.size(-1)}), l.weight.t(), 1, 1, /*use_gelu=*/true)
      .view(sizes);
}

bool NativeEncoder::takes_varlen(const PackedTokens& input, const AttentionPattern& pattern) const {
  return attention_ == AttentionImpl::sdpa && input.cu_seqlens.defined() && !varlen_refusal_ &&
         varlen_attention_applies(device_, dtype_, config_.head_dim(), pattern);
}

at::Tensor NativeEncoder::packed_attention(const PackedTokens& input, int64_t longest, bool varlen,
                                           const AttentionPattern& pattern,
                                           int64_t features, const at::TensorOptions& options,
                                           const std::function<QkvRows()>& rows,
                                           const std::function<at::Tensor(int64_t, int64_t)>& one) const {
  if (varlen) {
    if (longest <= 0) throw runtime_error("native encoder: packed attention without its longest sequence");
    const QkvRows r = rows();
    auto ctx = varlen_attention(r.q, r.k, r.v, input.cu_seqlens, longest,
                                1.0 / std::sqrt(static_cast<double>(config_.head_dim())), pattern);
    if (ctx.defined()) return ctx;
  }
  return per_sequence(input.lengths, features, options, one);
}

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

}  // namespace fmwork::hf
