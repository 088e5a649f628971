// OpenVINO's runtime called from C++ on the CPU: an ONNX file or an OpenVINO IR (model.xml + model.bin) as
// --model_name, and the IR that the `openvino` compile backend (compile/openvino_backend.hpp) converts other
// models into. One compiled model, one infer request; the timed region is the synchronous inference alone.
// Everything OpenVINO decides by default that changes what is timed is set and said instead: threads (those
// LibTorch was told, --torch.call:set_num_threads@ N), one stream, the latency hint, and the inference precision
// (OpenVINO runs bf16 on CPUs with AVX-512 bf16 or AMX unless told otherwise, which changes the model's math).
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "fmwork/model/model.hpp"

namespace fmwork {

// Whether this build links OpenVINO (cmake/openvino.cmake), and its version ("2026.4.1-..."; "" when not).
bool openvino_built();
std::string openvino_version();

// A usage Error, naming `what` (the option or file that asked for OpenVINO), when this build has no OpenVINO:
// the one line that says how to get it.
void require_openvino(const std::string& what);

// What the driver sets on OpenVINO's CPU plugin for one compiled model.
struct OpenVinoSettings {
  int threads = 1;  // INFERENCE_NUM_THREADS: LibTorch's intra-op thread count, the same meaning
  // INFERENCE_PRECISION_HINT from the model's dtype: "f32", "bf16" or "f16"; "" for the file's own element type.
  std::string precision;
  // --compile:options:KEY VALUE, OpenVINO property names and their values as text; applied last, so that they
  // win over the driver's own (a property named here is said as the user's in MODEL).
  std::vector<std::pair<std::string, std::string>> properties;
};

// Refuses, before anything is built, a property that OpenVINO's CPU plugin does not list as one it takes
// (its SUPPORTED_PROPERTIES, read-only ones refused too): one usage Error naming
// --compile:options:KEY, with the closest name. Values are judged by OpenVINO when the model is compiled.
void check_openvino_properties(const std::vector<std::pair<std::string, std::string>>& properties);

// An ONNX file (.onnx) or OpenVINO IR (.xml, its .bin beside it) as --model_name, compiled for the CPU with
// default settings (the threads LibTorch has, its own element type). Its vocabulary comes from a config.json
// beside the file or one folder up (sentence-transformers repositories keep onnx/ and openvino/ folders beside
// theirs), or --model:vocab_size. Inputs must be named input_ids, attention_mask or token_type_ids (fed as
// int64; an int32 input is converted inside the model). Usage Errors for --model: keys the file cannot honour,
// a file that is not such a model, and inputs the driver cannot feed; a runtime Error naming the file for what
// OpenVINO cannot read or compile. Only on --platform cpu (the caller checks).
std::unique_ptr<Model> load_openvino_model(const LoadRequest& request);

// Whether `path` names a model file for load_openvino_model (by its extension: .onnx, .xml).
bool is_openvino_model_file(const std::string& path);

// The IR at `xml` (made by the openvino backend from `eager`), compiled with `settings`. Its facts are
// the eager model's (FLOPs, activation estimate, vocabulary) with the description, inputs, outputs and shapes
// of the IR; `eager` is kept only for them. Errors as load_openvino_model's.
std::unique_ptr<Model> openvino_ir_model(const std::string& xml, std::unique_ptr<Model> eager,
                                         const OpenVinoSettings& settings);

// A model loaded by load_openvino_model compiled again with `settings` (the backend asked of an ONNX or IR
// file: --compile --compile:backend openvino with its properties); nullptr when `model` is no OpenVINO model.
std::unique_ptr<Model> recompile_openvino(Model& model, const OpenVinoSettings& settings);

}  // namespace fmwork
