// Which --model: keys each kind of model file takes, as the --model: table's rows (option_sets.cpp) say: the
// one rule the loaders refuse a key by, where each loader once kept its own list of the keys it does not take.
#pragma once

#include <optional>
#include <string>

#include "fmwork/domain/run_options.hpp"

namespace fmwork {

// The kinds of model file the loaders run: a Hugging Face folder run by the native encoders, one whose
// transformers class is compiled ahead of time, a TorchScript file, an AOTInductor package, an OpenVINO model.
enum class ModelFile { native_folder, transformers_class, torchscript, aoti_package, openvino };

// The first key of the --model: table, in table order, given in `options` that a model of kind `file` does not
// take (its name as the table spells it: "packed_gemm"); nullopt when it takes every key given. torch_dtype auto
// is taken by every kind: it keeps the file's own dtype. Defined beside the table, in option_sets.cpp.
std::optional<std::string> model_key_not_taken(const ModelOptions& options, ModelFile file);

}  // namespace fmwork
