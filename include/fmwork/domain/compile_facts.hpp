// What a compiler made for a shape before its reps (an AOTInductor package, a CUDA graph): the COMPILE line's
// facts (include/fmwork/log/log_schema.hpp lists its fields), returned by Model::prepare.
#pragma once

#include <string>

namespace fmwork {

// Ranges "1-1024" (empty for a static shape: left out of the line).
struct CompileFacts {
  std::string backend, shape;  // "inductor", "8x128" or "dynamic"
  bool cache_hit = false;
  double build_seconds = 0, ready_seconds = 0;
  std::string key, vec_isa, batch_range, input_range;
};

}  // namespace fmwork
