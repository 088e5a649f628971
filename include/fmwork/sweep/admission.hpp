// Memory admission: whether one shape's inputs and activations fit in what the platform has available, asked
// before anything is allocated for it, by the sweep (each combination) and driver serve (its largest batch).
#pragma once

#include <cstdint>

#include "fmwork/model/model.hpp"
#include "fmwork/platform/platform.hpp"

namespace fmwork {

// Memory admission of one shape, before anything is allocated for it: its inputs (three [batch, input] int64
// tensors) and the model's activation estimate against what the platform has available (the inputs alone
// against the host's, on a platform that reports none). A runtime Error with the figures and what to lower when
// it would not fit: the sweep makes it the combination's FAIL line, driver serve refuses its largest batch with
// it before any level runs, instead of an out-of-memory kill or the allocator's own text.
// The model's own shape check (an input longer than its positions) comes first, in the caller.
void admit(int64_t batch, int64_t input, const Model& model, Platform& platform);

}  // namespace fmwork
