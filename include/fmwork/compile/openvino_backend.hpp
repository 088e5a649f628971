// --compile:backend openvino on --platform cpu: upstream's torch.compile(backend="openvino") (OpenVINO's
// openvino.torch), done ahead of time. The project's Python step (tools/ov_export.py) converts the model with
// OpenVINO's own converter (a Hugging Face folder through transformers' class, a TorchScript file as saved)
// into an IR with dynamic batch and input dimensions, kept in the artifact cache (kind "openvino"); the driver
// runs the IR with OpenVINO's C++ runtime (loaders/openvino_model.hpp), so the timed region holds no Python.
#pragma once

#include <memory>

#include "fmwork/domain/run_options.hpp"
#include "fmwork/model/model.hpp"
#include "fmwork/platform/platform.hpp"

namespace fmwork {

// `eager` compiled by OpenVINO for the CPU:
// - one IR for batch 1..1024 and input 1..the model's positions (8192 for a TorchScript file), built now or
//   found in the cache; its COMPILE line (backend openvino, shape dynamic) in the result;
// - an ONNX or IR file loaded as the model is compiled again with the properties asked for (nothing built);
// - settings (openvino_model.hpp): threads from LibTorch's intra-op count, one stream, the latency hint, the
//   precision of the model's dtype (--model:dtype bfloat16 runs bf16), then --compile:options:KEY VALUE as
//   OpenVINO properties, checked against the CPU plugin's list before anything is built;
// - --compile:disable@ True returns `eager` with a note; --compile:mode, dynamic and fullgraph mean nothing to
//   OpenVINO and are said to be ignored in the notes.
// Usage Errors: a build without OpenVINO (how to get it), a platform other than cpu, an AOTInductor package,
// --model: keys of the native encoder (random_weights, packed_gemm, gelu_epilogue), a property OpenVINO does
// not take. The key holds the model's content hash, the exporter script, OpenVINO's and torch's versions, the
// model class and the --model: keys that change the graph (attn_implementation, add_pooling_layer); threads and
// precision are runtime settings, not in the key.
Compiled compile_openvino(std::unique_ptr<Model> eager, const CompileOptions& options, const ModelSource& source,
                          const PlatformFacts& platform);

}  // namespace fmwork
