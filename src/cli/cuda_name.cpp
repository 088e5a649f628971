// The CUDA platform names (cuda_name.hpp).
#include "fmwork/cli/cuda_name.hpp"

namespace fmwork {

std::optional<CudaName> read_cuda_name(const std::string& name) {
  if (name == "cuda") return CudaName{};
  if (name.rfind("cuda:", 0) != 0) return std::nullopt;
  const std::string digits = name.substr(5);
  // 3 digits: a device index, and no number std::stoi could overflow on.
  if (digits.empty() || digits.size() > 3 || digits.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  return CudaName{std::stoi(digits)};
}

}  // namespace fmwork
