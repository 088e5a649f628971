// What the CPU gave this process over an interval (see cpu_use.hpp).
#include "fmwork/base/cpu_use.hpp"

#include <dirent.h>
#include <sched.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>
#include <utility>

namespace fmwork {
namespace {

// A /proc file's text (they report a size of 0, so read until the end); nullopt where it cannot be read.
std::optional<std::string> proc_text(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::string text;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buf, static_cast<size_t>(n));
    if (text.size() > (1 << 16)) break;  // the first line is all we read of /proc/stat
  }
  ::close(fd);
  return text;
}

// The unsigned decimal at the start of `text` (after spaces), moving past it; nullopt for none.
std::optional<int64_t> next_number(std::string_view& text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  int64_t v = 0;
  size_t i = 0;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
    if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, text[i] - '0', &v)) return std::nullopt;
  }
  if (i == 0) return std::nullopt;
  text.remove_prefix(i);
  return v;
}

std::optional<std::map<int64_t, int64_t>> thread_waits() {
  DIR* dir = ::opendir("/proc/self/task");
  if (!dir) return std::nullopt;
  std::map<int64_t, int64_t> waits;
  while (const dirent* e = ::readdir(dir)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    const std::optional<std::string> text = proc_text(std::string("/proc/self/task/") + e->d_name + "/schedstat");
    if (!text) continue;  // a thread that ended while we listed them
    if (const std::optional<int64_t> wait = schedstat_wait(*text)) waits[std::atoll(e->d_name)] = *wait;
  }
  ::closedir(dir);
  if (waits.empty()) return std::nullopt;  // a kernel without schedstat (CONFIG_SCHED_INFO off)
  return waits;
}

}  // namespace

std::optional<int64_t> schedstat_wait(std::string_view text) {
  if (!next_number(text)) return std::nullopt;  // time on a CPU
  return next_number(text);                      // time waiting on a run queue
}

std::optional<int64_t> pressure_some_total(std::string_view text) {
  // "some avg10=1.00 avg60=0.50 avg300=0.20 total=123456\nfull ..."
  if (text.substr(0, 5) != "some ") return std::nullopt;
  text = text.substr(0, text.find('\n'));
  const size_t at = text.find(" total=");
  if (at == std::string_view::npos) return std::nullopt;
  text.remove_prefix(at + 7);
  return next_number(text);
}

std::optional<std::pair<int64_t, int64_t>> steal_and_all_ticks(std::string_view text) {
  // "cpu  user nice system idle iowait irq softirq steal guest guest_nice": guest time is already counted in
  // user and nice, so the sum stops before it.
  if (text.substr(0, 4) != "cpu ") return std::nullopt;
  text.remove_prefix(4);
  int64_t all = 0, steal = 0;
  for (int field = 0; field < 8; ++field) {
    const std::optional<int64_t> v = next_number(text);
    if (!v) return std::nullopt;
    if (__builtin_add_overflow(all, *v, &all)) return std::nullopt;
    if (field == 7) steal = *v;
  }
  return std::make_pair(steal, all);
}

CpuSample sample_cpu() {
  CpuSample s;
  s.run_wait_ns = thread_waits();
  if (const std::optional<std::string> psi = proc_text("/proc/pressure/cpu")) s.pressure_some_us = pressure_some_total(*psi);
  if (const std::optional<std::string> stat = proc_text("/proc/stat")) {
    if (const auto ticks = steal_and_all_ticks(*stat)) {
      s.steal_ticks = ticks->first;
      s.all_ticks = ticks->second;
    }
  }
  s.process_cpu_ns = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
  s.wall_ns = clock_ns(CLOCK_MONOTONIC);
  return s;
}

CpuUse cpu_use(const CpuSample& before, const CpuSample& after, int64_t threads) {
  CpuUse use;
  const double wall = static_cast<double>(after.wall_ns - before.wall_ns);
  if (!(wall > 0)) return use;
  const double asked = wall * static_cast<double>(threads < 1 ? 1 : threads);
  use.threads = threads < 1 ? 1 : threads;
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof allowed, &allowed) == 0) use.cpus = CPU_COUNT(&allowed);
  use.cpu_share = static_cast<double>(after.process_cpu_ns - before.process_cpu_ns) / asked;
  if (before.run_wait_ns && after.run_wait_ns) {
    int64_t waited = 0;
    for (const auto& [tid, wait] : *after.run_wait_ns) {
      const auto was = before.run_wait_ns->find(tid);
      waited += wait - (was == before.run_wait_ns->end() ? 0 : was->second);
    }
    use.wait_share = static_cast<double>(waited) / asked;
  }
  if (before.pressure_some_us && after.pressure_some_us)
    use.pressure = static_cast<double>(*after.pressure_some_us - *before.pressure_some_us) * 1000.0 / wall;
  if (before.steal_ticks && after.steal_ticks && *after.all_ticks > *before.all_ticks)
    use.steal_share = static_cast<double>(*after.steal_ticks - *before.steal_ticks) /
                      static_cast<double>(*after.all_ticks - *before.all_ticks);
  return use;
}

}  // namespace fmwork
