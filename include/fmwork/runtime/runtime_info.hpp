// What the LibTorch in this process computes with: the math libraries it was built with and the threads it
// uses now. Printed in RUNTIME and in the META line, so that two logs taken with different builds or
// thread counts are never compared unawares.
#pragma once

#include <string>

namespace fmwork {

struct RuntimeInfo {
  std::string torch_version;  // "2.13.0"
  std::string blas;           // the build's BLAS_INFO with its version when known: "mkl 2024.2", "openblas"
  std::string onednn;         // "3.12.0", or "none" when LibTorch was built without oneDNN (MKL-DNN)
  std::string parallel;       // ATen's parallel backend: "OpenMP", "native thread pool", "TBB"
  int intra_op_threads = 0;   // at::get_num_threads() now
  int inter_op_threads = 0;   // at::get_num_interop_threads() now
};

// Reads the facts from LibTorch (at::show_config, at::get_parallel_info and the thread getters).
RuntimeInfo runtime_info();

// "math: BLAS mkl 2024.2, oneDNN 3.12.0, parallel backend OpenMP; threads: 2 intra-op, 2 inter-op"
std::string describe_runtime(const RuntimeInfo& info);

}  // namespace fmwork
