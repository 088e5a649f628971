// CUDA-only helpers of the cuda platform; compiled only when LibTorch brings CUDA (FMWORK_WITH_CUDA).
#pragma once

#include <optional>
#include <string>

#include "fmwork/platform/platform.hpp"

namespace fmwork {

std::string cuda_device_description(int index);  // "NVIDIA H100 80GB HBM3, 132 SMs, 79.1 GiB, capability 9.0"
void cuda_reset_memory_peaks(int index);
std::optional<MemoryPeaks> cuda_memory_peaks(int index);
// Free device memory (cudaMemGetInfo) plus what LibTorch's caching allocator reserves but has not handed out.
std::optional<MemoryBudget> cuda_available_memory(int index);

}  // namespace fmwork
