// What a campaign records of where it ran: user, host, time, driver, kernel, CPUs and the variables that
// steer the libraries (environment.json, and logs/<id>.environment.json of each Slurm task). Apart because
// it reads the system, where the rest of the runner only reads and writes its tree. Private to src/runner/.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace fmwork {

// $USER, else the password entry's name, else the uid as digits.
std::string user_name();
// gethostname(), "localhost" when it says nothing.
std::string host_name();
// environment.json's object: `program` is the driver (its link followed), `devices` the --devices list,
// `command` the runner's own command line.
nlohmann::ordered_json environment_json(const std::string& program, const std::vector<std::string>& devices,
                                        const std::vector<std::string>& command);

}  // namespace fmwork
