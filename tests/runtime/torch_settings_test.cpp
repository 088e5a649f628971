#include "fmwork/runtime/torch_settings.hpp"
#include "fmwork/cli/option_sets.hpp"

#include <ATen/Context.h>
#include <ATen/Parallel.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>
#include <thread>

#include <fmt/format.h>

#include "fmwork/base/error.hpp"

namespace fmwork {
namespace {

std::string usage_message(const TorchCalls& calls, const TorchSets& sets) {
  try {
    validate_torch_settings(calls, sets);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    return e.what();
  }
  return "";
}

TEST(TorchSettings, AppliesCallsAndSetsAndEchoesThem) {
  const bool benchmark_before = at::globalContext().benchmarkCuDNN();
  TorchCalls calls{{{"manual_seed", Value::of_int(7)}, {"set_num_threads", Value::of_int(1)}}};
  TorchSets sets{{{"backends.cudnn.benchmark", Value::of_bool(!benchmark_before)}}};
  auto lines = apply_torch_settings(calls, sets);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], "torch.call manual_seed(7)");
  EXPECT_EQ(lines[1], "torch.call set_num_threads(1)");
  EXPECT_EQ(lines[2], std::string("torch.set backends.cudnn.benchmark = ") + (benchmark_before ? "False" : "True"));
  EXPECT_EQ(at::get_num_threads(), 1);
  EXPECT_EQ(at::globalContext().benchmarkCuDNN(), !benchmark_before);
  at::globalContext().setBenchmarkCuDNN(benchmark_before);
}

// The sdpa kernels' switches, dotted as upstream's eval(f'torch.{key}({val})') reads them: on CUDA padded batches
// skip cuDNN regardless (varying_shape_sdpa); these turn a kernel off for every call.
TEST(TorchSettings, DottedCallsSwitchSdpaKernels) {
  auto& ctx = at::globalContext();
  struct Restore {  // the two switches as they were, however the test ends
    bool cudnn = at::globalContext().userEnabledCuDNNSDP(), math = at::globalContext().userEnabledMathSDP();
    ~Restore() {
      at::globalContext().setSDPUseCuDNN(cudnn);
      at::globalContext().setSDPUseMath(math);
    }
  } restore;
  const bool cudnn = restore.cudnn, math = restore.math;
  const auto lines = apply_torch_settings(TorchCalls{{{"backends.cuda.enable_cudnn_sdp", Value::of_bool(!cudnn)},
                                                      {"backends.cuda.enable_math_sdp", Value::of_bool(!math)}}},
                                          {});
  EXPECT_EQ(lines.at(0), std::string("torch.call backends.cuda.enable_cudnn_sdp(") + (cudnn ? "False" : "True") + ")");
  EXPECT_EQ(ctx.userEnabledCuDNNSDP(), !cudnn);
  EXPECT_EQ(ctx.userEnabledMathSDP(), !math);
}

// Defect: with the math and flash kernels switched off, every CPU combination failed with LibTorch's "No viable
// backend for scaled_dot_product_attention" line, naming no option. Refused up front, naming the options.
TEST(TorchSettings, NoSdpaKernelLeftIsRefusedNamingTheSwitches) {
  auto& ctx = at::globalContext();
  struct Restore {  // the switches as they were, however the test ends
    bool flash = at::globalContext().userEnabledFlashSDP(), math = at::globalContext().userEnabledMathSDP();
    bool mem = at::globalContext().userEnabledMemEfficientSDP();
    ~Restore() {
      at::globalContext().setSDPUseFlash(flash);
      at::globalContext().setSDPUseMath(math);
      at::globalContext().setSDPUseMemEfficient(mem);
    }
  } restore;
  const c10::Device cpu(c10::kCPU);
  EXPECT_NO_THROW(check_sdpa_kernels(cpu, "cpu"));
  apply_torch_settings(TorchCalls{{{"backends.cuda.enable_flash_sdp", Value::of_bool(false)},
                                   {"backends.cuda.enable_math_sdp", Value::of_bool(false)},
                                   {"backends.cuda.enable_mem_efficient_sdp", Value::of_bool(true)}}},
                       {});
  try {
    check_sdpa_kernels(cpu, "cpu");
    ADD_FAILURE() << "no kernel left on the CPU, and no refusal";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), 2) << e.what();
    EXPECT_NE(std::string(e.what()).find("--torch.call:backends.cuda.enable_math_sdp@ False"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("--platform cpu"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(check_sdpa_kernels(c10::Device(c10::kCUDA, 1), "cuda:1"));  // the memory-efficient kernel is CUDA's
  EXPECT_NO_THROW(check_sdpa_kernels(c10::Device(c10::kPrivateUse1, 0), "refdev"));  // a plugin's device: its own kernels
  ctx.setSDPUseMath(true);
  EXPECT_NO_THROW(check_sdpa_kernels(cpu, "cpu"));
}

TEST(TorchSettings, ManualSeedReallySeeds) {
  apply_torch_settings(TorchCalls{{{"manual_seed", Value::of_int(42)}}}, {});
  auto a = torch::rand({4});
  apply_torch_settings(TorchCalls{{{"manual_seed", Value::of_int(42)}}}, {});
  auto b = torch::rand({4});
  EXPECT_TRUE(torch::equal(a, b));
}

TEST(TorchSettings, UnknownCallListsKnownNames) {
  auto msg = usage_message(TorchCalls{{{"set_num_thread", Value::of_int(2)}}}, {});
  EXPECT_NE(msg.find("unknown option --torch.call:set_num_thread;"), std::string::npos) << msg;
  EXPECT_NE(msg.find("set_num_threads"), std::string::npos) << msg;
  EXPECT_NE(msg.find("use_deterministic_algorithms"), std::string::npos) << msg;
}

TEST(TorchSettings, UnknownSetListsKnownPaths) {
  auto msg = usage_message({}, TorchSets{{{"backends.cudnn.benchmarks", Value::of_bool(true)}}});
  EXPECT_NE(msg.find("unknown option --torch.set:backends.cudnn.benchmarks;"), std::string::npos) << msg;
  EXPECT_NE(msg.find("backends.cuda.matmul.allow_tf32"), std::string::npos) << msg;
}

TEST(TorchSettings, WrongTypeNamesExpectedType) {
  auto msg = usage_message(TorchCalls{{{"set_grad_enabled", Value::of_string("maybe")}}}, {});
  EXPECT_NE(msg.find("--torch.call:set_grad_enabled expects a bool (True or False); got the string 'maybe'"), std::string::npos) << msg;
  msg = usage_message(TorchCalls{{{"set_num_threads", Value::of_float(2.5)}}}, {});
  EXPECT_NE(msg.find("--torch.call:set_num_threads expects an int; got the float 2.5"), std::string::npos) << msg;
}

TEST(TorchSettings, PlainTextReadsAsUpstreamsPythonWould) {
  // Upstream runs eval(f'torch.{key}({val})'): `--torch.call:set_grad_enabled False` works without '@'.
  EXPECT_EQ(usage_message(TorchCalls{{{"set_grad_enabled", Value::of_string("False")}}}, {}), "");
  EXPECT_TRUE(grad_enabled_requested(TorchCalls{{{"set_grad_enabled", Value::of_string("True")}}}));
  auto lines = apply_torch_settings(TorchCalls{{{"manual_seed", Value::of_string("3")}}}, {});
  EXPECT_EQ(lines.at(0), "torch.call manual_seed(3)");
}

TEST(TorchSettings, RefusesNonPositiveThreadsAndUnknownPrecision) {
  EXPECT_NE(usage_message(TorchCalls{{{"set_num_threads", Value::of_int(0)}}}, {}).find("positive"), std::string::npos);
  EXPECT_NE(usage_message(TorchCalls{{{"set_float32_matmul_precision", Value::of_string("low")}}}, {})
                .find("expects one of highest, high, medium; got 'low'"),
            std::string::npos);
}

// A thread count is admitted up to 4 per CPU of the machine: LibTorch would start every thread asked for.
TEST(TorchSettings, RefusesMoreThreadsThanFourPerCpu) {
  const int64_t cpus = std::max<int64_t>(1, std::thread::hardware_concurrency());
  for (const char* name : {"set_num_threads", "set_num_interop_threads"}) {
    SCOPED_TRACE(name);
    EXPECT_EQ(usage_message(TorchCalls{{{name, Value::of_int(4 * cpus)}}}, {}), "");
    EXPECT_EQ(usage_message(TorchCalls{{{name, Value::of_int(2147483647)}}}, {}),
              fmt::format("--torch.call:{} must be at most {} (4 per CPU, {} CPUs here); got 2147483647", name,
                          4 * cpus, cpus));
    EXPECT_NE(usage_message(TorchCalls{{{name, Value::of_int(4 * cpus + 1)}}}, {}), "");
  }
}

TEST(TorchSettings, GradIsOffUnlessAskedFor) {
  EXPECT_FALSE(grad_enabled_requested({}));
  EXPECT_FALSE(grad_enabled_requested(TorchCalls{{{"set_grad_enabled", Value::of_bool(false)}}}));
  EXPECT_TRUE(grad_enabled_requested(TorchCalls{{{"set_grad_enabled", Value::of_bool(true)}}}));
}

}  // namespace
// Thread counts from the environment: what libgomp and MKL would ignore or take as 1 is refused by name.
TEST(TorchSettings, ThreadCountsFromTheEnvironmentAreChecked) {
  const auto with = [](std::map<std::string, std::string> env) {
    return [env](const char* name) -> const char* {
      const auto it = env.find(name);
      return it == env.end() ? nullptr : it->second.c_str();
    };
  };
  EXPECT_NO_THROW(check_thread_environment(with({})));
  EXPECT_NO_THROW(check_thread_environment(with({{"OMP_NUM_THREADS", "1"}, {"MKL_NUM_THREADS", "1"}})));
  EXPECT_NO_THROW(check_thread_environment(with({{"OMP_NUM_THREADS", "1,1"}})));
  for (const auto& [name, value] : std::vector<std::pair<std::string, std::string>>{
           {"OMP_NUM_THREADS", "abc"}, {"OMP_NUM_THREADS", "0"}, {"OMP_NUM_THREADS", ""}, {"OMP_NUM_THREADS", "1,"},
           {"OMP_NUM_THREADS", "99999999999"}, {"MKL_NUM_THREADS", "abc"}, {"MKL_NUM_THREADS", "1,2"},
           {"MKL_NUM_THREADS", "-3"}}) {
    SCOPED_TRACE(name + "=" + value);
    try {
      check_thread_environment(with({{name, value}}));
      ADD_FAILURE() << "accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::usage);
      EXPECT_EQ(std::string(e.what()).rfind("environment variable " + name + "='" + value + "' is not a thread count: "
                                            "give a whole number from 1 to ", 0),
                0u)
          << e.what();
    }
  }
}

}  // namespace fmwork
