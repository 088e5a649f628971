// Picks the loader from the path (see model_loader.hpp).
#include "fmwork/loaders/model_loader.hpp"

#include <filesystem>
#include <new>

#include <fmt/format.h>

#include "fmwork/loaders/aoti_model.hpp"
#include "fmwork/base/error.hpp"
#include "fmwork/runtime/exception_cause.hpp"
#include "fmwork/loaders/hf_model.hpp"
#include "fmwork/loaders/openvino_model.hpp"
#include "fmwork/base/regular_file.hpp"
#include "fmwork/loaders/torchscript_model.hpp"

namespace fmwork {

namespace fs = std::filesystem;

std::unique_ptr<Model> load_model(const LoadRequest& request) {
  std::error_code ec;
  auto status = fs::status(request.path, ec);
  if (!fs::is_directory(status)) refuse_special_file(request.path);  // a FIFO or dangling link: before any open
  if (!fs::exists(status))
    throw usage_error(fmt::format("--model_name: {} does not exist; give a TorchScript file, an AOTInductor package "
                                  "(.pt2), an ONNX file (.onnx), an OpenVINO IR (.xml) or a Hugging Face model folder (config.json + *.safetensors), with --model_root as its parent if you like",
                                  request.path));
  // Our loaders say what is wrong in their own Errors; anything else that escapes them (LibTorch's
  // deserialiser, the C++ library) is given the file's name here, where it is known, and made one line.
  try {
    if (fs::is_directory(status)) return load_hf_model(request);
    if (fs::path(request.path).extension() == ".pt2") return load_aoti_model(request);
    if (is_openvino_model_file(request.path)) return load_openvino_model(request);
    return load_torchscript_model(request);
  } catch (const Error&) {
    throw;
  } catch (const std::bad_alloc&) {
    throw runtime_error(fmt::format("--model_name {}: out of memory while loading the model (std::bad_alloc)", request.path));
  } catch (const std::exception& e) {
    throw runtime_error(fmt::format("--model_name {}: cannot load the model: {}", request.path, exception_cause(e)));
  }
}

}  // namespace fmwork
