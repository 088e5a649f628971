// --version's text (see version.hpp).
#include "fmwork/base/version.hpp"

namespace fmwork {

std::string version_text(std::string_view program, std::string_view git_revision) {
  std::string out = std::string(program) + " " + FMWORK_VERSION + " (fmwork-cpp";
  if (!git_revision.empty()) out += ", git " + std::string(git_revision);
  return out + ")\n";
}

}  // namespace fmwork
