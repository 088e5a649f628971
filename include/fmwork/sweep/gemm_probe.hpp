// The machine's GEMM rate: what STAT's of_peak divides by. A short probe (at::mm of large square matrices
// in the run's dtype, on its device, with its threads; best of a few, about a second) run once per machine
// and kept in the artifact cache, so that later runs read it back.
#pragma once

#include <map>
#include <optional>
#include <string>

#include <c10/core/ScalarType.h>

#include "fmwork/platform/platform.hpp"
#include "fmwork/runtime/runtime_info.hpp"

namespace fmwork {

struct GemmRate {
  double gflops = 0;
  int64_t n = 0;        // the products were n x n by n x n
  std::string dtype;    // "float32"
  int threads = 0;      // at::get_num_threads() while measuring
  int repeats = 0;      // timed products, the best of which gives gflops
  bool cached = false;  // read back from the cache rather than measured by this run
  // How it was measured, one log token (META's gemm_probe): "at::mm_1024_float32_2threads_best_of_7_cached".
  std::string how() const;
};

// Measures now: n x n by n x n products (n doubled from 1024 on the CPU, 4096 on a device, until one takes
// 20 ms, at most 4096 and 16384), then the best of 3 to 10 (more while under a second). The timed region holds the
// product and platform.synchronize(), as a rep does. Throws what the device throws (a plugin device without
// at::mm, say) and a runtime Error for a dtype that is not floating point.
GemmRate measure_gemm_rate(c10::ScalarType dtype, Platform& platform);

// The cache entry's fields (kind "gemm"): the probe's method, CPU model and ISA, LibTorch, BLAS, device,
// dtype, threads, matmul precision (set_float32_matmul_precision, cuBLAS TF32) and the device's architecture (compute
// capability, CUDA version: PlatformFacts::architecture) now. Another value of any is another entry.
std::map<std::string, std::string> gemm_cache_fields(c10::ScalarType dtype, const Platform& platform,
                                                     const RuntimeInfo& runtime);

// How gemm_rate judges whether a measurement was contended: by the CPU the probe got (judge: the driver's way),
// not at all (ignore: for tests of the caching itself, which run beside other tests and would otherwise see
// their rate kept or not as the machine's load decides), or as contended whatever the CPU use (assume: for
// tests of what a contended measurement may and may not do to a kept figure).
enum class Contention { judge, ignore, assume };

// The rate for this machine, read from the artifact cache (default_cache_root(), kind "gemm") when measured
// before with the same gemm_cache_fields(); else measured and stored. A cached rate is checked against one
// product timed now (tens of milliseconds): when cached_gemm_rate_disagreement (cache/gemm_cache.hpp) says
// it is off either way, it is measured again and replaces the entry. On the CPU, a rate measured while the
// process did not get its CPU (contention_reason() of verdicts.hpp over the probe's products) is returned but
// not kept; and it never costs a cached figure that was above one product timed now (the quiet machine's own,
// beside a busy moment): that entry stays, and the run uses the higher of the two. A cached figure below one
// product timed now is dropped whatever the load. A cache that cannot be read or written costs only the
// keeping. `note` (when not null) gets every one of these that happened, in order, on one line ("; " between
// them); "" when the rate was read back or measured and kept. Throws as measure_gemm_rate does.
GemmRate gemm_rate(c10::ScalarType dtype, Platform& platform, const RuntimeInfo& runtime, std::string* note = nullptr,
                   Contention contention = Contention::judge);

// "gemm rate: 87.3 GFLOP/s (at::mm 1024x1024 float32, 2 threads, best of 7; read from the cache ...)": the
// line the driver prints above META.
std::string describe_gemm_rate(const GemmRate& rate);

}  // namespace fmwork
