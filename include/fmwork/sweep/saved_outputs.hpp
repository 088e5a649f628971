// --save_outputs and --check_outputs: a combination's inputs and outputs in one safetensors file,
// DIR/<input>x<batch>.safetensors, and the comparison of a run's outputs with such a file (written by
// this driver or by any tool that follows the same layout, such as tests/python/transformers_check.py).
//
// File layout: the inputs the model was fed (input_ids, attention_mask, and token_type_ids when fed;
// [batch, input] int64), then every output under its name, on the CPU, in the model's dtype.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <torch/torch.h>

#include "fmwork/model/model.hpp"
#include "fmwork/domain/run_options.hpp"

namespace fmwork {

using NamedTensors = std::vector<std::pair<std::string, torch::Tensor>>;

// The outputs of one forward by name: the model's own names when it gives them (ModelFacts::output_names,
// in order), else output_0, output_1, ... for a tensor, a tuple or a list, and the keys of a dict.
// A runtime Error for outputs that hold no tensors.
NamedTensors name_outputs(const torch::IValue& outputs, const std::vector<std::string>& names);

// What an output is, from its name, never from its shape (a pooler_output of [batch, hidden] looks like a
// per-token output of a batch padded to `hidden` tokens): per token (last_hidden_state, hidden_states,
// token_embeddings: one value a token, the padding's included), per sequence (pooler_output, pooled_output,
// sentence_embedding: one a row), or unknown (output_0 of a TorchScript module, any other name).
enum class OutputRole { per_token, per_sequence, unknown };
OutputRole output_role(const std::string& name);

// `named` with the padding's positions of every per-token output set to zero, for a batch of mixed lengths
// (fed.lengths not empty; otherwise `named` as it is): what --save_outputs writes, the real tokens' outputs
// that every batching mode computes (the padding's differ by mode; unpadded computes none). Per-sequence and
// unknown outputs are kept as the model gave them. A runtime Error for a per-token output that is not
// [batch, tokens, ...] of the batch's shape.
NamedTensors real_tokens_only(NamedTensors named, const Batch& fed);

// Writes DIR/<input>x<batch>.safetensors (DIR must exist): `fed` inputs of `batch_inputs`, then `outputs`.
// Written to a temporary name and renamed, so that a reader never sees half a file. Runtime Error on
// failure, naming the file.
void save_outputs(const std::string& dir, int64_t input, int64_t batch, const Batch& batch_inputs,
                  const std::vector<std::string>& fed, const NamedTensors& outputs);

// A saved file: its inputs (attention_mask ones and token_type_ids zeros when it has none) and outputs.
struct Reference {
  Batch inputs;
  NamedTensors outputs;
};
// Reads DIR/<input>x<batch>.safetensors. A runtime Error naming the file when it is missing, when
// input_ids is absent, not [batch, input] integers (or [batch, T] with T < input: a batch of mixed lengths
// saved padded to its longest) or outside [0, vocab_size), token_type_ids outside
// [0, type_vocab_size) (when that is known: > 0), or when it holds no outputs.
Reference load_reference(const std::string& dir, int64_t input, int64_t batch, int64_t vocab_size,
                         int64_t type_vocab_size = 0);

// Tolerances with the defaults of a dtype ("float32", "bfloat16", "float16") filled in where the option
// leaves them out: float32 atol 1e-4 rtol 1e-4 cosine 0.99999; float16 atol 2e-2 rtol 2e-2 cosine 0.9999;
// bfloat16 atol 1e-1 rtol 5e-2 cosine 0.999.
struct Tolerance {
  double atol = 0, rtol = 0, cosine = 0;
};
Tolerance tolerance_for(const std::string& dtype, const CheckOptions& options);

// The comparison of every reference output with the output of the same name, in float64: the largest
// |got - want|, the largest |got - want| / |want| over elements with want != 0, the smallest cosine
// similarity of one output's flattened values (each NaN when any value is NaN), and whether all elements
// are within atol + rtol * |want| and every cosine >= tolerance.cosine. `real_tokens` ([batch, tokens], nonzero
// at a real token: the reference's own attention_mask; undefined: every token) limits each per-token output
// (output_role) to the real tokens' values on both sides; every other output is compared whole. The reference
// is never masked by the code under check. A runtime Error when an output is missing or its shape differs, or a
// per-token output is not [batch, tokens, ...] of real_tokens' shape.
struct CheckResult {
  std::vector<std::string> names;
  double max_abs = 0, max_rel = 0, cosine = 1;
  bool pass = false;
};
CheckResult compare_outputs(const NamedTensors& got, const NamedTensors& want, const Tolerance& tolerance,
                            const torch::Tensor& real_tokens = {});

}  // namespace fmwork
