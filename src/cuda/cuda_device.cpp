#include "cuda/cuda_device.hpp"

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDACachingAllocator.h>

#include <fmt/format.h>

namespace fmwork {

std::string cuda_device_description(int index) {
  const cudaDeviceProp* p = at::cuda::getDeviceProperties(index);
  return fmt::format("{}, {} SMs, {:.1f} GiB, capability {}.{}", p->name, p->multiProcessorCount,
                     static_cast<double>(p->totalGlobalMem) / (1024.0 * 1024.0 * 1024.0), p->major, p->minor);
}

void cuda_reset_memory_peaks(int index) { c10::cuda::CUDACachingAllocator::resetPeakStats(index); }

std::optional<MemoryPeaks> cuda_memory_peaks(int index) {
  auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(index);
  return MemoryPeaks{stats.allocated_bytes[0].peak, stats.reserved_bytes[0].peak};
}

}  // namespace fmwork
