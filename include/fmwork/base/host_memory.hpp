// How much memory this process may still take on the host: the kernel's MemAvailable, lowered to what the
// process's cgroup (v1 or v2) still allows when it has a limit (a container, a Slurm job), and to what its
// address-space limit (ulimit -v) leaves. The sweep's
// memory admission holds each combination's estimate against it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace fmwork {

struct MemoryBudget {
  uint64_t bytes = 0;
  std::string source;  // where the figure comes from: "MemAvailable", "the cgroup limit (memory.max)", ...
};

// The memory available now; nullopt when /proc/meminfo cannot be read (not Linux).
std::optional<MemoryBudget> host_available_memory();

// The peak resident memory of this process (VmHWM of /proc/self/status) in bytes; nullopt where unreadable.
std::optional<uint64_t> host_rss_peak();
// Starts a new peak: VmHWM becomes the present resident size (writes "5" to /proc/self/clear_refs, Linux 4.0
// and later). false when the kernel refused it: host_rss_peak() is then the process's peak since it started.
bool reset_host_rss_peak();

// The parts, for tests: VmHWM of a /proc/self/status text and MemAvailable of a /proc/meminfo text, in bytes;
// the room left under a cgroup limit (the limit and usage files' texts: "max" or a v1 limit near 2^63 means
// none), the usage lowered by the page cache the kernel would reclaim first (memory.stat's inactive_file, v1's
// total_inactive_file).
std::optional<uint64_t> status_rss_peak(std::string_view status);
std::optional<uint64_t> meminfo_available(std::string_view meminfo);
std::optional<uint64_t> cgroup_room(std::string_view limit, std::string_view usage, std::string_view stat = {});
// The room left under an address-space limit (getrlimit RLIMIT_AS's soft limit, RLIM_INFINITY for none) for a
// process whose /proc/self/status text is `status` (its VmSize).
std::optional<uint64_t> address_space_room(uint64_t limit, std::string_view status);

}  // namespace fmwork
