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

// The parts, for tests: MemAvailable of a /proc/meminfo text, in bytes; the room left under a cgroup limit
// (the limit and usage files' texts: "max" or a v1 limit near 2^63 means none), the usage lowered by the
// page cache the kernel would reclaim first (memory.stat's inactive_file, v1's total_inactive_file).
std::optional<uint64_t> meminfo_available(std::string_view meminfo);
std::optional<uint64_t> cgroup_room(std::string_view limit, std::string_view usage, std::string_view stat = {});
// The room left under an address-space limit (getrlimit RLIMIT_AS's soft limit, RLIM_INFINITY for none) for a
// process whose /proc/self/status text is `status` (its VmSize).
std::optional<uint64_t> address_space_room(uint64_t limit, std::string_view status);

}  // namespace fmwork
