// The Model interface's one shared helper: dtype names.
#include "fmwork/model/model.hpp"

namespace fmwork {

std::string dtype_short_name(c10::ScalarType dtype) {
  switch (dtype) {
    case torch::kFloat32: return "float32";
    case torch::kFloat16: return "float16";
    case torch::kBFloat16: return "bfloat16";
    case torch::kFloat64: return "float64";
    case torch::kInt64: return "int64";
    case torch::kInt32: return "int32";
    case torch::kInt8: return "int8";
    case torch::kUInt8: return "uint8";
    case torch::kBool: return "bool";
    default: return c10::toString(dtype);
  }
}

std::optional<c10::ScalarType> float_dtype_of(const std::string& short_name) {
  for (c10::ScalarType t : {torch::kFloat32, torch::kFloat16, torch::kBFloat16, torch::kFloat64})
    if (dtype_short_name(t) == short_name) return t;
  return std::nullopt;
}

}  // namespace fmwork
