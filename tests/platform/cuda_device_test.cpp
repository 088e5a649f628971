// The cuda platform on a GPU (src/platform/cuda/cuda_device.cpp, the cuda branch of
// src/platform/platform_registry.cpp). Every test here needs a CUDA GPU and a CUDA build of LibTorch: on a CPU
// machine each one skips, saying so (or fails under FMWORK_REQUIRE_CUDA=1); on the GPU machine
// (scripts/gpu-check.sh, scripts/test.sh) they run.
#include <gtest/gtest.h>
#include <torch/cuda.h>
#include <torch/torch.h>

#include <cstdlib>
#include <string>

#include "fmwork/base/error.hpp"
#include "fmwork/platform/platform_registry.hpp"

namespace fmwork {
namespace {

// Without a device each test skips, saying so; under FMWORK_REQUIRE_CUDA=1 (scripts/gpu-check.sh on the GPU
// machine) it fails instead, so that a check that ran no GPU test cannot read as passed.
bool cuda_required() {
  const char* value = std::getenv("FMWORK_REQUIRE_CUDA");
  return value && std::string(value) == "1";
}
#define FMWORK_NEEDS_GPU()                                                                                 \
  if (!torch::cuda::is_available()) {                                                                      \
    if (cuda_required())                                                                                   \
      FAIL() << "FMWORK_REQUIRE_CUDA=1 and LibTorch sees no CUDA device (a CPU build, no GPU or no driver)"; \
    GTEST_SKIP() << "needs a CUDA GPU and a CUDA build of LibTorch; this machine or build has none (the GPU " \
                    "machine runs it)";                                                                    \
  }

TEST(CudaPlatform, DescribesTheDeviceSynchronisesAndReportsMemoryPeaks) {
  FMWORK_NEEDS_GPU();
  auto cuda = make_platform("cuda", {});
  EXPECT_EQ(cuda->device(), torch::Device(torch::kCUDA, 0));
  EXPECT_NE(cuda->description().find(" SMs, "), std::string::npos) << cuda->description();
  cuda->reset_memory_peaks();
  {
    auto big = torch::empty({64 << 20}, torch::TensorOptions().dtype(torch::kUInt8).device(cuda->device()));
    big.fill_(1);
    cuda->synchronize();
  }
  auto peaks = cuda->memory_peaks();
  ASSERT_TRUE(peaks.has_value());
  EXPECT_GE(peaks->allocated_bytes, int64_t{64} << 20);
  EXPECT_GE(peaks->reserved_bytes, peaks->allocated_bytes);
  cuda->reset_memory_peaks();
  EXPECT_LT(cuda->memory_peaks()->allocated_bytes, int64_t{64} << 20);  // the tensor is gone
}

TEST(CudaPlatform, AnIndexPastTheLastDeviceIsRefusedNamingTheDevices) {
  FMWORK_NEEDS_GPU();
  const int count = static_cast<int>(torch::cuda::device_count());
  try {
    make_platform("cuda:" + std::to_string(count), {});
    ADD_FAILURE() << "cuda:" << count << " was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    EXPECT_NE(std::string(e.what()).find("there are " + std::to_string(count) + " CUDA devices (indices 0 to " +
                                         std::to_string(count - 1) + ")"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace fmwork
