#include "platform/cuda/cuda_device.hpp"

// Only the CUDA runtime and c10's CUDA headers: no ATen/cuda (it pulls in cuBLAS / cuSOLVER headers), so
// that a machine with just the CUDA toolkit's runtime headers can compile-check this file (CMakeLists.txt).
#include <ATen/Context.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>
#include <cuda_runtime_api.h>

#include <fmt/format.h>

#include "fmwork/base/error.hpp"
#include "fmwork/base/text_format.hpp"

namespace fmwork {

std::string cuda_device_description(int index) {
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, index) != cudaSuccess) return fmt::format("CUDA device {}", index);
  return fmt::format("{}, {} SMs, {}, capability {}.{}", p.name, p.multiProcessorCount,
                     bytes_text(p.totalGlobalMem, 1, ByteUnit::GiB), p.major, p.minor);
}

std::string cuda_architecture(int index) {
  cudaDeviceProp p{};
  const std::string sm = cudaGetDeviceProperties(&p, index) == cudaSuccess ? fmt::format("sm_{}{}", p.major, p.minor) : "sm_?";
  int runtime = 0;
  const std::string version =
      cudaRuntimeGetVersion(&runtime) == cudaSuccess ? fmt::format("{}.{}", runtime / 1000, runtime % 1000 / 10) : "?";
  return sm + " cuda=" + version;
}

int64_t cuda_reset_memory_peaks(int index) {
  // Without the emptyCache the reserved peak kept the probe's and earlier combinations' cached segments:
  // resetPeakStats sets each peak to the current value, and cached blocks are current reserved bytes.
  cuda_release_cached_memory();
  const auto device = static_cast<c10::DeviceIndex>(index);
  c10::cuda::CUDACachingAllocator::resetPeakStats(device);
  return c10::cuda::CUDACachingAllocator::getDeviceStats(device).allocated_bytes[0].current;
}

void cuda_release_cached_memory() { c10::cuda::CUDACachingAllocator::emptyCache(); }

std::optional<MemoryPeaks> cuda_memory_peaks(int index) {
  auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(static_cast<c10::DeviceIndex>(index));
  return MemoryPeaks{stats.allocated_bytes[0].peak, stats.reserved_bytes[0].peak, std::nullopt};
}

void cuda_make_current(int index) {
  // The caching allocator's per-device state is made by CUDA's lazy init, which only a first allocation would
  // otherwise trigger: reading its statistics before one (an admission before the weights, a peak reset) threw
  // "Invalid device argument" (seen on an H100 in tests/platform/cuda_device_test.cpp).
  at::globalContext().lazyInitDevice(c10::DeviceType::CUDA);
  // force: a plain set_device(0) on a fresh thread skips cudaSetDevice and so the context, which would then
  // be made inside the first combination's measurements (pytorch#155668).
  const cudaError_t error = c10::cuda::SetDevice(static_cast<c10::DeviceIndex>(index), /*force=*/true);
  if (error != cudaSuccess)
    throw runtime_error(fmt::format("cuda:{}: cannot make it the current device: {} ({})", index,
                                    cudaGetErrorString(error), cudaGetErrorName(error)));
}

namespace {

// The errors after which the context is unusable: every later CUDA call in the process returns them.
bool sticky(cudaError_t e) {
  switch (e) {
    case cudaErrorIllegalAddress: case cudaErrorAssert: case cudaErrorLaunchFailure:
    case cudaErrorIllegalInstruction: case cudaErrorMisalignedAddress: case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc: case cudaErrorHardwareStackError: case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable:
      return true;
    default:
      return false;
  }
}

}  // namespace

std::optional<std::string> cuda_sticky_error(int index, const std::string& failure) {
  constexpr const char* kWhy = "the CUDA context cannot recover from it, so nothing more can run in this process";
  // Peek, never cudaGetLastError: that would clear a non-sticky error someone else still reads.
  cudaError_t e = cudaPeekAtLastError();
  if (!sticky(e)) e = cudaDeviceSynchronize();  // a kernel's fault shows at the next synchronisation
  if (sticky(e)) return fmt::format("cuda:{}: {} ({}): {}", index, cudaGetErrorString(e), cudaGetErrorName(e), kWhy);
  // c10 may have read (and so cleared) the error itself: its text still says which.
  for (const char* text : {"an illegal memory access was encountered", "device-side assert triggered",
                           "unspecified launch failure", "misaligned address", "an illegal instruction was encountered"})
    if (failure.find(text) != std::string::npos) return fmt::format("cuda:{}: {}: {}", index, text, kWhy);
  return std::nullopt;
}

std::optional<MemoryBudget> cuda_available_memory(int index) {
  // cudaMemGetInfo reads the current device: the platform made `index` current once; another thread (or a
  // guard left behind) is set back to it rather than measured on another device. No flip to a device and
  // back: a cudaSetDevice to device 0 on the way back made a context there for every cuda:1 run.
  int current = -1;
  if (cudaGetDevice(&current) != cudaSuccess) return std::nullopt;
  if (current != index) cuda_make_current(index);
  size_t free = 0, total = 0;
  if (cudaMemGetInfo(&free, &total) != cudaSuccess) return std::nullopt;
  auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(static_cast<c10::DeviceIndex>(index));
  const int64_t cached = stats.reserved_bytes[0].current - stats.allocated_bytes[0].current;
  return MemoryBudget{free + static_cast<uint64_t>(cached > 0 ? cached : 0),
                      fmt::format("free on cuda:{} (cudaMemGetInfo) plus the allocator's unused cache", index)};
}

}  // namespace fmwork
