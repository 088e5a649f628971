// The defaults of the Platform interface that do more than say "cannot tell" (platform.hpp).
#include "fmwork/platform/platform.hpp"

#include "fmwork/base/error.hpp"

namespace fmwork {

std::unique_ptr<Model> Platform::compile(std::unique_ptr<Model>, const CompileOptions& options, const ModelSource&) {
  // The build's own backends are compile_model's to list (compile/ lies above platform/): name the way to them.
  throw usage_error("--platform " + name() + " has no compiler of its own (--compile:backend " + options.backend +
                    "); use a backend that `driver --help` lists for --compile:backend");
}

}  // namespace fmwork
