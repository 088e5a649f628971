// What the Platform interface does itself: the meter flags of its facts, and the refusal of a platform that
// compiles nothing (platform.hpp).
#include "fmwork/platform/platform.hpp"

#include "fmwork/base/error.hpp"

namespace fmwork {

PlatformFacts Platform::facts() const {
  PlatformFacts facts = own_facts();
  facts.has_memory_peaks = meters_.memory_peaks != nullptr;
  facts.has_available_memory = meters_.available_memory != nullptr;
  facts.has_energy = meters_.energy != nullptr;
  return facts;
}

void no_platform_compiler(const std::string& platform, const CompileOptions& options) {
  throw usage_error("--platform " + platform + " has no compiler of its own (--compile:backend " + options.backend +
                    "); use a backend that `driver --help` lists for --compile:backend");
}

}  // namespace fmwork
