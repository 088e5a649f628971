// What the compile backends that build with the project's Python (inductor: tools/aoti_export.py, openvino:
// tools/ov_export.py) share: where the tools are, the model's files for the cache key, and one way to run a
// tool and read its result.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fmwork/base/python_value.hpp"

namespace fmwork {

// $NAME when set and not empty, else `fallback`.
std::string env_or(const char* name, const std::string& fallback);

// The Python the tools run with: $FMWORK_PYTHON, else the Python whose torch wheel the build used.
std::string tools_python();

// tools/<name> of the source tree this driver was built from.
std::string tool_path(const std::string& name);

// "2.13.0": the LibTorch this driver runs, which a tool's torch must match.
std::string libtorch_version();

// The files that make a Hugging Face folder's model, for its content hash: config.json, then the weights
// (*.safetensors and their index) sorted by name.
std::vector<std::string> folder_model_files(const std::string& folder);

// A --model: or --compile: value of `tree` as the tools and cache keys take it (strings as they are, the rest
// repr()); "" when absent.
std::string option_text(const Value& tree, const std::string& key);

// Runs a tool (`argv`, its Python first) and returns the JSON object on the last line of its stdout. Its
// one-line error (the last line of stderr, without "error: ") becomes a usage Error when it exits 2, a runtime
// Error otherwise, each starting with `prefix` ("--compile:backend inductor: "); a tool that cannot be
// started is a usage Error saying to set FMWORK_PYTHON to a Python with `needs`.
nlohmann::json run_python_tool(const std::vector<std::string>& argv, const std::string& prefix,
                               const std::string& needs);

}  // namespace fmwork
