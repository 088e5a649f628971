// Tests of sweep/bench_setup's batching rule: --batching's default on mixed lengths is unpadded exactly where
// --batching unpadded would be accepted (a model that runs packed tokens on a platform of many shapes), padded
// elsewhere and on fixed lengths. The refusal's words and the driver's line are held end to end in
// tests/integration/lengths_driver_test.cpp.
#include "fmwork/sweep/bench_setup.hpp"

#include <gtest/gtest.h>

namespace fmwork {
namespace {

TEST(DefaultBatching, UnpaddedOnMixedLengthsWhereTheModelAndPlatformRunIt) {
  ModelFacts native;
  native.runs_unpadded = true;
  const ModelFacts padded_only;  // TorchScript, packages, transformers' classes
  PlatformFacts many_shapes;
  PlatformFacts one_shape;
  one_shape.constraints.single_input_size = true;  // a plugin device's rule, such as Spyre's
  EXPECT_EQ(default_batching(true, native, many_shapes), Batching::unpadded);
  EXPECT_EQ(default_batching(true, padded_only, many_shapes), Batching::padded);
  EXPECT_EQ(default_batching(true, native, one_shape), Batching::padded)
      << "a platform of one shape pads every batch to the input size";
  EXPECT_EQ(default_batching(false, native, many_shapes), Batching::padded) << "fixed lengths have nothing to unpad";
}

}  // namespace
}  // namespace fmwork
