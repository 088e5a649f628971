// The shapes a run feeds its model (a batch's rows, the tokens each row is padded to), held to the shapes a
// model built for some only takes (ModelFacts::shapes, shape_per_combination: AOTInductor packages) before the
// run starts: a shape outside them is refused in one line naming the option that makes it and what the model
// takes, instead of reaching the package mid-run (which checks nothing itself: it died there, results lost).
// A combination's own batch x input outside a package's range stays that combination's FAIL line
// (Model::prepare), as every shape a model refuses; what is held here is what the plan feeds beyond it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "fmwork/model/model.hpp"
#include "fmwork/sweep/sweep.hpp"
#include "fmwork/workload/lengths.hpp"

namespace fmwork {

// One dimension of what a run feeds: lo to hi, made by `source` (the option, for messages).
struct FedRange {
  int64_t lo = 1, hi = 1;
  std::string source;
};
struct FedShapes {
  FedRange rows, tokens;
};

// A usage Error when `fed` reaches outside what `facts` takes: its range (`shapes`), or, built per
// combination (`shape_per_combination`), `built_batch` x `built_input` alone. One line: "<source> feeds the
// model rows of 1 to 48 tokens, but <shapes_by> takes rows of 48 tokens only; <what to do>". Nothing for a
// model that takes any shape.
void check_fed_shapes(const ModelFacts& facts, const FedShapes& fed, int64_t built_batch, int64_t built_input);

// check_fed_shapes over every combination of `plan` whose own shape the model takes (the others fail as
// combinations).
void check_sweep_shapes(const SweepPlan& plan, const ModelFacts& facts);

}  // namespace fmwork
