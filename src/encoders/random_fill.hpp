// Seeded random weights, fast, for every native family: a normal (optionally truncated) filler, and the
// check that a config's weights fit in the host's memory before the first is allocated.
#pragma once

#include <cstdint>
#include <vector>

#include <ATen/ATen.h>

#include "fmwork/encoders/native_encoder.hpp"
#include "fmwork/hf/config.hpp"

namespace fmwork::hf {

// Seeded N(0, std) values fast: 2^20 values drawn with ATen's generator, then laid out in runs of 4096 at
// seeded random offsets into that pool. Each weight has exactly the pool's marginal distribution; runs may
// repeat, which changes nothing for timing. ATen's normal_ alone takes ~10 ns per value on one core: seconds
// for a 125M-parameter model, where this takes tens of milliseconds. With `cutoff` > 0 the values are
// truncated to [-cutoff std, cutoff std] by the inverse-CDF method of torch.nn.init.trunc_normal_.
class NormalFiller {
 public:
  NormalFiller(uint64_t seed, double std_dev, double cutoff = 0);
  // A float32 tensor of `shape` filled from the pool.
  at::Tensor operator()(const std::vector<int64_t>& shape);

 private:
  static constexpr int64_t kPool = 1 << 20, kRun = 4096;
  uint64_t next();  // splitmix64
  uint64_t state_;
  at::Tensor pool_;
};

// Random weights are sized by config.json alone, whose fields may each be in range and still add up to more
// memory than the host has: a runtime Error with the figures (naming c.source) when `shapes` in `dtype`, plus
// the largest drawn in float32 before conversion, exceed the host's available memory.
void check_random_weights_fit(const EncoderConfig& c, const NamedShapes& shapes, at::ScalarType dtype);

}  // namespace fmwork::hf
