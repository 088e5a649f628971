// The family dispatch of the native encoders: weight names, random weights and construction for a config,
// each handed to its family's parts (src/encoders/family_parts.hpp: bert_weights.cpp, modernbert.cpp,
// qwen3.cpp) by config.family.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "fmwork/encoders/native_encoder.hpp"
#include "fmwork/hf/config.hpp"

namespace fmwork::hf {

// The weights a base model of `config` has, as transformers names them without the base-model prefix, with
// their shapes, in module order (each layer's projections that are fused come together). With `pooler`
// (BERT family only), pooler.dense.{weight,bias} last.
NamedShapes expected_weights(const EncoderConfig& config, bool pooler);

// A checkpoint name mapped to the form expected_weights() uses: the base-model prefix ("bert.", "model.",
// ...) stripped, old LayerNorm names (gamma / beta) renamed to weight / bias.
std::string canonical_weight_name(const std::string& name, const EncoderConfig& config);

// Whether a canonical name is a known harmless extra of base or task checkpoints that a base model
// ignores, as transformers does: buffers and task heads (cls.*, lm_head.*, head.*, decoder.*, ...).
bool is_ignorable_weight(const std::string& canonical, const EncoderConfig& config);

// Random weights as transformers' _init_weights makes them for the family (normals of its standard
// deviations, norms 1 and biases 0), seeded and fast (random_fill.hpp), in canonical names; projections that
// the encoder fuses are adjacent slices of one buffer. Throws a runtime Error naming the config, before any
// allocation, when the weights would not fit in the memory the host has available.
NamedTensors random_weights(const EncoderConfig& config, bool pooler, uint64_t seed, at::ScalarType dtype);

// The family's encoder over `named` (canonical names, already in the run dtype and checked for shape).
// `owned_weights`: the tensors are not views of a file mapping, so fusing projections by a copy costs no
// memory (the separate copies are freed).
std::unique_ptr<NativeEncoder> make_encoder(const EncoderConfig& config, const NamedTensors& named, bool pooler,
                                            AttentionImpl attention, bool owned_weights);

}  // namespace fmwork::hf
