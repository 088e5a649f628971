// A TorchScript file (saved by torch.jit.save or LibTorch) as a Model. forward()'s arguments are fed by
// name from input_ids, attention_mask and token_type_ids (trailing arguments with defaults keep them); the
// vocabulary comes from a config.json and tokenizer files beside the file, or --model:vocab_size.
#pragma once

#include <memory>

#include "fmwork/model.hpp"

namespace fmwork {

// Loads request.path straight onto request.device and casts it to --model:torch_dtype (float32, float16,
// bfloat16). Throws a usage Error for Hugging Face-only --model: keys, an unknown vocabulary size or an
// unfeedable forward(); a runtime Error for a file LibTorch cannot load.
std::unique_ptr<Model> load_torchscript_model(const LoadRequest& request);

}  // namespace fmwork
