// A batch's real tokens packed one sequence after another (--batching unpadded): what pack_batch()
// (inputs.hpp) makes before the timed region and the native encoders' forward_packed() reads. Apart from
// model.hpp so that the encoders take it without the Model interface's headers.
#pragma once

#include <cstdint>
#include <vector>

#include <ATen/ATen.h>

namespace fmwork {

// The real tokens of a batch of mixed lengths, N of them (the sum of the lengths), on the batch's device, so
// that the timed region copies nothing from the host. [N] int64 unless said; undefined when the batch is
// not packed.
struct PackedTokens {
  at::Tensor input_ids;
  at::Tensor token_type_ids;  // undefined: zeros (or a family without token types)
  at::Tensor positions;       // each token's position in its own sequence: 0 .. length - 1
  at::Tensor sequences;       // each token's sequence: 0 .. batch - 1
  at::Tensor starts;          // [batch]: each sequence's first token in the packed order
  at::Tensor index;           // each token's place in the padded batch, row * input + position
  at::Tensor cu_seqlens;      // [batch + 1] int32: 0, then the lengths' running sums (variable-length kernels)
  std::vector<int64_t> lengths;  // on the host: each sequence's length, in order (the attention loops over it)
};

}  // namespace fmwork
