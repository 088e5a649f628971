#include "platform/cuda/cuda_device.hpp"

// Only the CUDA runtime and c10's CUDA headers: no ATen/cuda (it pulls in cuBLAS / cuSOLVER headers), so
// that a machine with just the CUDA toolkit's runtime headers can compile-check this file (CMakeLists.txt).
#include <c10/cuda/CUDACachingAllocator.h>
#include <cuda_runtime_api.h>

#include <fmt/format.h>

#include "fmwork/base/text_format.hpp"

namespace fmwork {

std::string cuda_device_description(int index) {
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, index) != cudaSuccess) return fmt::format("CUDA device {}", index);
  return fmt::format("{}, {} SMs, {}, capability {}.{}", p.name, p.multiProcessorCount,
                     bytes_text(p.totalGlobalMem, 1, ByteUnit::GiB), p.major, p.minor);
}

void cuda_reset_memory_peaks(int index) {
  c10::cuda::CUDACachingAllocator::resetPeakStats(static_cast<c10::DeviceIndex>(index));
}

std::optional<MemoryPeaks> cuda_memory_peaks(int index) {
  auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(static_cast<c10::DeviceIndex>(index));
  return MemoryPeaks{stats.allocated_bytes[0].peak, stats.reserved_bytes[0].peak};
}

std::optional<MemoryBudget> cuda_available_memory(int index) {
  int previous = 0;
  if (cudaGetDevice(&previous) != cudaSuccess || cudaSetDevice(index) != cudaSuccess) return std::nullopt;
  size_t free = 0, total = 0;
  const bool ok = cudaMemGetInfo(&free, &total) == cudaSuccess;
  cudaSetDevice(previous);
  if (!ok) return std::nullopt;
  auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(static_cast<c10::DeviceIndex>(index));
  const int64_t cached = stats.reserved_bytes[0].current - stats.allocated_bytes[0].current;
  return MemoryBudget{free + static_cast<uint64_t>(cached > 0 ? cached : 0),
                      fmt::format("free on cuda:{} (cudaMemGetInfo) plus the allocator's unused cache", index)};
}

}  // namespace fmwork
