#include "fmwork/runtime/runtime_info.hpp"

#include <ATen/Parallel.h>
#include <ATen/Version.h>
#include <ATen/cpu/Utils.h>
#include <torch/version.h>

#include <regex>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "fmwork/base/text_format.hpp"

namespace fmwork {
namespace {

// The first capture group of `pattern` in `text`, or "".
std::string capture(const std::string& text, const char* pattern) {
  std::smatch m;
  return std::regex_search(text, m, std::regex(pattern)) ? m[1].str() : std::string();
}

// The cpuinfo facts ATen reads: the CPU's name and its vector instructions as one token.
void read_cpu(RuntimeInfo& info) {
  const auto caps = at::cpu::get_cpu_capabilities();
  const auto flag = [&](const char* key) {
    const auto it = caps.find(key);
    return it != caps.end() && it->second.isBool() && it->second.toBool();
  };
  const auto name = caps.find("cpu_name");
  info.cpu = name != caps.end() && name->second.isString() && !name->second.toStringRef().empty()
                 ? name->second.toStringRef()
                 : "unknown";
  // Each is what one dtype's fast path needs: avx2 and avx512 float32, avx512_bf16 / amx bfloat16,
  // avx512_fp16 / amx_fp16 float16.
  const std::pair<const char*, bool> named[] = {
      {"avx2", flag("avx2")},
      {"avx512", flag("avx512_f")},
      {"avx512_bf16", flag("avx512_bf16")},
      {"avx512_fp16", flag("avx512_fp16")},
      {"amx", flag("amx_tile") && flag("amx_bf16")},
      {"amx_fp16", flag("amx_fp16")},
  };
  for (const auto& [isa, present] : named)
    if (present) info.cpu_isa += (info.cpu_isa.empty() ? "" : "+") + std::string(isa);
  if (info.cpu_isa.empty()) info.cpu_isa = "none";
  info.aten_capability = at::get_cpu_capability();
  info.isa = isa_under_capability(info.cpu_isa, info.aten_capability);
}

bool has_isa(const std::string& isa, const std::string& name) {
  for (std::string_view piece : split(isa, '+'))
    if (piece == name) return true;
  return false;
}

}  // namespace

std::string isa_under_capability(const std::string& cpu_isa, const std::string& aten_capability) {
  if (aten_capability == "AVX2") return has_isa(cpu_isa, "avx2") ? "avx2" : "none";
  if (aten_capability == "DEFAULT" || aten_capability == "NO AVX") return "none";  // the latter: older LibTorch
  return cpu_isa;
}

std::string native_dtype_warning(const std::string& dtype, const std::string& isa) {
  std::vector<std::string> native;
  if (dtype == "bfloat16") native = {"avx512_bf16", "amx"};
  else if (dtype == "float16") native = {"avx512_fp16", "amx_fp16"};
  else return "";
  for (const auto& n : native)
    if (has_isa(isa, n)) return "";
  return fmt::format("{} has no native instructions on this CPU ({}: no {} or {}); ATen converts to float32 "
                     "around each operation, so expect it to run slower than float32, transformers' too",
                     dtype, isa, native[0], native[1]);
}

RuntimeInfo runtime_info() {
  const std::string config = at::show_config();
  RuntimeInfo info;
  info.torch_version = TORCH_VERSION;
  info.blas = capture(config, R"(BLAS_INFO=([A-Za-z0-9_]+))");
  if (info.blas.empty()) info.blas = "unknown";
  const std::string mkl = capture(config, R"(Math Kernel Library Version ([0-9.]+))");
  if (info.blas == "mkl" && !mkl.empty()) info.blas += " " + mkl;
  info.onednn = capture(config, R"(MKL-DNN v([0-9.]+))");
  if (info.onednn.empty()) info.onednn = "none";
  info.parallel = capture(at::get_parallel_info(), R"(ATen parallel backend: ([^\n]+))");
  if (info.parallel.empty()) info.parallel = "unknown";
  info.intra_op_threads = at::get_num_threads();
  info.inter_op_threads = at::get_num_interop_threads();
  read_cpu(info);
  return info;
}

std::string describe_runtime(const RuntimeInfo& info) {
  const std::string held = info.isa == info.cpu_isa
                               ? std::string()
                               : fmt::format("; ATen held to {} on a CPU with {}", info.aten_capability, info.cpu_isa);
  return fmt::format("math: BLAS {}, oneDNN {}, parallel backend {}; threads: {} intra-op, {} inter-op\ncpu: {} ({}{})",
                     info.blas, info.onednn, info.parallel, info.intra_op_threads, info.inter_op_threads, info.cpu,
                     info.isa, held);
}

}  // namespace fmwork
