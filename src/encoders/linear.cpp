// Linear layers and their MKL packs, shared by the native encoders. See include/fmwork/encoders/linear.hpp.
#include "fmwork/encoders/linear.hpp"

#include <limits>
#include <optional>
#include <vector>

#include <ATen/Context.h>
#include <ATen/Version.h>
#include <ATen/core/dispatch/Dispatcher.h>

namespace fmwork::hf {
namespace {

// LibTorch's MKL packed GEMM (registered by libtorch_cpu when built with MKL): pack a weight for a row
// count, then run linear layers on the pack.
using MklReorderFn = at::Tensor(const at::Tensor&, int64_t);
using MklLinearFn = at::Tensor(const at::Tensor&, const at::Tensor&, const at::Tensor&, const std::optional<at::Tensor>&,
                               int64_t);
struct MklOps {
  std::optional<c10::TypedOperatorHandle<MklReorderFn>> reorder;
  std::optional<c10::TypedOperatorHandle<MklLinearFn>> linear;
};
const MklOps& mkl_ops() {
  static const MklOps ops = [] {
    MklOps o;
    auto reorder = c10::Dispatcher::singleton().findSchema({"mkl::_mkl_reorder_linear_weight", ""});
    auto linear = c10::Dispatcher::singleton().findSchema({"mkl::_mkl_linear", ""});
    if (reorder && linear && at::hasMKL()) {
      o.reorder = reorder->typed<MklReorderFn>();
      o.linear = linear->typed<MklLinearFn>();
    }
    return o;
  }();
  return ops;
}

// Whether each part starts where the previous ends (same dtype, device, contiguous): one block of memory.
bool adjacent(const std::vector<at::Tensor>& parts) {
  for (const auto& t : parts)
    if (!t.is_contiguous() || t.scalar_type() != parts[0].scalar_type() || t.device() != parts[0].device()) return false;
  for (size_t i = 1; i < parts.size(); ++i)
    if (static_cast<const char*>(parts[i - 1].data_ptr()) + parts[i - 1].nbytes() != parts[i].data_ptr()) return false;
  return true;
}

}  // namespace

bool mkl_packed_gemm_available() { return mkl_ops().linear.has_value(); }

at::Tensor run_linear(const at::Tensor& x, const Linear& l) {
  if (l.packed.defined() && x.numel() / x.size(-1) == l.packed_rows)
    return mkl_ops().linear->call(x.contiguous(), l.packed, l.weight, l.bias, l.packed_rows);
  return at::linear(x, l.weight, l.bias);
}

void pack_linear(Linear& l, int64_t rows, bool on) {
  l.packed = at::Tensor();
  l.packed_rows = 0;
  if (!on || !l.weight.defined()) return;
  l.packed = mkl_ops().reorder->call(l.weight, rows);
  l.packed_rows = rows;
}

bool packed_gemm_by_default() {
  static const bool avx512 = at::get_cpu_capability().rfind("AVX512", 0) == 0;
  return avx512;
}

bool packs_here(bool packed_gemm, at::ScalarType dtype, const at::Device& device) {
  return packed_gemm && dtype == at::kFloat && device.is_cpu() && mkl_packed_gemm_available();
}

std::string linear_description(bool packed_gemm, at::ScalarType dtype, const at::Device& device) {
  if (packs_here(packed_gemm, dtype, device))
    return "MKL packed GEMM (weights packed for each combination's batch x input tokens before its reps; "
           "--model:packed_gemm@ False for at::linear)";
  if (dtype != at::kFloat) return "at::linear (packed GEMM is for float32)";
  if (!device.is_cpu()) return "at::linear (packed GEMM is for the CPU)";
  if (!packed_gemm && !packed_gemm_by_default())
    return "at::linear (MKL packed GEMM is off by default without AVX-512, where it measured slower; "
           "--model:packed_gemm@ True turns it on)";
  if (!packed_gemm) return "at::linear (--model:packed_gemm@ False)";
  return "at::linear (this LibTorch has no MKL)";
}

at::Tensor fuse_rows(const std::vector<at::Tensor>& parts, bool allow_copy) {
  for (const auto& t : parts)
    if (!t.defined()) return at::Tensor();
  if (adjacent(parts)) {
    std::vector<int64_t> shape(parts[0].sizes().begin(), parts[0].sizes().end());
    shape[0] = 0;
    for (const auto& t : parts) shape[0] += t.size(0);
    // The view keeps the parts (and so their storage, e.g. a file mapping) alive.
    return at::from_blob(parts[0].data_ptr(), shape, [parts](void*) {}, parts[0].options());
  }
  if (!allow_copy) return at::Tensor();
  return at::cat(parts, 0);
}

void move_to(at::Tensor& t, const at::Device& device) {
  if (t.defined() && t.device() != device) t = t.to(device);
}

void move_to(Linear& l, const at::Device& device) {
  move_to(l.weight, device);
  move_to(l.bias, device);
  l.packed = at::Tensor();  // CPU packs mean nothing elsewhere; prepare() makes them again
  l.packed_rows = 0;
}

void move_to(Norm& n, const at::Device& device) {
  move_to(n.weight, device);
  move_to(n.bias, device);
}

double lowest_of(at::ScalarType t) {
  switch (t) {
    case at::kHalf: return -65504.0;
    case at::kBFloat16: return -3.3895313892515355e38;
    case at::kDouble: return std::numeric_limits<double>::lowest();
    default: return std::numeric_limits<float>::lowest();
  }
}

}  // namespace fmwork::hf
