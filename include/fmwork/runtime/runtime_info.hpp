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
  // The vector instructions that decide the speed of each dtype here, '+' between them, from "avx2" (or
  // "none") up: "avx512" (AVX-512 F), "avx512_bf16", "avx512_fp16", "amx" (AMX tiles with bf16), "amx_fp16".
  // What the CPU has (cpuinfo, as ATen reads it), held to what ATen's kernels use (at::get_cpu_capability:
  // ATEN_CPU_CAPABILITY=avx2 leaves "avx2" on an AVX-512 CPU), so that every decision taken from it (META's
  // isa, the bfloat16 warning, the GEMM rate's cache key) is that of the kernels that really run.
  std::string isa;
  std::string cpu_isa;          // the same list for everything the CPU has, whatever ATen is held to
  std::string aten_capability;  // at::get_cpu_capability(): "AVX512", "AVX2", "DEFAULT", ...
};

// `cpu_isa` (RuntimeInfo's list) held to ATen's capability: all of it under "AVX512" (and on CPUs other than
// x86, whose capabilities this list does not name), "avx2" alone under "AVX2" when the CPU has it, "none"
// under "DEFAULT".
std::string isa_under_capability(const std::string& cpu_isa, const std::string& aten_capability);

// A one-line warning when `dtype` ("bfloat16", "float16") has no native instructions on a CPU with `isa`
// (RuntimeInfo::isa): ATen then converts to float32 around every operation, so the dtype runs several
// times slower than float32 rather than faster ("bfloat16 has no native instructions on this CPU (avx2:
// no avx512_bf16 or amx); expect it to run slower than float32, transformers' too"). Empty otherwise,
// and for other dtypes.
std::string native_dtype_warning(const std::string& dtype, const std::string& isa);

// Reads the facts from LibTorch (at::show_config, at::get_parallel_info and the thread getters).
RuntimeInfo runtime_info();

// "math: BLAS mkl 2024.2, oneDNN 3.12.0, parallel backend OpenMP; threads: 2 intra-op, 2 inter-op\n
// cpu: AMD EPYC (avx2)", and when ATen is held below the CPU, "cpu: Intel Xeon (avx2; ATen held to AVX2 on a
// CPU with avx2+avx512+...)"
std::string describe_runtime(const RuntimeInfo& info);

}  // namespace fmwork
