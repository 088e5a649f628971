// The environment a campaign records (see campaign_environment.hpp).
#include "campaign_environment.hpp"

#include <pwd.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <thread>

#include "fmwork/base/subprocess.hpp"

namespace fmwork {

namespace fs = std::filesystem;

std::string user_name() {
  if (const char* u = std::getenv("USER"); u && *u) return u;
  if (const passwd* pw = getpwuid(getuid())) return pw->pw_name;
  return std::to_string(getuid());
}

std::string host_name() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0 || !buf[0]) return "localhost";
  return buf;
}

nlohmann::ordered_json environment_json(const std::string& program, const std::vector<std::string>& devices,
                                        const std::vector<std::string>& command) {
  nlohmann::ordered_json env;
  utsname u{};
  uname(&u);
  const std::time_t now = std::time(nullptr);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  std::error_code ec;
  env["user"] = user_name();
  env["host"] = host_name();
  env["time"] = stamp;
  env["driver"] = executable_path(program);
  env["driver_version"] = FMWORK_VERSION;
  env["command"] = command;
  env["cwd"] = fs::current_path(ec).string();
  env["kernel"] = std::string(u.sysname) + " " + u.release + " " + u.machine;
  env["cpus"] = std::thread::hardware_concurrency();
  env["devices"] = devices;
  nlohmann::ordered_json vars = nlohmann::ordered_json::object();
  for (char** e = environ; *e; ++e) {
    const std::string kv = *e;
    for (const char* prefix : {"FMWORK_", "OMP_", "MKL_", "KMP_", "CUDA_", "SLURM_", "LD_LIBRARY_PATH"}) {
      if (kv.rfind(prefix, 0) == 0 && kv.find('=') != std::string::npos) {
        vars[kv.substr(0, kv.find('='))] = kv.substr(kv.find('=') + 1);
        break;
      }
    }
  }
  env["variables"] = vars;
  return env;
}

}  // namespace fmwork
