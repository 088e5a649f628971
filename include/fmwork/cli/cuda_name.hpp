// The built-in CUDA platform's names, read in one place: `--platform cuda` and `--platform cuda:N`. The
// command line's check of a platform name (platform_rules), the registry that opens the device and a
// campaign's device slots (runner/campaign_run: CUDA_VISIBLE_DEVICES) all read them through it.
#pragma once

#include <optional>
#include <string>

namespace fmwork {

// A CUDA platform name as read: "cuda" (no index: the current device) or "cuda:N".
struct CudaName {
  std::optional<int> index;  // N of cuda:N (1 to 3 digits); nullopt for "cuda"
};

// `name` read as a CUDA platform name: "cuda", or "cuda:" then 1 to 3 digits. nullopt for any other name,
// "cuda:x" and "cuda:1234" included (whether a name starts "cuda:" says it was meant as one).
std::optional<CudaName> read_cuda_name(const std::string& name);

}  // namespace fmwork
