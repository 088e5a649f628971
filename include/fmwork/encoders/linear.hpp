// The native encoders' linear layers: a weight, its bias, and MKL's packed copy of the weight for one row
// count (LibTorch's mkl::_mkl_reorder_linear_weight / _mkl_linear: the same results, faster GEMMs, most of
// all for few tokens). Shared by every family.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <ATen/ATen.h>

namespace fmwork::hf {

struct Linear {
  at::Tensor weight, bias;  // [out, in], [out] (bias undefined for layers without one)
  // MKL's packed copy of `weight` for inputs of exactly `packed_rows` rows (pack_linear), or undefined.
  at::Tensor packed{};
  int64_t packed_rows = 0;
};
struct Norm {
  at::Tensor weight, bias;  // bias undefined for norms without one
};

// Whether this LibTorch registers MKL's packed GEMM (libtorch_cpu built with MKL).
bool mkl_packed_gemm_available();

// x [..., in] through `l`: on its MKL pack when one was made for x's row count, else at::linear.
at::Tensor run_linear(const at::Tensor& x, const Linear& l);

// Drops l's pack, then, when `on` and the weight is defined, packs it for `rows` rows. Never two packs of
// one weight at once.
void pack_linear(Linear& l, int64_t rows, bool on);

// Whether packed GEMM is on by default on this CPU: where ATen runs AVX-512 kernels. On an AVX2-only AMD
// EPYC MKL's packed path measured 5-20% slower than at::linear for ModernBERT at up to 128 rows, though
// faster at 1024 (bench/README.md, bench/families_vs_python.py), so it is opt-in there.
bool packed_gemm_by_default();

// Whether packing pays here: on, float32, on the CPU, MKL present.
bool packs_here(bool packed_gemm, at::ScalarType dtype, const at::Device& device);

// The MODEL line for the linear layers: "MKL packed GEMM (...)" or "at::linear (why not packed)".
std::string linear_description(bool packed_gemm, at::ScalarType dtype, const at::Device& device);

// Tensors of [rows, ...] each (rows may differ) as one [sum of rows, ...] tensor: a view of their memory when
// each starts where the previous ends (the view keeps them alive), a copy when `allow_copy`, else undefined.
// Undefined when any part is.
at::Tensor fuse_rows(const std::vector<at::Tensor>& parts, bool allow_copy);
inline at::Tensor fuse3(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, bool allow_copy) {
  return fuse_rows({q, k, v}, allow_copy);
}

// Moves a tensor to `device` when defined and elsewhere.
void move_to(at::Tensor& t, const at::Device& device);
// Moves a layer's weight and bias, dropping its pack.
void move_to(Linear& l, const at::Device& device);
void move_to(Norm& n, const at::Device& device);

// The lowest finite value of a floating dtype: the additive mask transformers uses for masked keys.
double lowest_of(at::ScalarType t);

}  // namespace fmwork::hf
