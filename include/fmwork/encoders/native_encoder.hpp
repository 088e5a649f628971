// The native encoders' common contract: what a Hugging Face folder's model (loaders/hf_model) needs of any
// family's forward pass, and what every family uses (activations, the input-size check). One family per
// file: bert.hpp (BERT, RoBERTa, XLM-R, DistilBERT), modernbert.hpp, qwen3.hpp; families.hpp picks one.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <ATen/ATen.h>

#include "fmwork/encoders/linear.hpp"
#include "fmwork/hf/config.hpp"

namespace fmwork::hf {

enum class AttentionImpl { eager, sdpa };

struct EncoderOutput {
  at::Tensor last_hidden_state;  // [batch, input, hidden]
  at::Tensor pooler_output;      // [batch, hidden]; undefined without a pooler
};

// A batch's real tokens packed one sequence after another (--batching unpadded), N in all: ids, token types
// (undefined: zeros), each token's position in its own sequence and its sequence, all [N] int64 on the
// weights' device; each sequence's first token ([batch], on the device); the sequences' lengths on the host
// (summing to N) and, for the variable-length attention kernels, as int32 running sums on the device
// ([batch + 1] from 0; undefined: attention per sequence).
struct PackedInput {
  at::Tensor input_ids, token_type_ids, positions, sequences, starts;
  std::vector<int64_t> lengths;
  at::Tensor cu_seqlens;
};

using NamedShapes = std::vector<std::pair<std::string, std::vector<int64_t>>>;
using NamedTensors = std::vector<std::pair<std::string, at::Tensor>>;

class NativeEncoder {
 public:
  virtual ~NativeEncoder() = default;

  // input_ids, attention_mask: [batch, input] int64 on the weights' device; attention_mask may be undefined
  // (no padding); token_type_ids undefined (zeros) or [batch, input] for the families that have token types.
  // Throws a usage Error when the input is longer than the model allows.
  virtual EncoderOutput forward(const at::Tensor& input_ids, const at::Tensor& attention_mask,
                                const at::Tensor& token_type_ids) const = 0;
  // The same forward pass on packed sequences with no padding: the linear layers, norms and activations on
  // the N packed tokens as one [1, N, ...] batch, attention per sequence (each sees only its own tokens, with
  // the family's pattern: causal, sliding windows), positions restarting at 0 in each. last_hidden_state
  // [N, hidden]; pooler_output (where the family has one) of each sequence's first token, [batch, hidden].
  // Throws the usage Error forward() would for a sequence longer than the model allows.
  virtual EncoderOutput forward_packed(const PackedInput& input) const = 0;
  // Moves the weights (packs are dropped: prepare() makes them again).
  virtual void to(const at::Device& device) = 0;
  // Readies the linear layers for `batch` x `input` tokens (MKL packs on the CPU in float32; see linear.hpp),
  // outside the timed region; the previous shape's packs are freed first.
  virtual void prepare(int64_t batch, int64_t input) = 0;
  // The peak memory of forward() beyond the weights, plus prepare()'s packs for that shape. Throws the
  // usage Error forward() would for a too long input. Saturates at UINT64_MAX.
  virtual uint64_t activation_bytes(int64_t batch, int64_t input) const = 0;
  virtual void set_packed_gemm(bool on) = 0;

  virtual const EncoderConfig& config() const = 0;
  virtual at::ScalarType dtype() const = 0;
  virtual int64_t parameter_count() const = 0;
  virtual bool has_pooler() const = 0;
  virtual bool has_token_types() const = 0;
  // Whether query, key and value are computed by one GEMM.
  virtual bool fused_qkv() const = 0;
  // "name: what" lines for the MODEL section: attention, linear layers, projections, norms.
  virtual std::vector<std::string> describe_lines() const = 0;
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

// A usage Error when an input of T tokens is longer than config.max_input_size(), naming the limit and where
// it comes from, and the --input_sizes that would run.
void check_input_size(const EncoderConfig& config, int64_t T);

}  // namespace fmwork::hf
