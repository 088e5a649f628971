// Running another program and capturing what it says: the driver runs the Python exporter of the inductor
// backend this way, the tests run the built executables.
#pragma once

#include <string>
#include <vector>

namespace fmwork {

struct SubprocessResult {
  int exit_code = -1;  // the exit status; 128 + the signal number when killed by a signal
  std::string out, err;
};

// Runs argv[0] (searched in PATH when it has no '/') with the arguments, no shell, stdin from /dev/null,
// the environment plus `extra_env` entries ("KEY=VALUE", which win over inherited ones), and waits for
// it, capturing stdout and stderr whole. Throws a runtime Error naming the program when it cannot be
// started (not found, not executable).
SubprocessResult run_subprocess(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env = {});

}  // namespace fmwork
