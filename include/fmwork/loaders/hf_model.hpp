// A Hugging Face model folder (config.json + safetensors) as an fmwork Model, run by the native encoder;
// load_hf_model() builds it. Also the writer of real-size random model folders
// that tools and benchmarks use.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fmwork/hf/config.hpp"
#include "fmwork/hf/forward_flops.hpp"
#include "fmwork/encoders/native_encoder.hpp"
#include "fmwork/model/model.hpp"

namespace fmwork::hf {

// Checks --model_class against the config: a usage Error for a task-head class (pointing to the base
// class), an unknown class (listing the supported ones), or a class that does not match model_type.
void check_model_class(const std::string& model_class, const EncoderConfig& config);

// "float32" / "float16" / "bfloat16" from --model:dtype (absent = float32, as from_pretrained;
// "auto" = config.json's torch_dtype, float32 when it has none). A usage Error for anything else.
at::ScalarType resolve_dtype(const std::optional<std::string>& option, const EncoderConfig& config);

class HfModel : public Model {
 public:
  HfModel(std::string folder, std::unique_ptr<NativeEncoder> encoder, std::string description, bool random_weights,
          std::optional<uint64_t> seed);

  ModelFacts facts() const override;
  torch::IValue forward(const Batch& batch) override;  // (last_hidden_state, pooler_output) or the tensor
  std::optional<CompileFacts> prepare(int64_t batch, int64_t input) override {
    encoder_->prepare(batch, input);
    return std::nullopt;
  }
  void eval() override {}  // no dropout in the native encoder: always eval
  void leave_device() override;

  // For the run metadata.
  bool random_weights() const { return random_weights_; }
  std::optional<uint64_t> random_weights_seed() const { return seed_; }
  const NativeEncoder& encoder() const { return *encoder_; }

 private:
  torch::IValue forward_packed(const Batch& batch);

  std::string folder_;
  std::unique_ptr<NativeEncoder> encoder_;
  std::string description_;
  bool random_weights_ = false;
  std::optional<uint64_t> seed_;
  mutable std::optional<TokenFacts> tokens_;
};

// The seed random weights use when --model:random_weights_seed is not given.
constexpr uint64_t kDefaultRandomWeightsSeed = 0;

// Writes a model folder with random weights for the config.json at `config_json_path`: out_dir/config.json
// (a copy), out_dir/model.safetensors (Hugging Face names without a prefix, pooler included unless
// DistilBERT and the rotary families, initialised as random_weights() does, in `dtype`: "float32", "float16", "bfloat16"), and copies
// of tokenizer.json / tokenizer_config.json / special_tokens_map.json found beside the config. Creates
// out_dir. Returns the number of bytes of model.safetensors.
uint64_t write_random_model_folder(const std::string& config_json_path, const std::string& out_dir, uint64_t seed,
                                   const std::string& dtype = "float32");

}  // namespace fmwork::hf

namespace fmwork {

// Loads the Hugging Face model folder request.path (config.json, *.safetensors, tokenizer files) into the
// native encoder on request.device, in --model:torch_dtype. Throws a usage Error for a class or option that
// does not fit the config, or a folder without weights unless --model:random_weights@ True; a runtime
// Error for a broken file.
std::unique_ptr<Model> load_hf_model(const LoadRequest& request);

}  // namespace fmwork
