#include "fmwork/runtime/runtime_info.hpp"

#include <ATen/Parallel.h>
#include <ATen/Version.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "fmwork/cli/option_sets.hpp"
#include "fmwork/runtime/torch_settings.hpp"

namespace fmwork {
namespace {

// CPU time (user + system, in clock ticks) of each thread of this process, by thread id.
std::map<std::string, long> cpu_ticks_by_thread() {
  std::map<std::string, long> ticks;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/task")) {
    std::ifstream in(entry.path() / "stat");
    std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto close = stat.rfind(')');  // the thread name may hold spaces; the fields follow it
    if (close == std::string::npos) continue;
    std::istringstream fields(stat.substr(close + 2));
    std::string field;
    long utime = 0, stime = 0;
    for (int i = 3; i <= 15 && fields >> field; ++i) {  // field 3 is the state; 14 utime, 15 stime
      if (i == 14) utime = std::stol(field);
      if (i == 15) stime = std::stol(field);
    }
    ticks[entry.path().filename().string()] = utime + stime;
  }
  return ticks;
}

// How many threads of this process did work (gained CPU time) while `work` ran.
size_t threads_that_worked(const std::function<void()>& work) {
  auto before = cpu_ticks_by_thread();
  work();
  size_t n = 0;
  for (const auto& [tid, ticks] : cpu_ticks_by_thread()) n += ticks > before[tid];
  return n;
}

// A GEMM of ~1.6 GFLOP a call: LibTorch splits it over its intra-op threads (MKL on OpenMP in the wheel),
// long enough that each gains clock ticks.
void gemms() {
  auto a = torch::rand({1024, 1024});
  for (int i = 0; i < 8; ++i) a = torch::mm(a, a).div_(1024.0);
}

TEST(RuntimeInfo, NamesTheMathLibrariesAndThreads) {
  RuntimeInfo info = runtime_info();
  EXPECT_TRUE(std::regex_match(info.torch_version, std::regex(R"(2\.\d+\.\d+.*)"))) << info.torch_version;
  EXPECT_NE(info.blas, "unknown");
  EXPECT_TRUE(info.onednn == "none" || std::regex_match(info.onednn, std::regex(R"(\d+\.\d+(\.\d+)?)"))) << info.onednn;
  EXPECT_NE(info.parallel, "unknown");
  EXPECT_EQ(info.intra_op_threads, at::get_num_threads());
  EXPECT_EQ(info.inter_op_threads, at::get_num_interop_threads());
  const std::string line = describe_runtime(info);
  EXPECT_NE(line.find("math: BLAS " + info.blas + ", oneDNN " + info.onednn), std::string::npos) << line;
  EXPECT_NE(line.find("threads: " + std::to_string(info.intra_op_threads) + " intra-op"), std::string::npos) << line;
}

TEST(RuntimeInfo, IsaIsHeldToTheCapabilityAtenReports) {
  const std::string all = "avx2+avx512+avx512_bf16+amx";
  EXPECT_EQ(isa_under_capability(all, "AVX512"), all);
  EXPECT_EQ(isa_under_capability(all, "AVX2"), "avx2");
  EXPECT_EQ(isa_under_capability(all, "DEFAULT"), "none");
  EXPECT_EQ(isa_under_capability("none", "AVX2"), "none");
  EXPECT_EQ(isa_under_capability("avx2", "AVX2"), "avx2");
  EXPECT_EQ(isa_under_capability(all, "SVE256"), all) << "capabilities of other CPUs hold nothing of this list";
  // In this process: whatever the CPU, isa is cpu_isa held to what ATen says now, and RUNTIME says so when the
  // two differ.
  const RuntimeInfo info = runtime_info();
  EXPECT_EQ(info.aten_capability, at::get_cpu_capability());
  EXPECT_EQ(info.isa, isa_under_capability(info.cpu_isa, info.aten_capability));
  const std::string line = describe_runtime(info);
  EXPECT_EQ(line.find("ATen held to") != std::string::npos, info.isa != info.cpu_isa) << line;
}

// An elementwise op over 16M floats, 60 times (about a CPU second in all): ATen splits each call with
// at::parallel_for into one static chunk per intra-op thread (OpenMP inside LibTorch), so every thread of
// the pool runs its share, however the scheduler spreads them over the cores.
void elementwise() {
  auto a = torch::ones({1 << 24});
  for (int i = 0; i < 60; ++i) a.mul_(1.0001);
}

// --torch.call:set_num_threads@ N goes through apply_torch_settings. Measured from outside: the threads that
// gain CPU time. Elementwise work shows LibTorch's own pool, exactly N threads, more threads than the 2
// cores included. GEMMs go through MKL, which may use fewer threads than asked (seen on a 2-core AMD EPYC:
// 2 of 3), so for them only what holds on any machine of the kind is asserted: one thread means one.
// One thread first: OpenMP's workers, once started, stay.
TEST(RuntimeInfo, SetNumThreadsChangesHowManyThreadsWork) {
  const int before = at::get_num_threads();
  apply_torch_settings(TorchCalls{{{"set_num_threads", Value::of_int(1)}}}, {});
  EXPECT_EQ(runtime_info().intra_op_threads, 1);
  EXPECT_EQ(threads_that_worked(elementwise), 1u);
  EXPECT_EQ(threads_that_worked(gemms), 1u) << "set_num_threads 1, yet other threads gained CPU time in GEMMs";
  apply_torch_settings(TorchCalls{{{"set_num_threads", Value::of_int(2)}}}, {});
  EXPECT_EQ(runtime_info().intra_op_threads, 2);
  EXPECT_EQ(threads_that_worked(elementwise), 2u);
  apply_torch_settings(TorchCalls{{{"set_num_threads", Value::of_int(3)}}}, {});
  EXPECT_EQ(runtime_info().intra_op_threads, 3);
  EXPECT_EQ(threads_that_worked(elementwise), 3u);
  at::set_num_threads(before);
}

}  // namespace
}  // namespace fmwork
