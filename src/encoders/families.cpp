// The family dispatch. See include/fmwork/encoders/families.hpp.
#include "fmwork/encoders/families.hpp"

#include <string>

#include "fmwork/base/error.hpp"
#include "family_parts.hpp"

namespace fmwork::hf {
namespace {

// No default: a row of the family table (hf/family_table.hpp) that is not wired here fails to compile
// (-Werror=switch), instead of running as another family.
const FamilyParts& parts_of(const EncoderConfig& config) {
  switch (config.family) {
    case Family::bert:
    case Family::roberta:
    case Family::distilbert: return kBertParts;
    case Family::modernbert: return kModernBertParts;
    case Family::qwen3: return kQwen3Parts;
  }
  throw runtime_error(config.source + ": family " + std::to_string(static_cast<int>(config.family)) +
                      " is no row of the family table");  // only a value cast from outside the enum
}

}  // namespace

std::string strip_weight_prefix(const std::string& name, const EncoderConfig& config) {
  const std::string prefix = config.weight_prefix();
  return name.rfind(prefix, 0) == 0 ? name.substr(prefix.size()) : name;
}

NamedShapes expected_weights(const EncoderConfig& config, bool pooler) {
  return parts_of(config).expected_weights(config, pooler);
}

std::string canonical_weight_name(const std::string& name, const EncoderConfig& config) {
  return parts_of(config).canonical_weight_name(name, config);
}

bool is_ignorable_weight(const std::string& canonical, const EncoderConfig& config) {
  return parts_of(config).is_ignorable_weight(canonical);
}

NamedTensors random_weights(const EncoderConfig& config, bool pooler, uint64_t seed, at::ScalarType dtype) {
  return parts_of(config).random_weights(config, pooler, seed, dtype);
}

std::unique_ptr<NativeEncoder> make_encoder(const EncoderConfig& config, const NamedTensors& named, bool pooler,
                                            AttentionImpl attention, bool owned_weights) {
  return parts_of(config).make_encoder(config, named, pooler, attention, owned_weights);
}

}  // namespace fmwork::hf
