// The platforms by name, as --platform gives them: cpu and cuda[:N] are built in; any other name is a
// plugin, found and loaded by plugin_loader and wrapped by plugin_platform.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "fmwork/domain/run_options.hpp"
#include "fmwork/platform/platform.hpp"

namespace fmwork {

// Makes the platform named by --platform. cpu; cuda / cuda:N (a usage Error when this LibTorch has no
// CUDA or N is out of range); otherwise the plugin of that name (a usage Error for a name that cannot be
// a plugin's, or listing every path tried when none is found; the loader's errors otherwise).
std::unique_ptr<Platform> make_platform(const std::string& name, const PlatformOptions& options);

}  // namespace fmwork
