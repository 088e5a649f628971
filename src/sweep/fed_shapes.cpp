// A run's shapes held to the model's (fed_shapes.hpp).
#include "fmwork/sweep/fed_shapes.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "fmwork/base/error.hpp"

namespace fmwork {
namespace {

std::string span(int64_t lo, int64_t hi) { return lo == hi ? std::to_string(lo) : fmt::format("{} to {}", lo, hi); }

// `what` is "batches of {} rows" or "rows of {} tokens".
void hold(const FedRange& fed, int64_t lo, int64_t hi, const char* what, const ModelFacts& facts) {
  if (fed.lo >= lo && fed.hi <= hi) return;
  const std::string advice = facts.shape_per_combination
                                 ? "give --compile:dynamic@ True (one package for every shape up to the model's "
                                   "longest input)"
                                 : "keep them within its range, or build a package of a wider one";
  throw usage_error(fmt::format("{} feeds the model {}, but {} takes {} only; {}", fed.source,
                                fmt::format(fmt::runtime(what), span(fed.lo, fed.hi)), facts.shapes_by,
                                fmt::format(fmt::runtime(what), span(lo, hi)), advice));
}

// Sorted batching's short last batch is left out; --check_outputs's references bring their own shapes.
FedShapes sweep_fed_shapes(const SweepPlan& plan, int64_t batch, int64_t input) {
  FedShapes fed{{batch, batch, fmt::format("--batch_sizes {}", batch)},
                {input, input, fmt::format("--input_sizes {}", input)}};
  const std::optional<LengthSpec>& lengths = plan.args.lengths;
  if (lengths && !plan.one_shape && !plan.args.check_outputs)
    fed.tokens = {std::min(lengths->min, input), std::min(lengths->max, input),
                  "--input_lengths " + length_spec_text(*lengths) + " (each batch padded to its longest request)"};
  return fed;
}

}  // namespace

void check_fed_shapes(const ModelFacts& facts, const FedShapes& fed, int64_t built_batch, int64_t built_input) {
  if (facts.shape_per_combination) {
    hold(fed.rows, built_batch, built_batch, "batches of {} rows", facts);
    hold(fed.tokens, built_input, built_input, "rows of {} tokens", facts);
  } else if (facts.shapes) {
    hold(fed.rows, facts.shapes->batch_min, facts.shapes->batch_max, "batches of {} rows", facts);
    hold(fed.tokens, facts.shapes->input_min, facts.shapes->input_max, "rows of {} tokens", facts);
  }
}

void check_sweep_shapes(const SweepPlan& plan, const ModelFacts& facts) {
  for (const int64_t batch : plan.args.batch_sizes)
    for (const int64_t input : plan.args.input_sizes) {
      const std::optional<ShapeRange>& s = facts.shapes;
      if (s && (batch < s->batch_min || batch > s->batch_max || input < s->input_min || input > s->input_max))
        continue;  // the combination itself is outside: its FAIL line says so
      check_fed_shapes(facts, sweep_fed_shapes(plan, batch, input), batch, input);
    }
}

}  // namespace fmwork
