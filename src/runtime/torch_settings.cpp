#include "fmwork/runtime/torch_settings.hpp"

#include <ATen/Context.h>
#include <ATen/Parallel.h>
#include <c10/core/GradMode.h>
#include <c10/util/Exception.h>

#include <algorithm>
#include <functional>
#include <thread>

#include <fmt/format.h>

#include "fmwork/base/error.hpp"
#include "fmwork/base/option_values.hpp"
#include "fmwork/base/python_value.hpp"
#include "fmwork/cli/option_sets.hpp"

namespace fmwork {
namespace {

// Applies a row's value (torch_setting_value, cli/option_sets.hpp, has checked and typed it): a switch with no
// default over the one table's rows, so that a row not written here fails to compile (-Werror=switch).
void apply(TorchSetting setting, const Value& v) {
  auto& ctx = at::globalContext();
  switch (setting) {
    case TorchSetting::set_grad_enabled: c10::GradMode::set_enabled(v.boolean); return;
    case TorchSetting::set_num_threads: at::set_num_threads(static_cast<int>(v.integer)); return;
    case TorchSetting::set_num_interop_threads: at::set_num_interop_threads(static_cast<int>(v.integer)); return;
    case TorchSetting::manual_seed: at::manual_seed(static_cast<uint64_t>(v.integer)); return;
    case TorchSetting::set_float32_matmul_precision: ctx.setFloat32MatmulPrecision(v.text); return;
    case TorchSetting::use_deterministic_algorithms: ctx.setDeterministicAlgorithms(v.boolean, false); return;
    case TorchSetting::set_flush_denormal:
      if (!ctx.setFlushDenormal(v.boolean) && v.boolean)
        throw runtime_error("--torch.call:set_flush_denormal: this CPU does not support flushing denormals");
      return;
    case TorchSetting::sdp_flash: ctx.setSDPUseFlash(v.boolean); return;
    case TorchSetting::sdp_mem_efficient: ctx.setSDPUseMemEfficient(v.boolean); return;
    case TorchSetting::sdp_math: ctx.setSDPUseMath(v.boolean); return;
    case TorchSetting::sdp_cudnn: ctx.setSDPUseCuDNN(v.boolean); return;
    case TorchSetting::cudnn_benchmark: ctx.setBenchmarkCuDNN(v.boolean); return;
    case TorchSetting::cudnn_deterministic: ctx.setDeterministicCuDNN(v.boolean); return;
    case TorchSetting::cudnn_allow_tf32: ctx.setAllowTF32CuDNN(v.boolean); return;
    case TorchSetting::cudnn_enabled: ctx.setUserEnabledCuDNN(v.boolean); return;
    case TorchSetting::cuda_matmul_allow_tf32: ctx.setAllowTF32CuBLAS(v.boolean); return;
    case TorchSetting::mkldnn_enabled: ctx.setUserEnabledMkldnn(v.boolean); return;
  }
}

}  // namespace

void check_thread_environment(const std::function<const char*(const char*)>& getenv) {
  const int64_t cpus = std::max<int64_t>(1, std::thread::hardware_concurrency());
  const int64_t limit = kMaxThreadsPerCpu * cpus;
  for (const auto& [name, list] : {std::pair{"OMP_NUM_THREADS", true}, {"MKL_NUM_THREADS", false}}) {
    const char* raw = getenv(name);
    if (!raw) continue;
    const std::string value = raw;
    bool good = !value.empty();
    size_t start = 0;
    while (good && start <= value.size()) {
      const size_t end = list ? std::min(value.find(',', start), value.size()) : value.size();
      const std::string word = value.substr(start, end - start);
      const std::optional<int64_t> count = parse_digits(word);
      good = count && *count >= 1 && *count <= limit;
      start = end + 1;
    }
    if (!good)
      throw usage_error(fmt::format("environment variable {}='{}' is not a thread count: give a whole number from 1 "
                                    "to {} ({} per CPU, {} CPUs here){}, or unset it (--torch.call:set_num_threads@ N "
                                    "sets the driver's threads)",
                                    name, excerpt(value), limit, kMaxThreadsPerCpu, cpus,
                                    list ? ", or a comma-separated list of them" : ""));
  }
}

void validate_torch_settings(const TorchCalls& calls, const TorchSets& sets) {
  for (const auto& [name, value] : calls.calls) torch_setting_value("torch.call", name, value);
  for (const auto& [path, value] : sets.sets) torch_setting_value("torch.set", path, value);
}

namespace {

// Applies one set's entries in order, adding its RUNTIME line for each (`line` writes it from the name and the
// value's repr). A value LibTorch refuses is a runtime Error naming the option.
template <typename Entries>
void apply_each(const std::string& set, const Entries& entries,
                std::string (*line)(const std::string& name, const std::string& value), std::vector<std::string>& lines) {
  for (const auto& [name, given] : entries) {
    const auto [setting, value] = torch_setting_value(set, name, given);
    try {
      apply(setting, value);
    } catch (const c10::Error& e) {
      throw runtime_error(fmt::format("--{}:{}: LibTorch refused {}: {}", set, name, repr(value), e.what_without_backtrace()));
    }
    lines.push_back(line(name, repr(value)));
  }
}

}  // namespace

std::vector<std::string> apply_torch_settings(const TorchCalls& calls, const TorchSets& sets) {
  validate_torch_settings(calls, sets);
  std::vector<std::string> lines;
  apply_each("torch.call", calls.calls,
             [](const std::string& name, const std::string& value) { return fmt::format("torch.call {}({})", name, value); },
             lines);
  apply_each("torch.set", sets.sets,
             [](const std::string& path, const std::string& value) { return fmt::format("torch.set {} = {}", path, value); },
             lines);
  return lines;
}

void check_sdpa_kernels(const c10::Device& device, const std::string& platform) {
  const at::Context& ctx = at::globalContext();
  const bool cuda = device.is_cuda();
  if (!device.is_cpu() && !cuda) return;
  if (ctx.userEnabledMathSDP() || ctx.userEnabledFlashSDP() ||
      (cuda && (ctx.userEnabledMemEfficientSDP() || ctx.userEnabledCuDNNSDP())))
    return;
  throw usage_error(fmt::format(
      "--torch.call:backends.cuda.enable_math_sdp@ False with every fused kernel off leaves attention no kernel on "
      "--platform {}: drop that option, or leave --torch.call:backends.cuda.enable_flash_sdp on{}",
      platform, cuda ? " (or enable_mem_efficient_sdp, enable_cudnn_sdp)" : " (on the CPU it is the flash kernel)"));
}

bool grad_enabled_requested(const TorchCalls& calls) {
  for (const auto& [name, value] : calls.calls)
    if (name == "set_grad_enabled")
      return torch_setting_value("torch.call", name, value).value.boolean;
  return false;
}

}  // namespace fmwork
