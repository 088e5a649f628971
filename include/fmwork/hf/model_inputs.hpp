// The inputs the driver feeds a model, by the names a Hugging Face encoder's forward() gives them. In the
// core, so that what a package or a TorchScript file may ask for is checked without LibTorch.
#pragma once

#include <string>
#include <vector>

namespace fmwork {

// input_ids, attention_mask, token_type_ids: the names a model may be fed, in the order of model.hpp's
// Batch fields (and of forward()'s positional arguments in every Hugging Face encoder).
inline const std::vector<std::string>& model_input_names() {
  static const std::vector<std::string> names{"input_ids", "attention_mask", "token_type_ids"};
  return names;
}

}  // namespace fmwork
