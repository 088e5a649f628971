// The energy window around the sweep: where the platform has no counter (the cpu here), nothing is run and
// there is no figure; the window's own logic is tested against a fake meter in tests/base/energy_window_test.cpp.
#include "fmwork/sweep/device_energy.hpp"

#include <gtest/gtest.h>

#include "fmwork/platform/platform_registry.hpp"

namespace fmwork {
namespace {

TEST(DeviceEnergy, APlatformWithoutACounterRunsNothingMore) {
  auto cpu = make_platform("cpu", {});
  int runs = 0;
  EXPECT_FALSE(measure_device_energy(*cpu, [&] { ++runs; }));
  EXPECT_EQ(runs, 0);
  EXPECT_FALSE(cpu->facts().has_energy);
  EXPECT_EQ(cpu->facts().power_range.limit_watts, std::nullopt);
}

}  // namespace
}  // namespace fmwork
