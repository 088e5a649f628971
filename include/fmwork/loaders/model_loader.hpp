// Loads the model --model_name names, with the loader its path calls for: a folder is a Hugging Face model
// folder run by the native encoder (hf_model.hpp), a .pt2 file an AOTInductor package (aoti_model.hpp), a
// .onnx or .xml file a model for OpenVINO's runtime (openvino_model.hpp), any other file a TorchScript archive
// (torchscript_model.hpp).
#pragma once

#include <memory>

#include "fmwork/model/model.hpp"

namespace fmwork {

// Loads the model at request.path onto request.device (TorchScript straight onto it; native encoders'
// weights moved there). Throws a usage Error for a path that does not exist or a class/option that does
// not fit the model, a runtime Error for a broken file.
std::unique_ptr<Model> load_model(const LoadRequest& request);

}  // namespace fmwork
