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
  std::string cpu;            // the CPU's model name as cpuinfo reads it ("AMD EPYC"), "unknown" when it has none
  // The vector instructions that decide the speed of each dtype on this CPU, '+' between them, from
  // "avx2" (or "none") up: "avx512" (AVX-512 F), "avx512_bf16", "avx512_fp16", "amx" (AMX tiles with
  // bf16), "amx_fp16". Read by cpuinfo, as ATen's own kernels choose theirs.
  std::string isa;
};

// A one-line warning when `dtype` ("bfloat16", "float16") has no native instructions on a CPU with `isa`
// (RuntimeInfo::isa): ATen then converts to float32 around every operation, so the dtype runs several
// times slower than float32 rather than faster ("bfloat16 has no native instructions on this CPU (avx2:
// no avx512_bf16 or amx); expect it to run slower than float32, transformers' too"). Empty otherwise,
// and for other dtypes.
std::string native_dtype_warning(const std::string& dtype, const std::string& isa);

// Reads the facts from LibTorch (at::show_config, at::get_parallel_info and the thread getters).
RuntimeInfo runtime_info();

// "math: BLAS mkl 2024.2, oneDNN 3.12.0, parallel backend OpenMP; threads: 2 intra-op, 2 inter-op\n
// cpu: AMD EPYC (avx2)"
std::string describe_runtime(const RuntimeInfo& info);

}  // namespace fmwork
