// run_sweep on its own: the lines it writes per combination, the failures it reports and goes past.
#include "fmwork/sweep/sweep.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "fmwork/base/error.hpp"
#include "fmwork/log/log_format.hpp"
#include "fmwork/model/model.hpp"
#include "fmwork/loaders/model_loader.hpp"
#include "fmwork/platform/platform_registry.hpp"
#include "support/model_fixtures.hpp"
#include "support/test_support.hpp"

namespace fmwork {
namespace {

using fmwork::TempDir;

TEST(RunSweep, WritesEachCombinationInOrderAndReportsFailuresAndGoesOn) {
  TempDir dir;
  const std::string path = dir.file("encoder/model.pt");
  ASSERT_EQ(fmwork::test_support::make_test_encoder(path).exit_code, 0);  // 64 positions: input 100 fails
  auto platform = make_platform("cpu", {});
  auto model = load_model(LoadRequest{path, "BertModel", {}, platform->facts().device});
  InputGenerator inputs(model->facts().tokens, 0);
  const SweepPlan plan = test_support::sweep_of({1, 2}, {8, 100}, 4);
  std::ostringstream out;
  std::vector<std::string> reported;
  const int failures =
      run_sweep(plan, *model, *platform, inputs, out, [&](const std::string& m) { reported.push_back(m); });

  EXPECT_EQ(failures, 2);
  ASSERT_EQ(reported.size(), 2u);
  EXPECT_NE(reported[0].find("combination input 100 / batch 1 failed: "), std::string::npos) << reported[0];
  EXPECT_NE(reported[1].find("combination input 100 / batch 2 failed: "), std::string::npos) << reported[1];

  // Per combination, batch outer and input inner: RUN banner, REP 1..4, RES and STAT, or a FAIL.
  std::vector<std::string> order;
  std::istringstream lines(out.str());
  std::string line;
  int reps = 0;
  while (std::getline(lines, line)) {
    if (line.rfind("RUN ", 0) == 0) order.push_back(line);
    auto parsed = parse_line(line);
    if (!parsed) continue;
    if (auto* rep = std::get_if<RepLine>(&*parsed)) {
      EXPECT_EQ(rep->rep, ++reps);
      EXPECT_EQ(rep->reps, 4);
      EXPECT_GE(rep->t1, rep->t0);
    } else if (auto* res = std::get_if<ResLine>(&*parsed)) {
      order.push_back("RES " + std::to_string(res->input) + "x" + std::to_string(res->batch));
      EXPECT_EQ(reps, 4);
      reps = 0;
    } else if (std::get_if<StatLine>(&*parsed)) {
      order.push_back("STAT");
    } else if (auto* fail = std::get_if<FailLine>(&*parsed)) {
      order.push_back("FAIL " + *fail->fields.find("input") + "x" + *fail->fields.find("batch"));
      reps = 0;
    }
  }
  EXPECT_EQ(order, (std::vector<std::string>{"RUN 8 / 1", "RES 8x1", "STAT", "RUN 100 / 1", "FAIL 100x1",
                                             "RUN 8 / 2", "RES 8x2", "STAT", "RUN 100 / 2", "FAIL 100x2"}));
}

// A cpu platform whose device "dies" with the first failure, as a CUDA context does after an illegal address.
// No meters: the sweep admits on the host's memory and reports no device peaks.
class DyingPlatform : public Platform {
 public:
  DyingPlatform() : Platform(PlatformMeters{}) {}
  void synchronize() override {}
  void release_cached_memory() override {}
  std::optional<std::string> unrecoverable_error(const std::string& failure) override {
    return "dying:0: an illegal memory access was encountered (after: " + failure.substr(0, 20) + ")";
  }
  std::unique_ptr<Model> compile(std::unique_ptr<Model>, const CompileOptions& options, const ModelSource&) override {
    no_platform_compiler("dying", options);
  }

 protected:
  PlatformFacts own_facts() const override { return {"dying", torch::kCPU, "cpu that dies"}; }
};

// Defect 6: after a sticky CUDA error the sweep "went on", failing every combination left the same way.
TEST(RunSweep, AnUnrecoverableDeviceErrorStopsTheSweepNamingIt) {
  TempDir dir;
  const std::string path = dir.file("encoder/model.pt");
  ASSERT_EQ(fmwork::test_support::make_test_encoder(path).exit_code, 0);  // 64 positions: input 100 fails
  DyingPlatform platform;
  auto model = load_model(LoadRequest{path, "BertModel", {}, platform.facts().device});
  InputGenerator inputs(model->facts().tokens, 0);
  const SweepPlan plan = test_support::sweep_of({1, 2}, {8, 100}, 2);
  std::ostringstream out;
  std::vector<std::string> reported;
  try {
    run_sweep(plan, *model, platform, inputs, out, [&](const std::string& m) { reported.push_back(m); });
    ADD_FAILURE() << "the sweep went on";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::runtime);
    EXPECT_EQ(std::string(e.what()).rfind("combination input 100 / batch 1: dying:0: an illegal memory access", 0), 0u)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("the sweep stops (2 of 4 combinations not run)"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(reported.empty()) << "one line, the Error's, not a failure line beside it";
  EXPECT_NE(out.str().find("FMWORK FAIL input=100 batch=1 "), std::string::npos) << out.str();
  EXPECT_EQ(out.str().find("RUN 8 / 2"), std::string::npos) << out.str();
}

}  // namespace
}  // namespace fmwork
