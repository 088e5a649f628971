// The native encoders' common base: what a Hugging Face folder's model (loaders/hf_model) needs of any
// family's forward pass, and what every family shares (the base's data, activations, the input-size check).
// One family per file: bert (BERT, RoBERTa, XLM-R, DistilBERT), src/encoders/modernbert.cpp,
// src/encoders/qwen3.cpp; families.hpp picks one.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <ATen/ATen.h>

#include "fmwork/encoders/attention.hpp"
#include "fmwork/encoders/linear.hpp"
#include "fmwork/hf/config.hpp"
#include "fmwork/model/packed_tokens.hpp"

namespace fmwork::hf {

struct EncoderOutput {
  at::Tensor last_hidden_state;  // [batch, input, hidden]
  at::Tensor pooler_output;      // [batch, hidden]; undefined without a pooler
};

using NamedShapes = std::vector<std::pair<std::string, std::vector<int64_t>>>;
using NamedTensors = std::vector<std::pair<std::string, at::Tensor>>;

// What every family shares, held here as data: the config, the dtype and device, the attention chosen,
// packed GEMM, the weights (as places in the family's own layout, for moving, counting and packing), the
// figures of the memory estimate, and whether this GPU runs the variable-length attention kernel. A family
// gives its forward passes, its weights' layout and its MODEL lines; the rest is written once, here.
class NativeEncoder {
 public:
  virtual ~NativeEncoder() = default;
  NativeEncoder(const NativeEncoder&) = delete;  // the weight slots point into the family's members
  NativeEncoder& operator=(const NativeEncoder&) = delete;

  // input_ids, attention_mask: [batch, input] int64 on the weights' device; attention_mask may be undefined
  // (no padding); token_type_ids undefined (zeros) or [batch, input] for the families that have token types.
  // Throws a usage Error when the input is longer than the model allows.
  EncoderOutput forward(const at::Tensor& input_ids, const at::Tensor& attention_mask,
                        const at::Tensor& token_type_ids) const;
  // The same forward pass on packed sequences with no padding: the linear layers, norms and activations on
  // the N packed tokens as one [1, N, ...] batch, attention per sequence (each sees only its own tokens, with
  // the family's pattern: causal, sliding windows), positions restarting at 0 in each. last_hidden_state
  // [N, hidden]; pooler_output (where the family has one) of each sequence's first token, [batch, hidden].
  // Throws the usage Error forward() would for a sequence longer than the model allows.
  EncoderOutput forward_packed(const PackedTokens& input) const;
  // Moves the weights (packs are dropped: prepare() makes them again); off the CPU the families fuse their
  // projections by a copy; the GELU epilogue is turned off where the new device would change its math. On CUDA asks once whether the GPU runs the variable-length kernel (MODEL says
  // so when it does not).
  void to(const at::Device& device);
  // Readies the linear layers for `batch` x `input` tokens (MKL packs on the CPU in float32; see linear.hpp),
  // outside the timed region; the previous shape's packs are freed first.
  void prepare(int64_t batch, int64_t input);
  // The peak memory of forward() beyond the weights, plus prepare()'s packs for that shape: the larger of
  // the attention phase (the family's per-token tensors, eager's two [B, heads, T, T] score tensors, in
  // float32 below float32 where the family computes them so) and the feed-forward phase, plus the hidden
  // state, the rotary families' two [B, 1, T, T] masks, sdpa's workspace (sdpa_workspace_bytes) and one copy
  // of each packed weight. Throws the usage Error forward() would for a too long input. Saturates at
  // UINT64_MAX.
  uint64_t activation_bytes(int64_t batch, int64_t input) const;
  void set_packed_gemm(bool on) { packed_gemm_ = on; }
  // The feed-forward's first GEMM with its bias and GELU in one ATen call, at::_addmm_activation (where its
  // weights sit: call after to()). On CUDA that is cuBLASLt's GELU epilogue, whose GELU is the tanh
  // approximation; on the CPU, addmm then exact GELU (no fusion: the path runs and is checked there, nothing
  // is gained). Off by default: it changes the math of a model whose GELU differs from the device's, and
  // --check_outputs judges that. A usage Error naming why for a family whose feed-forward is not one linear
  // layer then GELU (slots_.gelu_inputs empty), a hidden_act other than gelu or a tanh form, a tanh form on
  // the CPU (its call's GELU is exact) or a device other than cpu and cuda.
  void set_gelu_epilogue(bool on);
  bool gelu_epilogue() const { return gelu_epilogue_; }
  // The bytes prepare() packs for a shape beyond the weights (MKL's float32 copies), 0 where nothing packs.
  uint64_t packed_bytes() const;

  const EncoderConfig& config() const { return config_; }
  at::ScalarType dtype() const { return dtype_; }
  AttentionImpl attention() const { return attention_; }
  int64_t parameter_count() const;
  bool has_pooler() const { return slots_.pooler != nullptr; }
  bool has_token_types() const { return token_types_; }
  // Whether query, key and value are computed by one GEMM.
  bool fused_qkv() const { return slots_.qkv != nullptr && slots_.qkv->weight.defined(); }
  // "name: what" lines for the MODEL section: attention, linear layers, projections, norms, and the
  // variable-length kernel's refusal where this GPU refused it.
  std::vector<std::string> describe_lines() const;

 protected:
  // Where the family keeps its weights: pointers into its own members, set once its layers are built (an
  // encoder is neither copied nor moved). Undefined tensors (a bias left out, q/k/v once fused) are skipped.
  struct WeightSlots {
    std::vector<at::Tensor*> tables;  // embeddings and position tables
    std::vector<Norm*> norms;
    std::vector<Linear*> linears;     // run on every token: packed for batch x input rows
    Linear* pooler = nullptr;         // run on each sequence's first token: packed for batch rows
    const Linear* qkv = nullptr;      // the first layer's fused q/k/v (fused_qkv())
    std::vector<const Linear*> gelu_inputs;  // linears whose output goes straight through hidden_act (also in
                                             // `linears`): the feed-forward's first (set_gelu_epilogue)
  };
  // The figures of activation_bytes() that differ by family, in elements of the run dtype per token.
  struct ActivationFigures {
    long double attention_per_token = 0;     // the attention phase's tensors, scores aside
    long double feed_forward_per_token = 0;  // the feed-forward phase's
    bool float32_scores = false;             // eager's scores and probabilities in float32 below float32
    bool two_masks = false;                  // forward() holds two [B, 1, T, T] masks (eager: additive too)
  };

  NativeEncoder(EncoderConfig config, AttentionImpl attention, const at::Tensor& embeddings, bool token_types);

  // The family's forward passes, after forward() / forward_packed() checked the input (in inference mode);
  // `longest`: the longest packed sequence.
  virtual EncoderOutput run(const at::Tensor& input_ids, const at::Tensor& attention_mask,
                            const at::Tensor& token_type_ids) const = 0;
  virtual EncoderOutput run_packed(const PackedTokens& input, int64_t longest) const = 0;
  // The family's MODEL lines (attention_line() and linear_line() give the shared ones).
  virtual std::vector<std::string> family_lines() const = 0;
  // After to() moved every weight to a device other than the CPU: fuse projections by a copy (fewer, larger
  // kernels pay there, and memory is plentiful). Default: nothing.
  virtual void fuse_off_cpu() {}

  // "attention: " and the implementation (`eager`'s text, or sdpa), `pattern` (the family's words on its
  // pattern) and where packed batches take the variable-length kernel, its note (`windows`: the family has
  // sliding-window layers).
  std::string attention_line(const std::string& eager, const std::string& pattern, bool windows) const;
  std::string linear_line() const;  // "linear layers: ..." (linear_description)
  // "feed-forward: ..." for the families with gelu_inputs: where the bias and GELU run, and what GELU.
  std::string feed_forward_line() const;
  // x [..., in] through `l` (one of gelu_inputs) and hidden_act: in the GEMM's epilogue when
  // set_gelu_epilogue(true), else run_linear then activate_.
  at::Tensor linear_activated(const at::Tensor& x, const Linear& l) const;
  // Whether packed layers of `pattern` take one variable-length call (packed_attention's `varlen`): sdpa,
  // cu_seqlens given, varlen_attention_applies, and the GPU did not refuse the kernel.
  bool takes_varlen(const PackedTokens& input, const AttentionPattern& pattern) const;
  // The attention context of packed sequences, [1, N, features] of `options`: one variable-length call on
  // `rows()` (q [N, heads, d], k and v [N, kv, d], made only then) with the pattern's causal flag and window
  // where `varlen`; else, or should that give nothing, `one(offset, length)` for each sequence (per_sequence).
  // `longest`: the longest sequence (run_packed's), not counted again per layer.
  struct QkvRows {
    at::Tensor q, k, v;
  };
  at::Tensor packed_attention(const PackedTokens& input, int64_t longest, bool varlen, const AttentionPattern& pattern,
                              int64_t features, const at::TensorOptions& options,
                              const std::function<QkvRows()>& rows,
                              const std::function<at::Tensor(int64_t offset, int64_t length)>& one) const;
  bool packs() const;  // packed GEMM on, float32, CPU, MKL present
  bool in_epilogue(const Linear* l) const;  // l is one of gelu_inputs and the epilogue is on
  // Why the epilogue cannot run here (set_gelu_epilogue's refusals, without the option's name), or "".
  std::string epilogue_refusal() const;
  const at::Device& device() const { return device_; }

  const EncoderConfig config_;
  const AttentionImpl attention_;
  const Activation activation_;  // hidden_act, looked up once rather than per layer and forward
  WeightSlots slots_;
  ActivationFigures figures_;

 private:
  at::ScalarType dtype_;
  at::Device device_;
  bool token_types_;
  bool packed_gemm_ = true;
  bool gelu_epilogue_ = false;
  std::optional<std::string> varlen_refusal_;  // this GPU refused the variable-length kernel: why
};

// Canonical weight names to tensors, as an encoder's constructor takes them apart.
class WeightMap {
 public:
  explicit WeightMap(const NamedTensors& named) : map_(named.begin(), named.end()) {}
  // The tensor of `name`; a runtime Error naming it when it was not given (the loader checked the set).
  at::Tensor get(const std::string& name) const;
  // The tensor of `name`, or undefined (a bias the config leaves out).
  at::Tensor optional(const std::string& name) const;
  Linear linear(const std::string& prefix) const { return {get(prefix + ".weight"), optional(prefix + ".bias")}; }
  Norm norm(const std::string& prefix) const { return {get(prefix + ".weight"), optional(prefix + ".bias")}; }

 private:
  std::map<std::string, at::Tensor> map_;
};

// h through `a` (config.json's hidden_act), in place where the function allows; returns h.
at::Tensor& activate_(at::Tensor& h, Activation a);
// `a` of h as a new contiguous tensor, in one pass over h whatever its strides (a slice of a fused GEMM's
// output, say: no copy first).
at::Tensor activated(const at::Tensor& h, Activation a);

}  // namespace fmwork::hf
