// Tests of sweep/serve_run on a real (tiny) native encoder: where the platform has an energy counter, each
// level's SERVE line carries its energy and the CAPACITY line the capacity level's. The counter here is a fake
// on the CPU platform (NVML's on a GPU: scripts/gpu-check.sh): a constant 100 W read from the steady clock in
// 20 ms steps, so the window's mean power is 100 W whatever the machine's load.
#include "fmwork/sweep/serve_run.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <sstream>

#include "fmwork/log/log_records.hpp"
#include "fmwork/platform/platform_registry.hpp"
#include "support/test_support.hpp"

namespace fmwork {
namespace {

using namespace test_support::encoders;

class SteppingCounter : public EnergyMeter {
 public:
  std::optional<double> joules() override {
    const auto now = std::chrono::steady_clock::now().time_since_epoch();
    const int64_t steps = std::chrono::duration_cast<std::chrono::milliseconds>(now).count() / 20;
    return static_cast<double>(steps) * 0.020 * 100.0;
  }
};

TEST(ServeRun, EachLevelsEnergyAndTheEnergyAtTheCapacityWhereTheDeviceMetersIt) {
  TempDir dir;
  const auto config = tiny_config("bert");
  write_folder(dir.path(), config, tiny_weights(config, true, 3));
  auto model = load(dir.path(), "BertModel");
  auto platform = make_platform("cpu", PlatformOptions{});
  platform->meters().energy = std::make_unique<SteppingCounter>();
  InputGenerator inputs(model->facts().tokens, 1);
  ServeSetup setup;
  setup.max_batch = 4;
  setup.lengths = parse_length_spec("8", "--input_lengths");
  setup.args.rates = {10};  // far below what the tiny model serves, even on a loaded machine
  setup.args.warmup_s = 0;
  setup.args.duration_s = 1.2;  // the energy window needs 1 s
  setup.args.min_queries = 5;
  setup.args.bound = parse_latency_bound("p99:60000", "--latency_bound");
  setup.args.search_steps = 1;  // the level at 10 queries/s again: the capacity
  std::ostringstream out;
  ASSERT_EQ(run_serve(setup, *model, *platform, inputs, out), 0) << out.str();
  const ParsedLog log = parse_log_text(out.str(), "serve.log");
  ASSERT_EQ(log.serve.size(), 2u) << out.str();
  for (const ServeLine& line : log.serve) {
    const std::string* watts = line.fields.find("watts");
    const std::string* per_1000 = line.fields.find("joules_per_1000_q");
    ASSERT_TRUE(watts && per_1000) << out.str();
    EXPECT_NEAR(std::stod(*watts), 100.0, 5.0) << "the counter's steps at each end: at most 2 x 2 J over >= 1 s";
    EXPECT_GT(std::stod(*per_1000), 0.0);
  }
  ASSERT_EQ(log.capacity.size(), 1u);
  const std::string* at_capacity = log.capacity[0].fields.find("joules_per_1000_q");
  ASSERT_TRUE(at_capacity) << out.str();
  EXPECT_EQ(*at_capacity, *log.serve[1].fields.find("joules_per_1000_q")) << "the capacity is the search's level";
  EXPECT_NE(out.str().find("energy: each level's, from the device counter's step before it"), std::string::npos);
}

}  // namespace
}  // namespace fmwork
