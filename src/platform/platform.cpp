// The defaults of the Platform interface that do more than say "cannot tell" (platform.hpp).
#include "fmwork/platform/platform.hpp"

#include "fmwork/base/error.hpp"

namespace fmwork {

std::unique_ptr<Model> Platform::compile(std::unique_ptr<Model>, const CompileOptions& options, const ModelSource&) {
  throw usage_error("--platform " + name() + " has no compiler of its own (--compile:backend " + options.backend +
                    "); the backends of this build: torchscript, inductor");
}

}  // namespace fmwork
