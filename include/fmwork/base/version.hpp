// The one text `--version` prints, for the driver and `process` alike, so that both name the same release.
#pragma once

#include <string>
#include <string_view>

namespace fmwork {

// "<program> <FMWORK_VERSION> (fmwork-cpp)\n", or with a git revision "<program> 0.1.0 (fmwork-cpp, git
// 4f2a9c1e7b3d)\n". FMWORK_VERSION is the CMake project's version (fmwork_core's compile definition).
std::string version_text(std::string_view program, std::string_view git_revision = {});

}  // namespace fmwork
