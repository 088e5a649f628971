// A Hugging Face folder whose class has no native encoder (MPNet, ELECTRA, DeBERTa-v2, ...), to be compiled
// ahead of time from the folder by transformers' own class (--compile with the inductor backend): the model
// is the folder's facts alone (class, model_type, dtype, vocabulary, parameter count), which the compiled
// package reports; it never runs itself.
#pragma once

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "fmwork/model/model.hpp"

namespace fmwork {

// The facts of request.path, whose config.json (`config`, read from `config_path`) names a model_type or
// whose `model_class` has no native encoder. dtype: --model:dtype (float32 when absent, "auto" the config's
// torch_dtype). Throws a usage Error for --model: keys that only the native encoders honour
// (random_weights, packed_gemm, vocab_size) and for a folder without safetensors weights (the compiled
// package is built from them). forward() throws: only the compiled package runs.
std::unique_ptr<Model> load_transformers_class_model(const LoadRequest& request, const std::string& model_class,
                                                     const nlohmann::json& config, const std::string& config_path);

}  // namespace fmwork
