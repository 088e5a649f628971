// A campaign's result tree: claiming its folder ROOT/<user>/<host>/<time> (two runners never share one) and
// writing what it starts with (experiment.json, plan.json, environment.json, logs/). Apart from running the
// runs: this is what a resume and `process` read back. No LibTorch here.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "fmwork/runner/experiment.hpp"

namespace fmwork {

// Makes ROOT/<user>/<host>/<time> (a "-2", "-3" ... suffix when a runner took that second) and returns it.
// The mkdir is the claim. Throws a runtime Error naming --out ROOT when a folder cannot be made.
std::string make_campaign_dir(const std::string& root, const std::string& user, const std::string& host,
                              std::chrono::system_clock::time_point now);

// A new campaign under `root`: its folder claimed, the `experiment` file copied byte for byte, `plan`,
// the environment (`program`, `devices`, the runner's `args`) and an empty logs/. Returns the folder.
// Throws a runtime Error naming the file that cannot be read or written.
std::string start_campaign(const std::string& root, const std::string& experiment, const Plan& plan,
                           const std::string& program, const std::vector<std::string>& devices,
                           const std::vector<std::string>& args);

}  // namespace fmwork
