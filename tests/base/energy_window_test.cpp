// The energy window against a fake meter: a clock that moves only when a run does, and a counter that steps
// every `step` as NVML's does (20-100 ms), at a constant power. No real time passes.
#include "fmwork/base/energy_window.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace fmwork {
namespace {

constexpr int64_t kMsNs = 1'000'000;

struct FakeMeter {
  double watts = 300;
  int64_t step_ns = 50 * kMsNs;  // the counter's update period
  int64_t run_ns = 4 * kMsNs;    // one run of the combination's shape
  int64_t now = 7 * kMsNs;       // not on a step: the first read is mid-period
  int64_t runs = 0;
  bool readable = true;

  EnergyMeterHooks hooks() {
    return {[this] { return now; },
            [this]() -> std::optional<double> {
              if (!readable) return std::nullopt;
              return static_cast<double>(now / step_ns * step_ns) / 1e9 * watts;  // joules at the last step
            },
            [this] { now += run_ns, ++runs; }};
  }
};

TEST(EnergyWindow, ALongWindowGivesThePowerAndEnergyARunTakesWithinTwoPercent) {
  for (int64_t step_ms : {20, 50, 100}) {
    for (int64_t run_ms : {1, 4, 30}) {
      SCOPED_TRACE(testing::Message() << "counter step " << step_ms << " ms, run " << run_ms << " ms");
      FakeMeter m;
      m.step_ns = step_ms * kMsNs, m.run_ns = run_ms * kMsNs;
      std::string why;
      const std::optional<EnergyWindow> w = measure_energy_window({}, m.hooks(), why);
      ASSERT_TRUE(w) << why;
      EXPECT_GE(w->seconds, 1.0);
      EXPECT_GE(w->updates, 10);
      EXPECT_NEAR(w->watts(), 300, 300 * 0.02) << "over " << w->seconds << " s";
      const double per_run = 300 * static_cast<double>(run_ms) / 1e3;
      EXPECT_NEAR(w->joules_per_run(), per_run, per_run * 0.02) << w->runs << " runs";
    }
  }
}

TEST(EnergyWindow, TenStepsOfASlowCounterMakeTheWindowLongerThanASecond) {
  FakeMeter m;
  m.step_ns = 250 * kMsNs;
  std::string why;
  const std::optional<EnergyWindow> w = measure_energy_window({}, m.hooks(), why);
  ASSERT_TRUE(w) << why;
  EXPECT_EQ(w->updates, 10);
  EXPECT_NEAR(w->seconds, 2.5, 0.01);
  EXPECT_NEAR(w->watts(), 300, 6);
}

// The window the timed reps alone made (15 reps of 4 ms: 60 ms, about one step) is what gave 773 W on a 700 W
// card: a window that cannot reach ten steps within its bound is no figure, and says why.
TEST(EnergyWindow, AWindowThatCannotReachItsStepsIsRefusedSayingWhy) {
  FakeMeter m;
  EnergyWindowRules rules;
  rules.max_seconds = 0.06;
  std::string why;
  EXPECT_FALSE(measure_energy_window(rules, m.hooks(), why));
  EXPECT_EQ(why, "the device's energy counter stepped 1 times in 0.06 s of runs, fewer than the 10 a figure needs");
}

TEST(EnergyWindow, ACounterThatDoesNotMoveOrCannotBeReadIsNoFigure) {
  FakeMeter still;
  still.watts = 0;
  std::string why;
  EXPECT_FALSE(measure_energy_window({}, still.hooks(), why));
  EXPECT_EQ(why, "the device's energy counter did not change in 30 s of runs");
  EXPECT_LE(still.runs, 30'000 / 4 + 2) << "bounded by max_seconds of runs";

  FakeMeter unreadable;
  unreadable.readable = false;
  EXPECT_FALSE(measure_energy_window({}, unreadable.hooks(), why));
  EXPECT_EQ(why, "the device's energy counter cannot be read");
  EXPECT_EQ(unreadable.runs, 0);
}

TEST(EnergyWindow, ACounterResetDuringTheWindowIsNoFigure) {
  FakeMeter m;
  EnergyMeterHooks hooks = m.hooks();
  const auto read = hooks.joules;
  hooks.joules = [&m, read]() -> std::optional<double> {
    return m.runs > 100 ? std::optional<double>(0.0) : read();
  };
  std::string why;
  EXPECT_FALSE(measure_energy_window({}, hooks, why));
  EXPECT_EQ(why, "the device's energy counter went backwards (reset during the run)");
}

TEST(EnergyWindow, APowerOutsideTheDevicesRangeIsANoteNamingBothNumbers) {
  const PowerRange h100{700.0, 70.0};
  EXPECT_EQ(implausible_power(773, 0.06, h100),
            "mean power 773 W over 0.06 s is above the device's enforced power limit (700 W)");
  EXPECT_EQ(implausible_power(20, 1.5, h100),
            "mean power 20 W over 1.50 s is below half the device's draw at rest (70 W)");
  EXPECT_EQ(implausible_power(700, 1.5, h100), "") << "at the limit: a card under full load";
  EXPECT_EQ(implausible_power(72, 1.5, h100), "");
  // Seen on an H200: the draw read at open still carried the run before (151 W; 78 W at rest), and a batch-1
  // run's 131 W is a figure.
  EXPECT_EQ(implausible_power(131, 1.1, PowerRange{700.0, 151.0}), "");
  EXPECT_EQ(implausible_power(5000, 1.5, PowerRange{}), "") << "a device that says nothing of its range";
}

// A serving level runs once: its window is the counter's step before it and the step after it, watched idle
// (1 ms a look). The fake device draws `watts` while working and `idle_watts` while watched.
struct FakeSpan {
  double watts = 400, idle_watts = 80;
  int64_t step_ns = 100 * kMsNs;
  int64_t now = 37 * kMsNs;
  double drawn = 0;          // joules drawn so far
  double at_step = 0;        // the counter: joules at the last step
  int64_t last_step = 0;
  bool readable = true;
  void advance(int64_t ns, double power) {  // in 1 ms slices, the counter stepping on its period
    for (int64_t t = 0; t < ns; t += kMsNs) {
      now += kMsNs, drawn += power * 1e-3;
      if (now / step_ns != last_step) last_step = now / step_ns, at_step = drawn;
    }
  }
  EnergySpanHooks hooks() {
    return {[this] { return now; },
            [this]() -> std::optional<double> { return readable ? std::optional<double>(at_step) : std::nullopt; },
            [this] { advance(kMsNs, idle_watts); }};
  }
};

TEST(EnergyOfSpan, ALevelOfSecondsGivesItsPowerWithinTwoPercentAndItsRuns) {
  for (int64_t step_ms : {20, 100}) {
    for (int64_t work_ms : {1500, 5000}) {
      SCOPED_TRACE(testing::Message() << "counter step " << step_ms << " ms, work " << work_ms << " ms");
      FakeSpan f;
      f.step_ns = step_ms * kMsNs;
      std::string why;
      const auto w = measure_energy_of_span(EnergyWindowRules{}, f.hooks(), [&] {
        f.advance(work_ms * kMsNs, f.watts);
        return int64_t{321};
      }, why);
      ASSERT_TRUE(w) << why;
      EXPECT_EQ(w->runs, 321);
      // The window holds the work and at most a step period of idle at each end.
      EXPECT_GE(w->seconds, work_ms / 1e3);
      EXPECT_LE(w->seconds, (work_ms + 2 * step_ms) / 1e3 + 0.002);
      EXPECT_NEAR(w->joules, f.watts * work_ms / 1e3, 0.02 * f.watts * work_ms / 1e3);
      EXPECT_NEAR(w->watts(), f.watts, 0.1 * f.watts) << "idle at the ends pulls the mean down by at most that";
    }
  }
}

TEST(EnergyOfSpan, TheWorkRunsEvenWhereNoFigureCanBeMade) {
  int ran = 0;
  const auto work = [&](FakeSpan& f, int64_t ms) {
    return [&f, ms, &ran] {
      f.advance(ms * kMsNs, f.watts);
      ++ran;
      return int64_t{1};
    };
  };
  std::string why;
  FakeSpan unreadable;
  unreadable.readable = false;
  EXPECT_FALSE(measure_energy_of_span(EnergyWindowRules{}, unreadable.hooks(), work(unreadable, 2000), why));
  EXPECT_EQ(why, "the device's energy counter cannot be read");
  FakeSpan stuck;
  stuck.step_ns = int64_t{1} << 60;  // never steps
  EnergyWindowRules quick;
  quick.max_seconds = 0.5;
  EXPECT_FALSE(measure_energy_of_span(quick, stuck.hooks(), work(stuck, 2000), why));
  EXPECT_EQ(why, "the device's energy counter did not change in 0.5 s");
  FakeSpan brief;
  EXPECT_FALSE(measure_energy_of_span(EnergyWindowRules{}, brief.hooks(), work(brief, 300), why));
  EXPECT_NE(why.find("shorter than the 1 s a figure needs"), std::string::npos) << why;
  EXPECT_EQ(ran, 3) << "the level is the point; its energy is a figure beside it";
}

TEST(EnergyOfSpan, AResetDuringTheWorkIsNoFigureAndTheWorksErrorPassesThrough) {
  FakeSpan reset;
  std::string why;
  EXPECT_FALSE(measure_energy_of_span(EnergyWindowRules{}, reset.hooks(), [&] {
    reset.advance(2000 * kMsNs, reset.watts);
    reset.drawn = reset.at_step = 0;  // the counter starts again from 0
    return int64_t{1};
  }, why));
  EXPECT_EQ(why, "the device's energy counter went backwards (reset during the run)");
  FakeSpan failing;
  EXPECT_THROW(measure_energy_of_span(EnergyWindowRules{}, failing.hooks(),
                                      []() -> int64_t { throw std::runtime_error("the level failed"); }, why),
               std::runtime_error);
}

}  // namespace
}  // namespace fmwork
