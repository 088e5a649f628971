// One call under LibTorch's profiler (see include/fmwork/runtime/op_profile.hpp).
#include "fmwork/runtime/op_profile.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <utility>

#include <c10/core/DeviceType.h>
#include <c10/util/Exception.h>
#include <torch/csrc/autograd/profiler_kineto.h>

#include "fmwork/base/error.hpp"

namespace fmwork {
namespace {

namespace kineto = torch::autograd::profiler;
using torch::profiler::impl::ActivityType;
using torch::profiler::impl::ProfilerConfig;
using torch::profiler::impl::ProfilerState;

// Kineto prints "profiler_start" / "profiler_stop" lines on stderr, where the driver's progress and errors
// go: stderr points at /dev/null while the profiler starts and stops (never while the model runs).
class QuietStderr {
 public:
  QuietStderr() {
    std::fflush(stderr);
    saved_ = dup(STDERR_FILENO);
    const int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (saved_ >= 0 && null >= 0) dup2(null, STDERR_FILENO);
    if (null >= 0) close(null);
  }
  ~QuietStderr() {
    std::fflush(stderr);
    if (saved_ >= 0) {
      dup2(saved_, STDERR_FILENO);
      close(saved_);
    }
  }
  QuietStderr(const QuietStderr&) = delete;
  QuietStderr& operator=(const QuietStderr&) = delete;

 private:
  int saved_ = -1;
};

ProfilerConfig profiler_config() {
  // Input shapes are what the FLOP counter reads; no memory, stacks or modules (each slows the rep down).
  return ProfilerConfig(ProfilerState::KINETO, /*report_input_shapes=*/true, /*profile_memory=*/false,
                        /*with_stack=*/false, /*with_flops=*/true, /*with_modules=*/false);
}

// Starts the profiler with the device's activities when it has any; true when the device's were accepted.
bool start_profiler(c10::DeviceType device) {
  QuietStderr quiet;
  std::set<ActivityType> activities{ActivityType::CPU};
  if (device == c10::DeviceType::CUDA) activities.insert(ActivityType::CUDA);
  if (device == c10::DeviceType::PrivateUse1) activities.insert(ActivityType::PrivateUse1);
  if (activities.size() > 1) {
    try {
      kineto::prepareProfiler(profiler_config(), activities);
      kineto::enableProfiler(profiler_config(), activities);
      return true;
    } catch (const c10::Error&) {
      // A plugin without a profiler of its own: profile the CPU side.
    }
  }
  const std::set<ActivityType> cpu{ActivityType::CPU};
  kineto::prepareProfiler(profiler_config(), cpu);
  kineto::enableProfiler(profiler_config(), cpu);
  return false;
}

std::unique_ptr<kineto::ProfilerResult> stop_profiler() {
  QuietStderr quiet;
  return kineto::disableProfiler();
}

// Each CPU operator's self time: its duration less that of the operators that ran inside it on the same
// thread (the profiler nests them in time).
std::vector<double> self_times_ns(const std::vector<kineto::KinetoEvent>& events) {
  std::vector<double> self(events.size(), 0);
  std::map<uint64_t, std::vector<size_t>> by_thread;
  for (size_t i = 0; i < events.size(); ++i) {
    self[i] = static_cast<double>(events[i].durationNs());
    if (events[i].deviceType() == c10::DeviceType::CPU) by_thread[events[i].startThreadId()].push_back(i);
  }
  for (auto& [thread, ids] : by_thread) {
    std::sort(ids.begin(), ids.end(), [&](size_t a, size_t b) {
      if (events[a].startNs() != events[b].startNs()) return events[a].startNs() < events[b].startNs();
      return events[a].endNs() > events[b].endNs();  // the enclosing one first
    });
    std::vector<size_t> open;
    for (size_t i : ids) {
      while (!open.empty() && events[open.back()].endNs() <= events[i].startNs()) open.pop_back();
      if (!open.empty() && events[i].endNs() <= events[open.back()].endNs())
        self[open.back()] -= static_cast<double>(events[i].durationNs());
      open.push_back(i);
    }
  }
  for (double& s : self) s = std::max(s, 0.0);
  return self;
}

// The operators whose FLOP count is a matrix product's (2 m n k): the profiler also counts aten::mul and
// aten::add (one per element), which the native encoders' formula leaves out with the rest of the
// elementwise work.
bool is_product(const std::string& name) {
  static const std::set<std::string> products{"aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm",
                                              "aten::convolution", "aten::_convolution"};
  return products.count(name) > 0;
}

OpProfile summarize_events(const std::vector<kineto::KinetoEvent>& events, bool device_activities) {
  const std::vector<double> self = self_times_ns(events);
  std::map<std::pair<std::string, std::string>, OpTotal> totals;
  OpProfile p;
  p.device_activities = device_activities;
  for (size_t i = 0; i < events.size(); ++i) {
    const kineto::KinetoEvent& e = events[i];
    const bool cpu = e.deviceType() == c10::DeviceType::CPU;
    const std::string on = cpu ? "cpu" : c10::DeviceTypeName(e.deviceType(), /*lower_case=*/true);
    OpTotal& t = totals[{e.name(), on}];
    t.name = e.name();
    t.on = on;
    t.calls += 1;
    t.self_ms += self[i] / 1e6;
    t.total_ms += static_cast<double>(e.durationNs()) / 1e6;
    t.flops += static_cast<double>(e.flops());
    (cpu ? p.cpu_self_ms : p.device_self_ms) += self[i] / 1e6;
    if (is_product(t.name)) p.counted_flops += static_cast<double>(e.flops());
  }
  for (auto& kv : totals) p.ops.push_back(std::move(kv.second));
  std::stable_sort(p.ops.begin(), p.ops.end(), [](const OpTotal& a, const OpTotal& b) { return a.self_ms > b.self_ms; });
  return p;
}

// The trace into a temporary file beside `path`, then renamed over it: never over anything but a regular file.
void save_trace(kineto::ProfilerResult& result, const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    throw runtime_error("--profile: " + path + " exists and is no regular file; it is not replaced");
  const std::string tmp = path + ".tmp-" + std::to_string(getpid());
  try {
    QuietStderr quiet;
    result.save(tmp);
  } catch (const std::exception& e) {
    std::remove(tmp.c_str());
    throw runtime_error("--profile: cannot write the trace " + path + " (" + e.what() + ")");
  }
  if (access(tmp.c_str(), F_OK) != 0)
    throw runtime_error("--profile: cannot write the trace " + path + " (the profiler wrote nothing)");
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    std::remove(tmp.c_str());
    throw runtime_error("--profile: cannot write the trace " + path + " (" + why + ")");
  }
}

}  // namespace

OpProfile profile_call(const std::function<void()>& call, c10::DeviceType device, const std::string& trace_path) {
  const bool device_activities = start_profiler(device);
  try {
    call();
  } catch (...) {
    stop_profiler();
    throw;
  }
  std::unique_ptr<kineto::ProfilerResult> result = stop_profiler();
  save_trace(*result, trace_path);
  return summarize_events(result->events(), device_activities);
}

double self_share(const OpProfile& profile, const OpTotal& op) {
  const double total = op.on == "cpu" ? profile.cpu_self_ms : profile.device_self_ms;
  return total > 0 ? op.self_ms / total : 0;
}

}  // namespace fmwork
