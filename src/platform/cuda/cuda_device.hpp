// CUDA-only helpers of the cuda platform; compiled only when LibTorch brings CUDA (FMWORK_WITH_CUDA).
#pragma once

#include <optional>
#include <string>

#include "fmwork/platform/platform.hpp"

namespace fmwork {

// Makes device `index` the calling thread's current device and creates its context now, once, when the
// platform is made: before any memory baseline or timing, and so that nothing after it runs on device 0 by
// default. Throws a runtime Error with CUDA's error text when the device cannot be used.
void cuda_make_current(int index);
std::string cuda_device_description(int index);
// "sm_90 cuda=13.0": the compute capability of `index` and the CUDA runtime's version ("sm_? cuda=?" parts
// that CUDA cannot tell).
std::string cuda_architecture(int index);  // "NVIDIA H100 80GB HBM3, 132 SMs, 79.1 GiB, capability 9.0"
// Empties the caching allocator's unused blocks, then resets the peaks of `index`; returns the bytes still
// allocated (the resident set the next peaks are counted over).
int64_t cuda_reset_memory_peaks(int index);
// The caching allocator's unused blocks handed back to the driver (every device: 2.11's emptyCache takes a
// pool, not a device). Never during a graph capture.
void cuda_release_cached_memory();
std::optional<MemoryPeaks> cuda_memory_peaks(int index);
// Free device memory (cudaMemGetInfo) plus what LibTorch's caching allocator reserves but has not handed out;
// nullopt when CUDA cannot tell. Touches no device but `index` (made current again if it is not).
std::optional<MemoryBudget> cuda_available_memory(int index);
// The sticky error the context of `index` holds, as "cuda:0: an illegal memory access was encountered
// (cudaErrorIllegalAddress): ...", read with cudaPeekAtLastError and a synchronisation, or recognised in
// `failure` (c10's error text); nullopt when the context is still usable.
std::optional<std::string> cuda_sticky_error(int index, const std::string& failure);

}  // namespace fmwork
