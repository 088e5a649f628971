// A TorchScript file (saved by torch.jit.save or LibTorch) as a Model. forward()'s arguments are fed by
// name from input_ids, attention_mask and token_type_ids (trailing arguments with defaults keep them); the
// vocabulary comes from a config.json and tokenizer files beside the file, or --model:vocab_size.
#pragma once

#include <memory>
#include <optional>

#include "fmwork/model/model.hpp"

namespace fmwork {

// Loads request.path straight onto request.device and casts it to --model:torch_dtype (float32, float16,
// bfloat16). Throws a usage Error for Hugging Face-only --model: keys, an unknown vocabulary size or an
// unfeedable forward(); a runtime Error for a file LibTorch cannot load.
std::unique_ptr<Model> load_torchscript_model(const LoadRequest& request);

// The vocabulary of a single-file model (TorchScript, an AOTInductor package): vocab_size and special-token
// ids from a config.json and tokenizer files beside `model_file`, or --model:vocab_size (refused when it
// contradicts that config.json). A usage Error naming the file when neither gives the size.
TokenFacts token_facts_beside(const std::string& model_file, const ModelOptions& options);

}  // namespace fmwork
