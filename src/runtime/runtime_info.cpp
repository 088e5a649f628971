#include "fmwork/runtime/runtime_info.hpp"

#include <ATen/Parallel.h>
#include <ATen/Version.h>
#include <torch/version.h>

#include <regex>

#include <fmt/format.h>

namespace fmwork {
namespace {

// The first capture group of `pattern` in `text`, or "".
std::string capture(const std::string& text, const char* pattern) {
  std::smatch m;
  return std::regex_search(text, m, std::regex(pattern)) ? m[1].str() : std::string();
}

}  // namespace

RuntimeInfo runtime_info() {
  const std::string config = at::show_config();
  RuntimeInfo info;
  info.torch_version = TORCH_VERSION;
  info.blas = capture(config, R"(BLAS_INFO=([A-Za-z0-9_]+))");
  if (info.blas.empty()) info.blas = "unknown";
  const std::string mkl = capture(config, R"(Math Kernel Library Version ([0-9.]+))");
  if (info.blas == "mkl" && !mkl.empty()) info.blas += " " + mkl;
  info.onednn = capture(config, R"(MKL-DNN v([0-9.]+))");
  if (info.onednn.empty()) info.onednn = "none";
  info.parallel = capture(at::get_parallel_info(), R"(ATen parallel backend: ([^\n]+))");
  if (info.parallel.empty()) info.parallel = "unknown";
  info.intra_op_threads = at::get_num_threads();
  info.inter_op_threads = at::get_num_interop_threads();
  return info;
}

std::string describe_runtime(const RuntimeInfo& info) {
  return fmt::format("math: BLAS {}, oneDNN {}, parallel backend {}; threads: {} intra-op, {} inter-op", info.blas,
                     info.onednn, info.parallel, info.intra_op_threads, info.inter_op_threads);
}

}  // namespace fmwork
