// Host memory available to this process (see host_memory.hpp).
#include "fmwork/base/host_memory.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <vector>

#include "fmwork/base/text_format.hpp"

namespace fmwork {
namespace {

std::optional<std::string> read_small_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str().substr(0, 1 << 20);
}

std::optional<uint64_t> parse_u64(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  if (text.empty() || text.size() > 20) return std::nullopt;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9' || __builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, c - '0', &v))
      return std::nullopt;
  }
  return v;
}

// The cgroup memory files of this process, v2 first: {limit file, usage file, label}.
struct CgroupFiles {
  std::string limit, usage, stat, label;
};
std::vector<CgroupFiles> cgroup_candidates() {
  std::vector<CgroupFiles> out;
  std::ifstream in("/proc/self/cgroup");
  std::string line;
  while (std::getline(in, line)) {
    // "0::/path" (v2) or "4:memory:/path" (v1); in a cgroup namespace the files sit at the mount's root.
    const auto first = line.find(':'), second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1), path = line.substr(second + 1);
    if (controllers.empty())
      for (const std::string& dir : {"/sys/fs/cgroup" + path, std::string("/sys/fs/cgroup")})
        out.push_back({dir + "/memory.max", dir + "/memory.current", dir + "/memory.stat",
                       "the cgroup limit (memory.max)"});
    else if (controllers == "memory")
      for (const std::string& dir : {"/sys/fs/cgroup/memory" + path, std::string("/sys/fs/cgroup/memory")})
        out.push_back({dir + "/memory.limit_in_bytes", dir + "/memory.usage_in_bytes", dir + "/memory.stat",
                       "the cgroup limit (memory.limit_in_bytes)"});
  }
  return out;
}

// The "<key> <N> kB" line of a /proc text (meminfo, status) in bytes; nullopt when absent or malformed.
std::optional<uint64_t> kib_line(std::string_view text, std::string_view key) {
  size_t at = text.find(key);
  while (at != std::string_view::npos && at > 0 && text[at - 1] != '\n') at = text.find(key, at + 1);  // a line's start
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = text.substr(at + key.size());
  rest = rest.substr(0, rest.find('\n'));
  while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t')) rest.remove_prefix(1);
  if (rest.size() < 3 || rest.substr(rest.size() - 3) != " kB") return std::nullopt;
  const auto kib = parse_u64(rest.substr(0, rest.size() - 3));
  if (!kib || *kib > (UINT64_MAX >> 10)) return std::nullopt;
  return *kib << 10;
}

}  // namespace

std::optional<uint64_t> meminfo_available(std::string_view meminfo) { return kib_line(meminfo, "MemAvailable:"); }

std::optional<uint64_t> status_rss_peak(std::string_view status) { return kib_line(status, "VmHWM:"); }

bool reset_host_rss_peak() {
  // "5" resets the peak resident set size (VmHWM) to the present one (linux/Documentation/filesystems/proc.rst).
  std::ofstream out("/proc/self/clear_refs");
  if (!out) return false;
  out << "5";
  out.flush();
  return static_cast<bool>(out);
}

std::optional<uint64_t> host_rss_peak() {
  const auto status = read_small_file("/proc/self/status");
  return status ? status_rss_peak(*status) : std::nullopt;
}

// The value of the line "<key> N" in a memory.stat text, or 0 when absent or unreadable.
uint64_t stat_value(std::string_view stat, std::string_view key) {
  for (std::string_view line : split(stat, '\n'))
    if (line.size() > key.size() && line.substr(0, key.size()) == key && line[key.size()] == ' ')
      return parse_u64(line.substr(key.size() + 1)).value_or(0);
  return 0;
}

std::optional<uint64_t> cgroup_room(std::string_view limit, std::string_view usage, std::string_view stat) {
  const auto l = parse_u64(limit), u = parse_u64(usage);
  if (!l || !u || *l >= (uint64_t{1} << 62)) return std::nullopt;  // "max", or v1's "no limit" (2^63 - page)
  // Usage counts the page cache, which the kernel reclaims before it refuses memory: a build that just read
  // gigabytes of files would otherwise leave "0 GiB available". The inactive file pages go first; what is
  // left is the working set (what container runtimes hold against the limit too).
  const uint64_t reclaimable = std::max(stat_value(stat, "inactive_file"), stat_value(stat, "total_inactive_file"));
  const uint64_t used = *u - std::min(*u, reclaimable);
  return *l > used ? *l - used : 0;
}

std::optional<uint64_t> address_space_room(uint64_t limit, std::string_view status) {
  if (limit == RLIM_INFINITY) return std::nullopt;
  const auto used = kib_line(status, "VmSize:");
  if (!used) return std::nullopt;
  return limit > *used ? limit - *used : 0;
}

std::optional<MemoryBudget> host_available_memory() {
  const auto meminfo = read_small_file("/proc/meminfo");
  const auto available = meminfo ? meminfo_available(*meminfo) : std::nullopt;
  if (!available) return std::nullopt;
  MemoryBudget budget{*available, "MemAvailable"};
  for (const CgroupFiles& f : cgroup_candidates()) {
    const auto limit = read_small_file(f.limit), usage = read_small_file(f.usage), stat = read_small_file(f.stat);
    if (!limit || !usage) continue;
    if (const auto room = cgroup_room(*limit, *usage, stat.value_or("")); room && *room < budget.bytes)
      budget = {*room, f.label};
    break;  // the first readable pair is this process's own cgroup
  }
  // `ulimit -v` bounds the address space, not the memory: what is mapped but never touched (MKL's packed
  // weights reserve megabytes each) counts against it, so an allocation fails there long before MemAvailable.
  rlimit as{};
  if (getrlimit(RLIMIT_AS, &as) == 0)
    if (const auto status = read_small_file("/proc/self/status"))
      if (const auto room = address_space_room(as.rlim_cur, *status); room && *room < budget.bytes)
        budget = {*room, "the address-space limit (ulimit -v)"};
  return budget;
}

}  // namespace fmwork
