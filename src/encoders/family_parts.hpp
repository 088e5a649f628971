// One native family as the dispatch (families.cpp) sees it: its weights' names, the extras it ignores, its
// random weights and its encoder. Each family's file defines its parts; families.cpp picks them by
// config.family, so the family functions have one declaration here rather than one per family header.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <ATen/ATen.h>

#include "fmwork/encoders/native_encoder.hpp"
#include "fmwork/hf/config.hpp"

namespace fmwork::hf {

// The contracts are families.hpp's functions of the same names; `pooler` means something to the BERT
// family only.
struct FamilyParts {
  NamedShapes (*expected_weights)(const EncoderConfig& config, bool pooler);
  std::string (*canonical_weight_name)(const std::string& name, const EncoderConfig& config);
  bool (*is_ignorable_weight)(const std::string& canonical);
  NamedTensors (*random_weights)(const EncoderConfig& config, bool pooler, uint64_t seed, at::ScalarType dtype);
  std::unique_ptr<NativeEncoder> (*make_encoder)(const EncoderConfig& config, const NamedTensors& named, bool pooler,
                                                 AttentionImpl attention, bool owned_weights);
};

extern const FamilyParts kBertParts;        // bert_weights.cpp, bert.cpp: BERT, RoBERTa, XLM-R, DistilBERT
extern const FamilyParts kModernBertParts;  // modernbert.cpp
extern const FamilyParts kQwen3Parts;       // qwen3.cpp

// A rotary family's checkpoint name without the base-model prefix ("model.").
std::string strip_weight_prefix(const std::string& name, const EncoderConfig& config);

}  // namespace fmwork::hf
