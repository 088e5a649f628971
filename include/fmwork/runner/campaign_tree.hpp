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

// One `driver run` at a time in a campaign folder: two resumes of one campaign would run the same runs into
// the same .partial files. The claim is an flock on DIR/runner.lock (which holds the holder's pid), taken
// without waiting and let go when the object is destroyed or the process ends, however it ends; the runs'
// driver processes do not inherit it. Throws a runtime Error "<dir>: another driver run (pid N) holds this
// campaign; wait until it has ended (or stop it), then resume" when it is held, or one naming the lock file
// when it cannot be made.
class CampaignLock {
 public:
  explicit CampaignLock(const std::string& dir);
  ~CampaignLock();
  CampaignLock(const CampaignLock&) = delete;
  CampaignLock& operator=(const CampaignLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace fmwork
