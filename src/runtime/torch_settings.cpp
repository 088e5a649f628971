#include "fmwork/runtime/torch_settings.hpp"

#include <ATen/Context.h>
#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <algorithm>
#include <functional>
#include <map>
#include <thread>

#include <fmt/format.h>

#include "fmwork/base/error.hpp"
#include "fmwork/base/option_values.hpp"
#include "fmwork/base/python_value.hpp"
#include "fmwork/cli/option_sets.hpp"

namespace fmwork {
namespace {

// What applying a name's value does (torch_setting_value, cli/option_sets.hpp, has checked and typed it).
using Setting = std::function<void(const Value&)>;

const std::map<std::string, Setting>& call_table() {
  static const std::map<std::string, Setting> table = {
      {"set_grad_enabled", [](const Value& v) { c10::GradMode::set_enabled(v.boolean); }},
      {"set_num_threads", [](const Value& v) { at::set_num_threads(static_cast<int>(v.integer)); }},
      {"set_num_interop_threads", [](const Value& v) { at::set_num_interop_threads(static_cast<int>(v.integer)); }},
      {"manual_seed", [](const Value& v) { torch::manual_seed(static_cast<uint64_t>(v.integer)); }},
      {"set_float32_matmul_precision", [](const Value& v) { at::globalContext().setFloat32MatmulPrecision(v.text); }},
      {"use_deterministic_algorithms",
       [](const Value& v) { at::globalContext().setDeterministicAlgorithms(v.boolean, false); }},
      {"set_flush_denormal",
       [](const Value& v) {
         if (!at::globalContext().setFlushDenormal(v.boolean) && v.boolean)
           throw runtime_error("--torch.call:set_flush_denormal: this CPU does not support flushing denormals");
       }},
  };
  return table;
}

const std::map<std::string, Setting>& set_table() {
  auto& ctx = at::globalContext();
  static const std::map<std::string, Setting> table = {
      {"backends.cudnn.benchmark", [&](const Value& v) { ctx.setBenchmarkCuDNN(v.boolean); }},
      {"backends.cudnn.deterministic", [&](const Value& v) { ctx.setDeterministicCuDNN(v.boolean); }},
      {"backends.cudnn.allow_tf32", [&](const Value& v) { ctx.setAllowTF32CuDNN(v.boolean); }},
      {"backends.cudnn.enabled", [&](const Value& v) { ctx.setUserEnabledCuDNN(v.boolean); }},
      {"backends.cuda.matmul.allow_tf32", [&](const Value& v) { ctx.setAllowTF32CuBLAS(v.boolean); }},
      {"backends.mkldnn.enabled", [&](const Value& v) { ctx.setUserEnabledMkldnn(v.boolean); }},
  };
  return table;
}

std::vector<std::string> keys_of(const std::map<std::string, Setting>& table) {
  std::vector<std::string> names;
  for (const auto& [name, setting] : table) names.push_back(name);
  return names;
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
void apply_each(const std::string& set, const std::map<std::string, Setting>& table, const Entries& entries,
                std::string (*line)(const std::string& name, const std::string& value), std::vector<std::string>& lines) {
  for (const auto& [name, given] : entries) {
    const Value value = torch_setting_value(set, name, given);
    try {
      table.at(name)(value);
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
  apply_each("torch.call", call_table(), calls.calls,
             [](const std::string& name, const std::string& value) { return fmt::format("torch.call {}({})", name, value); },
             lines);
  apply_each("torch.set", set_table(), sets.sets,
             [](const std::string& path, const std::string& value) { return fmt::format("torch.set {} = {}", path, value); },
             lines);
  return lines;
}

bool grad_enabled_requested(const TorchCalls& calls) {
  for (const auto& [name, value] : calls.calls)
    if (name == "set_grad_enabled")
      return torch_setting_value("torch.call", name, value).boolean;
  return false;
}

std::vector<std::string> torch_call_names() { return keys_of(call_table()); }

std::vector<std::string> torch_set_paths() { return keys_of(set_table()); }

}  // namespace fmwork
