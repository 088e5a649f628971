// A campaign's result tree, the claim of its folder and the lock of one runner at a time (see
// campaign_tree.hpp).
#include "fmwork/runner/campaign_tree.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>

#include "campaign_environment.hpp"
#include "fmwork/base/error.hpp"
#include "fmwork/base/json_input.hpp"
#include "fmwork/base/text_format.hpp"
#include "fmwork/base/regular_file.hpp"
#include "fmwork/cli/option_sets.hpp"
#include "fmwork/cli/sub_options.hpp"

namespace fmwork {
namespace {

namespace fs = std::filesystem;

// A name made safe for one path component.
std::string component(std::string s) {
  for (char& c : s)
    if (c == '/' || c == '\0' || std::isspace(static_cast<unsigned char>(c))) c = '_';
  return s == "." || s == ".." || s.empty() ? "_" : s;
}

}  // namespace

std::string make_campaign_dir(const std::string& root, const std::string& user, const std::string& host,
                              std::chrono::system_clock::time_point now) {
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", std::localtime(&t));
  const std::string parent = root + "/" + component(user) + "/" + component(host);
  std::error_code ec;
  fs::create_directories(parent, ec);
  if (ec) throw runtime_error("--out " + root + ": cannot make " + parent + " (" + ec.message() + ")");
  for (int n = 1; n < 1000; ++n) {
    const std::string dir = parent + "/" + stamp + (n == 1 ? "" : "-" + std::to_string(n));
    if (::mkdir(dir.c_str(), 0777) == 0) return dir;  // the mkdir is the claim: two runners never share a folder
    if (errno != EEXIST) throw runtime_error("--out " + root + ": cannot make " + dir + " (" + std::strerror(errno) + ")");
  }
  throw runtime_error("--out " + root + ": too many campaigns started in " + parent + " this second");
}

namespace {

// Replaces, under `node`, the value of every member named by a secret option (an "options" or "matrix"
// key such as "--model:token@"): a string, or each of a matrix's values, becomes kNotShown.
bool hide_secrets(nlohmann::json& node) {
  bool hidden = false;
  if (node.is_array())
    for (auto& item : node) hidden = hide_secrets(item) || hidden;
  if (!node.is_object()) return hidden;
  for (auto& [key, value] : node.items()) {
    if (!is_secret_option(key)) {
      hidden = hide_secrets(value) || hidden;
    } else if (value.is_array()) {
      for (auto& item : value) item = kNotShown;
      hidden = true;
    } else {
      value = kNotShown;
      hidden = true;
    }
  }
  return hidden;
}

// The experiment file's copy in the campaign: byte for byte, unless it holds a secret (--model:token): then
// its document with the secrets' values kNotShown. A campaign's tree is shared and archived; the secret
// stays in the user's own file.
std::string experiment_copy(const std::string& text, const std::string& source) {
  nlohmann::json doc = parse_json(text, source);
  return hide_secrets(doc) ? doc.dump(2) + "\n" : text;
}

}  // namespace

std::string start_campaign(const std::string& root, const std::string& experiment, const Plan& plan,
                           const std::string& program, const std::vector<std::string>& devices,
                           const std::vector<std::string>& args) {
  // The plan is read back (a resume, process's labels) under kMaxPlanJsonBytes: one past it is refused now,
  // before anything is made, not when the campaign is resumed.
  const std::string plan_text = plan_to_json(plan).dump(2) + "\n";
  if (plan_text.size() > kMaxPlanJsonBytes)
    throw usage_error(experiment + ": its plan of " + std::to_string(plan.runs.size()) + " runs is " +
                      bytes_text(plan_text.size(), 1) + " as plan.json, more than the " +
                      bytes_text(kMaxPlanJsonBytes, 0) + " a campaign holds; split the experiment");
  const std::string dir = make_campaign_dir(root, user_name(), host_name(), std::chrono::system_clock::now());
  // Under the bound load_experiment read it with, so the copy cannot fail where the plan did not.
  write_file_atomically(dir + "/experiment.json", experiment_copy(read_file(experiment, kMaxJsonFileBytes), experiment));
  write_file_atomically(dir + "/plan.json", plan_text);
  std::vector<std::string> command = {"driver", "run"};
  command.insert(command.end(), args.begin(), args.end());
  write_file_atomically(dir + "/environment.json", environment_json(program, devices, command).dump(2) + "\n");
  make_folders(dir + "/logs");
  return dir;
}

CampaignLock::CampaignLock(const std::string& dir) {
  const std::string path = dir + "/runner.lock";
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd_ < 0) throw runtime_error(path + ": cannot make the campaign's lock file (" + std::strerror(errno) + ")");
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    char buf[32] = {};
    const ssize_t n = ::pread(fd_, buf, sizeof buf - 1, 0);
    ::close(fd_);
    if (err != EWOULDBLOCK)
      throw runtime_error(path + ": cannot lock the campaign (" + std::strerror(err) + ")");
    std::string pid = n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
    if (pid.empty() || pid.find_first_not_of("0123456789") != std::string::npos) pid = "unknown";
    throw runtime_error(dir + ": another driver run (pid " + pid + ") holds this campaign; wait until it has ended "
                        "(or stop it), then resume");
  }
  const std::string pid = std::to_string(::getpid());
  if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size())) {
    // The lock holds without its pid: a second runner is still refused, it only cannot name this one.
  }
}

CampaignLock::~CampaignLock() {
  if (fd_ >= 0) ::close(fd_);  // closing lets go of the flock
}

}  // namespace fmwork
