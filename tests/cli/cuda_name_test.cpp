// Tests of the CUDA platform names (cuda_name.hpp), the one reading of cuda:N.
#include "fmwork/cli/cuda_name.hpp"

#include <gtest/gtest.h>

#include "fmwork/cli/platform_rules.hpp"

namespace fmwork {
namespace {

TEST(CudaName, CudaAndCudaNWithUpToThreeDigits) {
  EXPECT_EQ(read_cuda_name("cuda")->index, std::nullopt);
  EXPECT_EQ(read_cuda_name("cuda:0")->index, 0);
  EXPECT_EQ(read_cuda_name("cuda:007")->index, 7);
  EXPECT_EQ(read_cuda_name("cuda:999")->index, 999);
  for (const char* bad : {"cuda:", "cuda:1234", "cuda:x", "cuda:-1", "cuda:+1", "cuda: 1", "cuda1", "cpu", "CUDA"})
    EXPECT_FALSE(read_cuda_name(bad)) << bad;
}

// The command line's check of a platform name agrees with it (runner/campaign_test.cpp holds a campaign's slots).
TEST(CudaName, ThePlatformCheckReadsIt) {
  for (const char* name : {"cuda", "cuda:0", "cuda:12"}) EXPECT_TRUE(is_platform_name(name)) << name;
  for (const char* name : {"cuda:", "cuda:1234", "cuda:x"}) EXPECT_FALSE(is_platform_name(name)) << name;
}

}  // namespace
}  // namespace fmwork
