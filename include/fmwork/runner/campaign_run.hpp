// One run of a campaign as a process of the driver: its command line on a device, its stdout streamed into
// logs/<id>.log.partial and renamed to logs/<id>.log when it has ended, its stderr into logs/<id>.err.
// Apart from the scheduler (campaign_scheduler.hpp) and the Slurm task (campaign.cpp), which both run it.
// No LibTorch here.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "fmwork/runner/experiment.hpp"

namespace fmwork {

// How one run ended.
struct RunEnd {
  int status = 0;         // the driver's exit status, 128 + signal when killed
  std::string last_error; // its last stderr line; killed by a signal, killed_by_text() (base/subprocess) before it
};

// Runs `run` with `program` (the driver; its link followed for the child's argv[0]) on `device` (its
// --platform through slot_launch(); "" keeps the run's own) into the folder `logs`, and waits for it. What
// stands at logs/<id>.log.partial or logs/<id>.err (a stale symbolic link, a FIFO) is removed before they
// are made, never written through. Throws a runtime Error naming the log when a log cannot be written or
// renamed into place, or a folder stands where it goes.
RunEnd execute_run(const PlannedRun& run, const std::string& device, const std::string& logs,
                   const std::string& program);

// How a run is started on a slot's device: the --platform it is given and the environment entries it adds.
// A GPU slot "cuda:N" runs as --platform cuda with CUDA_VISIBLE_DEVICES naming that one GPU (the N-th of
// `visible`, the inherited CUDA_VISIBLE_DEVICES, when one is set), so that no run makes a context on, or
// allocates from, another slot's GPU. Any other device, or an index past `visible`, is passed on as it is.
struct SlotLaunch {
  std::string platform;
  std::vector<std::string> env;  // "KEY=VALUE"
};
SlotLaunch slot_launch(const std::string& device, const std::optional<std::string>& visible);

// `argv` with its --platform set to `device` (added when absent).
std::vector<std::string> with_platform(std::vector<std::string> argv, const std::string& device);

}  // namespace fmwork
