// The family dispatch. See include/fmwork/encoders/families.hpp.
#include "fmwork/encoders/families.hpp"

#include "fmwork/encoders/bert.hpp"
#include "fmwork/encoders/modernbert.hpp"
#include "fmwork/encoders/qwen3.hpp"

namespace fmwork::hf {

NamedShapes expected_weights(const EncoderConfig& config, bool pooler) {
  switch (config.family) {
    case Family::modernbert: return modernbert_expected_weights(config);
    case Family::qwen3: return qwen3_expected_weights(config);
    default: return bert_expected_weights(config, pooler);
  }
}

std::string canonical_weight_name(const std::string& name, const EncoderConfig& config) {
  if (!config.rotary()) return bert_canonical_weight_name(name, config);
  const std::string prefix = config.weight_prefix();
  return name.rfind(prefix, 0) == 0 ? name.substr(prefix.size()) : name;
}

bool is_ignorable_weight(const std::string& canonical, const EncoderConfig& config) {
  switch (config.family) {
    case Family::modernbert: return modernbert_is_ignorable_weight(canonical);
    case Family::qwen3: return qwen3_is_ignorable_weight(canonical);
    default: return bert_is_ignorable_weight(canonical);
  }
}

NamedTensors random_weights(const EncoderConfig& config, bool pooler, uint64_t seed, at::ScalarType dtype) {
  switch (config.family) {
    case Family::modernbert: return modernbert_random_weights(config, seed, dtype);
    case Family::qwen3: return qwen3_random_weights(config, seed, dtype);
    default: return bert_random_weights(config, pooler, seed, dtype);
  }
}

std::unique_ptr<NativeEncoder> make_encoder(const EncoderConfig& config, const NamedTensors& named, bool pooler,
                                            AttentionImpl attention, bool owned_weights) {
  switch (config.family) {
    case Family::modernbert: return std::make_unique<ModernBertEncoder>(config, named, attention);
    case Family::qwen3: return std::make_unique<Qwen3Encoder>(config, named, attention, owned_weights);
    default: return std::make_unique<BertEncoder>(config, named, pooler, attention, owned_weights);
  }
}

}  // namespace fmwork::hf
