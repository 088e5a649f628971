// The run dtype of a folder. See include/fmwork/loaders/model_dtype.hpp.
#include "fmwork/loaders/model_dtype.hpp"

#include "fmwork/base/error.hpp"

namespace fmwork {

at::ScalarType resolve_dtype(const std::optional<std::string>& option, const std::optional<std::string>& config_dtype) {
  if (!option) return at::kFloat;  // from_pretrained's default
  std::string d = *option;
  if (d.rfind("torch.", 0) == 0) d = d.substr(6);
  std::string from = "--model:dtype " + d;
  if (d == "auto") {
    if (!config_dtype) return at::kFloat;
    d = *config_dtype;
    if (d.rfind("torch.", 0) == 0) d = d.substr(6);
    from = "--model:dtype auto (config.json torch_dtype " + d + ")";
  }
  if (d == "float32" || d == "float") return at::kFloat;
  if (d == "float16" || d == "half") return at::kHalf;
  if (d == "bfloat16") return at::kBFloat16;
  throw usage_error(from + " is not supported: use float32, float16, bfloat16 or auto");
}

}  // namespace fmwork
