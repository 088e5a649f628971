// Tests of host_memory: MemAvailable and cgroup limits read from the kernel's texts, and the figure of this
// machine.
#include "fmwork/base/host_memory.hpp"

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
