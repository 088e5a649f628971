// Tests of sweep/fed_shapes (and serve_run's serve_fed_shapes): what a sweep or serve feeds a model built for
// some shapes (an AOTInductor package), refused before the run in one line naming the option, the shapes it
// feeds and those the model takes. A static package fed the drawn lengths of --input_lengths, or serve's
// batcher's smaller batches, died inside the package.
#include "fmwork/sweep/fed_shapes.hpp"

#include <gtest/gtest.h>

#include "fmwork/sweep/serve_run.hpp"
#include "support/test_support.hpp"

namespace fmwork {
namespace {

using test_support::encoders::error_of;

ModelFacts built_per_combination() {
  ModelFacts f;
  f.shape_per_combination = true;
  f.shapes_by = "a package built for one batch x input (--compile:backend inductor, --compile:dynamic@ False)";
  return f;
}

ModelFacts package_of(ShapeRange range) {
  ModelFacts f;
  f.shapes = range;
  f.shapes_by = "the AOTInductor package p.pt2";
  return f;
}

SweepPlan plan_with(const char* lengths) {
  SweepPlan plan;
  plan.args.batch_sizes = {2};
  plan.args.input_sizes = {16};
  if (lengths) plan.args.lengths = parse_length_spec(lengths, "--input_lengths");
  return plan;
}

TEST(FedShapes, DrawnLengthsAreRefusedForAPackageOfOneShape) {
  EXPECT_EQ(error_of([] { check_sweep_shapes(plan_with("uniform:4,16"), built_per_combination()); }, ErrorKind::usage),
            "--input_lengths uniform:4,16 (each batch padded to its longest request) feeds the model rows of 4 to 16 "
            "tokens, but a package built for one batch x input (--compile:backend inductor, --compile:dynamic@ False) "
            "takes rows of 16 tokens only; give --compile:dynamic@ True (one package for every shape up to the "
            "model's longest input)");
  check_sweep_shapes(plan_with(nullptr), built_per_combination());  // full rows: the package's shape
  check_sweep_shapes(plan_with("16"), built_per_combination());     // every request as long
  SweepPlan one_shape = plan_with("uniform:4,16");
  one_shape.one_shape = true;  // padded to the input size
  check_sweep_shapes(one_shape, built_per_combination());
  SweepPlan checked = plan_with("uniform:4,16");
  checked.args.check_outputs = "ref";  // the references' shapes, held at run time
  check_sweep_shapes(checked, built_per_combination());
}

TEST(FedShapes, APackagesRangeHoldsTheLengthsAndLeavesOutsideCombinationsToFail) {
  EXPECT_EQ(error_of([] { check_sweep_shapes(plan_with("uniform:1,16"), package_of({1, 4, 8, 64})); },
                     ErrorKind::usage),
            "--input_lengths uniform:1,16 (each batch padded to its longest request) feeds the model rows of 1 to 16 "
            "tokens, but the AOTInductor package p.pt2 takes rows of 8 to 64 tokens only; keep them within its "
            "range, or build a package of a wider one");
  check_sweep_shapes(plan_with("uniform:8,16"), package_of({1, 4, 8, 64}));
  SweepPlan outside = plan_with("uniform:1,16");
  outside.args.batch_sizes = {9};  // the combination itself is outside: its FAIL line says so
  check_sweep_shapes(outside, package_of({1, 4, 8, 64}));
  check_sweep_shapes(plan_with("uniform:1,16"), ModelFacts{});  // a model of any shape
}

ServeSetup serve_setup(int64_t max_batch, const char* lengths) {
  ServeSetup s;
  s.max_batch = max_batch;
  s.lengths = parse_length_spec(lengths, "--input_lengths");
  return s;
}

TEST(FedShapes, ServeFeedsTheBatchersSizesOrAOneShapePlatformsOneShape) {
  PlatformConstraints any, spyre;
  spyre.single_batch_size = spyre.single_input_size = true;
  const FedShapes batcher = serve_fed_shapes(serve_setup(8, "uniform:4,16"), any);
  EXPECT_EQ(batcher.rows.lo, 1);
  EXPECT_EQ(batcher.rows.hi, 8);
  EXPECT_EQ(batcher.tokens.lo, 4);
  EXPECT_EQ(batcher.tokens.hi, 16);
  const FedShapes one = serve_fed_shapes(serve_setup(8, "uniform:4,16"), spyre);
  EXPECT_EQ(one.rows.lo, 8);
  EXPECT_EQ(one.tokens.lo, 16);

  EXPECT_EQ(error_of([&] { check_serve_shapes(serve_setup(8, "16"), any, built_per_combination()); }, ErrorKind::usage),
            "driver serve's batcher (--batch_sizes 8: 1 to 8 queries a batch) feeds the model batches of 1 to 8 rows, "
            "but a package built for one batch x input (--compile:backend inductor, --compile:dynamic@ False) takes "
            "batches of 8 rows only; give --compile:dynamic@ True (one package for every shape up to the model's "
            "longest input)");
  check_serve_shapes(serve_setup(8, "uniform:4,16"), spyre, built_per_combination());
  check_serve_shapes(serve_setup(1, "16"), any, built_per_combination());
  EXPECT_NE(error_of([&] { check_serve_shapes(serve_setup(8, "uniform:4,16"), any, package_of({1, 4, 1, 64})); },
                     ErrorKind::usage)
                .find("feeds the model batches of 1 to 8 rows, but the AOTInductor package p.pt2 takes batches of 1 "
                      "to 4 rows only"),
            std::string::npos);
}

}  // namespace
}  // namespace fmwork
