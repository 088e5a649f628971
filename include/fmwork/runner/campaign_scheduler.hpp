// The local scheduler of `driver run`: the runs to do over the device slots (one worker thread a slot, one
// run at a time on each), with a progress line after each run. Apart from the campaign's tree and Slurm
// because it is the one part that runs things at once. No LibTorch here.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "fmwork/runner/experiment.hpp"

namespace fmwork {

// The most names --devices takes: a worker thread and a driver process each at once.
inline constexpr size_t kMaxDevices = 256;

// The --devices list: comma-separated platform names (at most kMaxDevices); a name given N times runs N runs
// on it at once ("cpu,cpu"). Throws a usage Error on a name that is not a platform name (cli's
// is_platform_name), and on a plugin's name whose library no search folder holds (cli's find_plugin_file;
// "CPU" offered "cpu"): "../x" and "CPU" are refused here, before a campaign folder is made, not by each
// run's driver.
std::vector<std::string> parse_devices(const std::string& text);

// Runs plan.runs[i] for each i of `todo` (campaign_run.hpp) into the folder `logs`, over `slots` (a device
// each; {""}: one slot, each run's own --platform); writes progress lines and each failed run's last error
// to `err`. Returns the number of runs that did not end with status 0. Throws the first Error a run threw
// (a log that cannot be written) once the runs in flight have ended; no new run starts after it.
size_t run_on_slots(const Plan& plan, const std::vector<size_t>& todo, const std::string& logs,
                    const std::string& program, const std::vector<std::string>& slots, std::ostream& err);

// The progress line: "campaign: 3 done, 1 failed, 4 left (2 running), elapsed 0:42, about 1:10 to go".
std::string progress_line(size_t done, size_t failed, size_t left, size_t running, double elapsed_s);

// Seconds as a clock: "0:42", "12:05", "1:02:03" (rounded; negative as 0).
std::string clock_text(double seconds);

}  // namespace fmwork
