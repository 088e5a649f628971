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

// A tiny BERT folder on the CPU platform, and serve's setup for it: batches of up to 4 queries of 8 tokens, a level
// at 10 queries/s (far below what the tiny model serves, even on a loaded machine), no warm-up.
class ServeRun : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto config = tiny_config("bert");
    write_folder(dir_.path(), config, tiny_weights(config, true, 3));
    model_ = load(dir_.path(), "BertModel");
    platform_ = make_platform("cpu", PlatformOptions{});
    inputs_ = std::make_unique<InputGenerator>(model_->facts().tokens, 1);
    setup_.max_batch = 4;
    setup_.lengths = parse_length_spec("8", "--input_lengths");
    setup_.args.rates = {10};
    setup_.args.warmup_s = 0;
    setup_.args.min_queries = 5;
  }
  int serve(std::ostringstream& out) { return run_serve(setup_, *model_, *platform_, *inputs_, out); }

  TempDir dir_;
  std::unique_ptr<Model> model_;
  std::unique_ptr<Platform> platform_;
  std::unique_ptr<InputGenerator> inputs_;
  ServeSetup setup_;
};

TEST_F(ServeRun, EachLevelsEnergyAndTheEnergyAtTheCapacityWhereTheDeviceMetersIt) {
  platform_->meters().energy = std::make_unique<SteppingCounter>();
  ServeSetup& setup = setup_;
  setup.args.duration_s = 1.2;  // the energy window needs 1 s
  setup.args.bound = parse_latency_bound("p99:60000", "--latency_bound");
  setup.args.search_steps = 1;  // 10 queries/s (the level above, taken as it was), then one level: 20
  std::ostringstream out;
  ASSERT_EQ(serve(out), 0) << out.str();
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
  const ServeLine& capacity_level = *log.capacity[0].fields.find("capacity_qps") == "20.000" ? log.serve[1] : log.serve[0];
  EXPECT_EQ(*at_capacity, *capacity_level.fields.find("joules_per_1000_q")) << "the capacity level's own energy";
  EXPECT_NE(out.str().find("energy: each level's, from the device counter's step before it"), std::string::npos);
}

// A rate measured as a level is not run again by the search, and a budget that cannot hold the next level ends
// the search partial with what it found: both decided by the options, not by the machine's speed (the next
// level's expected length alone is past the budget).
TEST_F(ServeRun, TheSearchRunsNoRateTwiceAndStopsAtItsBudgetWithTheBracket) {
  setup_.args.duration_s = 0.3;
  setup_.args.bound = parse_latency_bound("p99:60000", "--latency_bound");
  setup_.args.search_budget_s = 0.2;  // below the next level's --duration_s 0.3
  std::ostringstream out;
  ASSERT_EQ(serve(out), 0) << out.str();
  const ParsedLog log = parse_log_text(out.str(), "serve.log");
  ASSERT_EQ(log.serve.size(), 1u) << "the search ran 10 queries/s again, or a level past its budget: " << out.str();
  ASSERT_EQ(log.capacity.size(), 1u) << out.str();
  const Fields& capacity = log.capacity[0].fields;
  EXPECT_EQ(*capacity.find("result"), "partial") << out.str();
  EXPECT_EQ(*capacity.find("capacity_qps"), "10.000") << out.str();
  EXPECT_EQ(*capacity.find("tried"), "10:" + std::string(*log.serve[0].fields.find("verdict") == "VALID" ? "pass" : "fail") +
                                         ":" + *log.serve[0].fields.find("bound_ms"));
  EXPECT_NE(capacity.find("reason")->find("the time budget, --search_budget_s 0.2"), std::string::npos) << out.str();
  EXPECT_NE(capacity.find("reason")->find("the level at 20 queries/s would take about"), std::string::npos) << out.str();
  // The CPU platform measures each level's CPU: the SERVE and CAPACITY lines say whether it was contended.
  ASSERT_NE(log.serve[0].fields.find("timing"), nullptr) << out.str();
  ASSERT_NE(capacity.find("timing"), nullptr) << out.str();
  EXPECT_NE(capacity.find("contended_levels"), nullptr) << out.str();
}

}  // namespace
}  // namespace fmwork
