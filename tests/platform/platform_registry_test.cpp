// The built-in platforms by name (cpu, cuda[:N]) and the refusals of names and options they do not take.
// Plugins by name: plugin_test.cpp.
#include "fmwork/platform/platform_registry.hpp"

#include <gtest/gtest.h>
#include <torch/cuda.h>

#include "fmwork/base/error.hpp"
#include "support/test_support.hpp"

namespace fmwork {
namespace {

using fmwork::test_support::expect_error;

TEST(Platform, CpuAndRefusals) {
  auto cpu = make_platform("cpu", {});
  EXPECT_EQ(cpu->facts().device, torch::Device(torch::kCPU));
  EXPECT_NE(cpu->facts().description.find("threads"), std::string::npos);
  // The host's memory is the cpu's one meter.
  EXPECT_TRUE(cpu->facts().has_available_memory);
  ASSERT_NE(cpu->meters().available_memory, nullptr);
  EXPECT_FALSE(cpu->facts().has_memory_peaks || cpu->facts().has_energy);
  EXPECT_EQ(cpu->meters().memory_peaks, nullptr);
  if (!torch::cuda::is_available()) {
    Error e = expect_error([] { make_platform("cuda", {}); });
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    EXPECT_NE(std::string(e.what()).find("--platform cuda: this LibTorch has no CUDA"), std::string::npos) << e.what();
  }
  Error bad_index = expect_error([] { make_platform("cuda:x", {}); });
  EXPECT_NE(std::string(bad_index.what()).find("cuda:N"), std::string::npos) << bad_index.what();
  Error options = expect_error([] { make_platform("cpu", PlatformOptions{{{"k", "v"}}}); });
  EXPECT_NE(std::string(options.what()).find("--platform:k"), std::string::npos) << options.what();
}

// A platform with no compiler of its own says so rather than handing the model back as if compiled.
TEST(Platform, WithoutACompilerOfItsOwnCompileRefuses) {
  auto cpu = make_platform("cpu", {});
  EXPECT_TRUE(cpu->facts().compile_backends.empty());
  CompileOptions options;
  options.backend = "sendnn";
  Error e = expect_error([&] { cpu->compile(nullptr, options, {}); });
  EXPECT_EQ(e.kind(), ErrorKind::usage);
  EXPECT_EQ(std::string(e.what()), "--platform cpu has no compiler of its own (--compile:backend sendnn); use a "
                                   "backend that `driver --help` lists for --compile:backend");
}

}  // namespace
}  // namespace fmwork
