// Tests of host_memory: MemAvailable and cgroup limits read from the kernel's texts, and the figure of this
// machine.
#include "fmwork/base/host_memory.hpp"

#include <sys/mman.h>

#include <cstring>

#include <gtest/gtest.h>
#include <sys/resource.h>

namespace fmwork {
namespace {

TEST(HostMemory, ReadsMemAvailableInBytes) {
  EXPECT_EQ(meminfo_available("MemTotal:       24000000 kB\nMemFree:  1 kB\nMemAvailable:   21893228 kB\n"),
            21893228ull * 1024);
  EXPECT_EQ(meminfo_available("MemTotal: 1 kB\n"), std::nullopt);
  EXPECT_EQ(meminfo_available("MemAvailable: 12x kB\n"), std::nullopt);
  EXPECT_EQ(meminfo_available("MemAvailable: 99999999999999999999999 kB\n"), std::nullopt);
}

TEST(HostMemory, CgroupRoomIsLimitLessUsageAndNoneWithoutALimit) {
  EXPECT_EQ(cgroup_room("4294967296\n", "1073741824\n"), 3ull << 30);
  EXPECT_EQ(cgroup_room("1000\n", "2000\n"), 0u);                              // over the limit: no room
  EXPECT_EQ(cgroup_room("max\n", "1073741824\n"), std::nullopt);               // v2: no limit
  EXPECT_EQ(cgroup_room("9223372036854771712\n", "1000\n"), std::nullopt);     // v1: no limit
  // The page cache the kernel reclaims first is not in the way: 3 GiB used of 4, 2 GiB of it inactive files.
  EXPECT_EQ(cgroup_room("4294967296\n", "3221225472\n", "anon 1073741824\ninactive_file 2147483648\n"), 3ull << 30);
  EXPECT_EQ(cgroup_room("4294967296\n", "3221225472\n", "total_inactive_file 2147483648\n"), 3ull << 30);  // v1
  EXPECT_EQ(cgroup_room("4294967296\n", "3221225472\n", "active_file 2147483648\n"), 1ull << 30)
      << "active file pages are not the first reclaimed";
  EXPECT_EQ(cgroup_room("4294967296\n", "1000\n", "inactive_file 5000\n"), 4294967296ull) << "never below zero";
  EXPECT_EQ(cgroup_room("4294967296\n", "3221225472\n", "inactive_file junk\n"), 1ull << 30);
}

TEST(HostMemory, ThisMachineHasSomeAvailable) {
  const auto budget = host_available_memory();
  ASSERT_TRUE(budget.has_value());
  EXPECT_GT(budget->bytes, 64ull << 20) << budget->source;
  EXPECT_FALSE(budget->source.empty());
}

TEST(HostMemory, ReadsThePeakResidentSizeInBytes) {
  EXPECT_EQ(status_rss_peak("Name:\tx\nVmPeak:\t 9 kB\nVmHWM:\t  218220 kB\nVmRSS:\t   13592 kB\n"), 218220ull << 10);
  EXPECT_EQ(status_rss_peak("Name:\tx\nVmRSS:\t   13592 kB\n"), std::nullopt);
  EXPECT_EQ(status_rss_peak("XVmHWM:\t 5 kB\n"), std::nullopt) << "a key at a line's start only";
}

// The peak a combination's MEM line reports starts at its reps: 64 MiB touched and given back before the reset
// is not in the peak after it. Where the kernel refuses the reset, the peak is the process's (and says so).
TEST(HostMemory, ThePeakResetsWhereTheKernelAllows) {
  const size_t size = size_t{64} << 20;
  void* block = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(block, MAP_FAILED);
  std::memset(block, 1, size);
  const auto before = host_rss_peak();
  ASSERT_TRUE(before.has_value());
  munmap(block, size);
  if (!reset_host_rss_peak()) GTEST_SKIP() << "/proc/self/clear_refs refused the reset here";
  const auto after = host_rss_peak();
  ASSERT_TRUE(after.has_value());
  EXPECT_LT(*after + (size / 2), *before);
}

}  // namespace
TEST(HostMemory, AnAddressSpaceLimitLeavesItsRoom) {
  const std::string status = "Name:\tdriver\nVmPeak:\t  900000 kB\nVmSize:\t  524288 kB\nVmRSS:\t 1000 kB\n";
  EXPECT_EQ(fmwork::address_space_room(1ull << 30, status), 512ull << 20);  // 1 GiB limit, 512 MiB mapped
  EXPECT_EQ(fmwork::address_space_room(256ull << 20, status), 0u);          // already past it
  EXPECT_EQ(fmwork::address_space_room(RLIM_INFINITY, status), std::nullopt);
  EXPECT_EQ(fmwork::address_space_room(1ull << 30, "VmRSS:\t 1000 kB\n"), std::nullopt);
  EXPECT_EQ(fmwork::address_space_room(1ull << 30, "VmSize:\t many kB\n"), std::nullopt);
}

}  // namespace fmwork
