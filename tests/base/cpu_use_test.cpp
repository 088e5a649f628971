// Tests of the CPU-use counters: each /proc text read from fixed examples, the shares from fixed samples, and a
// live sample that reads (no figure of the machine's load is asserted: the suite runs beside other work).
#include "fmwork/base/cpu_use.hpp"

#include <gtest/gtest.h>

namespace fmwork {
namespace {

TEST(CpuUse, ReadsTheKernelsTexts) {
  EXPECT_EQ(pressure_some_total("some avg10=93.31 avg60=74.73 avg300=77.36 total=1337322519\n"
                                "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"),
            1337322519);
  EXPECT_FALSE(pressure_some_total("full avg10=0.00 total=5\n").has_value());
  EXPECT_FALSE(pressure_some_total("some avg10=1.00\ntotal=5\n").has_value()) << "total on the some line only";
  EXPECT_EQ(steal_and_all_ticks("cpu  199411 157684 32024 21891 351 0 182 420 7 0\ncpu0 1 2 3 4 5 6 7 8 9 10\n"),
            std::make_pair(int64_t{420}, int64_t{199411 + 157684 + 32024 + 21891 + 351 + 0 + 182 + 420}))
      << "guest time is in user already: not summed twice";
  EXPECT_FALSE(steal_and_all_ticks("cpu  1 2 3 4 5 6 7\n").has_value()) << "a kernel without steal";
  EXPECT_FALSE(steal_and_all_ticks("intr 1 2 3\n").has_value());
  EXPECT_EQ(schedstat_wait("12345 30390252 17\n"), 30390252);
  EXPECT_FALSE(schedstat_wait("12345\n").has_value());
  EXPECT_FALSE(schedstat_wait("99999999999999999999 1 1\n").has_value()) << "an overflow is no number";
}

CpuSample sample(int64_t wall, int64_t cpu, std::map<int64_t, int64_t> waits, int64_t some, int64_t steal, int64_t all) {
  CpuSample s;
  s.wall_ns = wall;
  s.process_cpu_ns = cpu;
  s.run_wait_ns = std::move(waits);
  s.pressure_some_us = some;
  s.steal_ticks = steal;
  s.all_ticks = all;
  return s;
}

TEST(CpuUse, SharesOfAnInterval) {
  // One second, two threads asked for: 1.0 s of CPU, thread 7 waited 0.6 s, a thread started since waited 0.2 s
  // and one that ended counts for nothing; PSI's some grew by 0.9 s; 5 of 200 ticks stolen.
  const CpuSample before = sample(1'000'000'000, 500'000'000, {{5, 100}, {7, 1'000'000}, {9, 50}}, 1'000, 10, 1000);
  const CpuSample after = sample(2'000'000'000, 1'500'000'000, {{5, 100}, {7, 601'000'000}, {8, 200'000'000}}, 901'000,
                                 15, 1200);
  const CpuUse use = cpu_use(before, after, 2);
  EXPECT_DOUBLE_EQ(*use.cpu_share, 0.5);
  EXPECT_DOUBLE_EQ(*use.wait_share, 0.4);
  EXPECT_DOUBLE_EQ(*use.pressure, 0.9);
  EXPECT_DOUBLE_EQ(*use.steal_share, 0.025);
  EXPECT_EQ(use.threads, 2);
  EXPECT_GE(use.cpus, 1) << "the CPUs this process may run on";
  CpuSample bare = after;
  bare.run_wait_ns.reset();
  bare.pressure_some_us.reset();
  bare.steal_ticks.reset();
  const CpuUse some = cpu_use(before, bare, 0);
  EXPECT_DOUBLE_EQ(*some.cpu_share, 1.0) << "threads below 1 count as 1";
  EXPECT_EQ(some.threads, 1);
  EXPECT_FALSE(some.wait_share || some.pressure || some.steal_share);
  const CpuUse none = cpu_use(after, after, 2);
  EXPECT_FALSE(none.cpu_share || none.wait_share || none.pressure || none.steal_share) << "no time, no share";
}

TEST(CpuUse, ALiveSampleReads) {
  const CpuSample a = sample_cpu();
  volatile double x = 0;
  for (int i = 0; i < 1000000; ++i) x = x + 1;
  const CpuSample b = sample_cpu();
  EXPECT_GT(b.wall_ns, a.wall_ns);
  EXPECT_GE(b.process_cpu_ns, a.process_cpu_ns);
  const CpuUse use = cpu_use(a, b, 1);
  ASSERT_TRUE(use.cpu_share.has_value());
  EXPECT_GE(*use.cpu_share, 0.0);
  if (use.wait_share) EXPECT_GE(*use.wait_share, 0.0);
}

}  // namespace
}  // namespace fmwork
