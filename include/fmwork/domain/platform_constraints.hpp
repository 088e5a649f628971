// The rules a platform imposes on a run, as data: what the platform declares (a plugin's fmwork_constraints)
// and cli/platform_rules.hpp checks against the command line before anything is loaded.
#pragma once

#include <string>
#include <vector>

namespace fmwork {

// One required option (from fmwork_requirement).
struct PlatformRequirement {
  std::string option;  // "compile", "eval", or "SET:key[:key...]"
  std::string value;   // as written on the command line
  bool typed = false;  // value is a Python literal (the option is given with `@`)
  std::string reason;  // may be empty
};
struct PlatformConstraints {
  bool single_input_size = false;
  std::string single_input_reason;
  bool single_batch_size = false;
  std::string single_batch_reason;
  std::vector<PlatformRequirement> required;
};

}  // namespace fmwork
