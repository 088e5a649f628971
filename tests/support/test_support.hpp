// Helpers shared by the tests: scratch folders, running the built executables, writing files.
#pragma once

#include <gtest/gtest.h>
#include <sys/types.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "fmwork/base/error.hpp"
#include "fmwork/base/subprocess.hpp"
#include "support/scoped_env.hpp"
#include "support/temp_dir.hpp"

namespace fmwork::test_support {

// A finished program: exit status (128 + signal when killed), stdout, stderr.
using CommandResult = SubprocessResult;

// This test process's own artifact cache folder, made empty on first use and removed at exit. ctest runs each
// test in a process of its own, so each test starts with an empty cache: what a test asserts can never depend
// on a GEMM rate or a package that an earlier test, run or machine left behind.
const std::string& test_cache_dir();

// Runs argv[0] with the arguments (no shell), capturing stdout and stderr; extra_env entries are
// "KEY=VALUE" added to the environment. Unless extra_env names FMWORK_CACHE, the program's artifact cache is
// test_cache_dir(), never the user's: a GEMM rate measured while the suite loads the machine must not become
// the figure of the user's later runs.
inline CommandResult run_command(const std::vector<std::string>& argv, std::vector<std::string> extra_env = {}) {
  bool named = false;
  for (const auto& entry : extra_env) named = named || entry.rfind("FMWORK_CACHE=", 0) == 0;
  if (!named) extra_env.push_back("FMWORK_CACHE=" + test_cache_dir());
  return run_subprocess(argv, extra_env);
}

// Starts `argv` (argv[0] a path) in the background with its stdout and stderr into the files `out` and `err`, the
// test's own cache, and SIGINT and SIGTERM at their default actions (the suite may run where a shell left them
// ignored, which a child would inherit); returns its pid for kill() and waitpid().
pid_t start_in_background(const std::vector<std::string>& argv, const std::string& out, const std::string& err);

// `err` without the lines that the machine's state alone decides: the GEMM probe's "measuring the machine's
// GEMM rate ..." (printed only when the cache holds no rate for this machine). Tests that compare a program's
// whole stderr compare this, so that they hold with an empty cache and a warm one alike.
inline std::string without_machine_lines(const std::string& err) {
  std::string kept;
  for (size_t at = 0; at < err.size();) {
    const size_t end = std::min(err.find('\n', at), err.size());
    const std::string line = err.substr(at, end - at + (end < err.size()));
    at = end + 1;
    if (line.rfind("measuring the machine's GEMM rate", 0) != 0) kept += line;
  }
  return kept;
}

// Writes the small TorchScript encoder the driver tests run (2 layers, hidden 32, 4 heads, vocabulary 100,
// 64 positions) to `path` with make_model, a config.json beside it; returns make_model's result.
CommandResult make_test_encoder(const std::string& path);

// A suite of driver runs on make_test_encoder's model, written once for the suite into a scratch folder.
class EncoderSuite : public ::testing::Test {
 protected:
  static void SetUpTestSuite();
  static void TearDownTestSuite();
  // The built driver with these arguments.
  static CommandResult driver(std::vector<std::string> args);

  static TempDir* dir_;
  static std::string model_;  // the encoder's model.pt
};

// Writes a one-layer TorchScript encoder (hidden 16, 2 heads, vocabulary 50) with make_model to
// <dir>/<name>/model.pt, with make_model's `extra` options; returns the path (a test failure if it fails).
std::string make_small_torchscript(const TempDir& dir, const std::string& name,
                                   std::vector<std::string> extra = {});

// Runs `body`, which must throw an fmwork::Error; returns it (a test failure, and a placeholder, if not).
template <typename F>
Error expect_error(F&& body) {
  try {
    body();
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "expected an fmwork::Error";
  return runtime_error("no error was thrown");
}

void write_file(const std::string& path, const std::string& contents);
std::string read_file(const std::string& path);

// Paths of the built executables (set by tests/CMakeLists.txt). Binaries staged for another machine
// (scripts/cuda-build.sh stage) run where the build folder and the checkout are not: there FMWORK_TEST_BIN_DIR
// (the folder of driver, process, make_model and plugins/) and FMWORK_TEST_SOURCE_DIR replace them.
inline std::string env_or(const char* name, const std::string& fallback) {
  const char* value = std::getenv(name);
  return value && *value ? std::string(value) : fallback;
}
inline std::string staged_or(const char* name, const std::string& built) {
  const char* dir = std::getenv("FMWORK_TEST_BIN_DIR");
  return dir && *dir ? std::string(dir) + "/" + name : built;
}
inline std::string driver_path() { return staged_or("driver", FMWORK_DRIVER); }
inline std::string process_path() { return staged_or("process", FMWORK_PROCESS); }
inline std::string make_model_path() { return staged_or("make_model", FMWORK_MAKE_MODEL); }
inline std::string source_dir() { return env_or("FMWORK_TEST_SOURCE_DIR", FMWORK_SOURCE_DIR); }
inline std::string plugin_dir() { return staged_or("plugins", FMWORK_PLUGIN_DIR); }

}  // namespace fmwork::test_support

// ---- tiny BERT-family models, shared by the tests of encoders/bert and loaders/hf_model --------------------

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <utility>

#include <ATen/ATen.h>
#include <ATen/core/ivalue.h>
#include <nlohmann/json.hpp>

#include "fmwork/base/error.hpp"
#include "fmwork/model/model.hpp"

namespace fmwork::test_support::encoders {

// The library names these helpers take, for the tests that use this namespace.
using fmwork::Batch;
using fmwork::ErrorKind;
using fmwork::ModelOptions;
using fmwork::TempDir;
using Weights = std::map<std::string, at::Tensor>;

// A 2-layer, hidden-32 config.json of "bert", "roberta", "xlm-roberta" or "distilbert"; the rotary families'
// below for "modernbert" and "qwen3". A std::runtime_error for any other model_type: each model_type of the
// family table has one here (tests/encoders/families_test.cpp runs them all).
nlohmann::json tiny_config(const std::string& model_type);
// Small rotary-family configs: ModernBERT with 3 layers (global, local, global) and a +-2 window; Qwen3 with 4
// query heads over 2 key/value heads, head_dim 6, and a 3-token sliding window from layer 1 on.
nlohmann::json tiny_modernbert_config();
nlohmann::json tiny_qwen3_config();

// Random weights with non-trivial values everywhere (biases, norms), named as Hugging Face names them.
Weights tiny_weights(const nlohmann::json& config, bool pooler, uint64_t seed);

// Writes config.json and model.safetensors. `prefix` is prepended to every name; `sorted` writes names in
// sorted order (as safetensors' Python writer does: q/k/v not adjacent), else in module order with the
// q/k/v weights of each layer adjacent. `extra` tensors are added as they are.
void write_folder(const std::string& dir, const nlohmann::json& config, const Weights& w, const std::string& prefix = "",
                  bool sorted = true, const Weights& extra = {});

// The independent reference: float64, per head, written from the papers / HF modules.
struct RefOut {
  at::Tensor hidden, pooled;
};
RefOut reference(const nlohmann::json& cfg, const Weights& w64, const at::Tensor& ids, const at::Tensor& mask,
                 const at::Tensor& types);
Weights to_double(const Weights& w);

// load_hf_model() of `dir` with --model_class `cls`.
std::unique_ptr<fmwork::Model> load(const std::string& dir, const std::string& cls, ModelOptions opt = {});

// Splits a forward result into (hidden, pooled).
std::pair<at::Tensor, at::Tensor> outputs(const c10::IValue& v);
double max_diff(const at::Tensor& a, const at::Tensor& b);

struct Inputs {
  at::Tensor ids, mask, types;
};
// Two sequences of length 9; the second padded after 6 tokens (pad id in the ids, 0 in the mask).
Inputs tiny_inputs(int64_t pad, bool with_types);

// The one-line message of the Error of `kind` that f throws (a test failure when it throws none).
std::string error_of(const std::function<void()>& f, ErrorKind kind);

}  // namespace fmwork::test_support::encoders
