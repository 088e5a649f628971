// runtime/op_profile: a real call under LibTorch's profiler. The trace is a Chrome trace holding the call's
// operators; the summary's self times add up and its FLOP count is the products' 2 m n k; an output that is
// no regular file is never replaced.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <string>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "fmwork/base/error.hpp"
#include "fmwork/runtime/op_profile.hpp"
#include "support/test_support.hpp"

namespace {

using fmwork::OpProfile;
using fmwork::OpTotal;
using fmwork::profile_call;
using fmwork::TempDir;

const OpTotal* find_op(const OpProfile& p, const std::string& name) {
  for (const OpTotal& op : p.ops)
    if (op.name == name) return &op;
  return nullptr;
}

// A linear layer (addmm: 2 x 6 x 5 x 4) and a batched product (bmm: 2 x 3 x 4 x 4 x 2), then elementwise work.
void small_model() {
  const at::Tensor x = torch::ones({6, 4}), w = torch::ones({5, 4}), b = torch::zeros({5});
  const at::Tensor y = torch::linear(x, w, b);
  const at::Tensor q = torch::ones({3, 4, 2}), k = torch::ones({3, 2, 4});
  const at::Tensor s = torch::softmax(torch::bmm(q, k) * 0.5, -1);
  ASSERT_EQ(y.sum().item<float>(), 6 * 5 * 4);
  ASSERT_EQ(s.size(0), 3);
}

TEST(OpProfile, WritesAChromeTraceOfTheCallsOperators) {
  TempDir dir;
  const std::string path = dir.file("16x1.trace.json");
  const OpProfile p = profile_call(small_model, c10::DeviceType::CPU, path);
  const nlohmann::json trace = nlohmann::json::parse(fmwork::test_support::read_file(path));
  ASSERT_TRUE(trace.contains("traceEvents")) << "a Chrome trace keeps its events under traceEvents";
  bool addmm = false, bmm = false;
  for (const auto& e : trace["traceEvents"]) {
    if (!e.contains("name") || !e["name"].is_string()) continue;
    addmm = addmm || e["name"] == "aten::addmm";
    bmm = bmm || e["name"] == "aten::bmm";
  }
  EXPECT_TRUE(addmm && bmm) << "the trace holds the call's products";
  EXPECT_FALSE(p.device_activities) << "the CPU has no device activities to ask for";
  EXPECT_EQ(p.device_self_ms, 0);
}

TEST(OpProfile, SumsOperatorsBySelfTimeAndCountsTheProductsFlops) {
  TempDir dir;
  const OpProfile p = profile_call(small_model, c10::DeviceType::CPU, dir.file("t.json"));
  const OpTotal* addmm = find_op(p, "aten::addmm");
  const OpTotal* bmm = find_op(p, "aten::bmm");
  const OpTotal* linear = find_op(p, "aten::linear");
  ASSERT_TRUE(addmm && bmm && linear);
  EXPECT_EQ(addmm->on, "cpu");
  EXPECT_EQ(addmm->calls, 1);
  EXPECT_EQ(addmm->flops, 2.0 * 6 * 5 * 4);
  EXPECT_EQ(bmm->flops, 2.0 * 3 * 4 * 4 * 2);
  EXPECT_EQ(p.counted_flops, 2.0 * 6 * 5 * 4 + 2.0 * 3 * 4 * 4 * 2) << "the products only: mul is not counted";
  // aten::linear calls aten::addmm: its self time excludes its child's, its total includes it.
  EXPECT_LE(linear->self_ms, linear->total_ms - addmm->total_ms + 1e-6);
  double self = 0;
  for (size_t i = 0; i < p.ops.size(); ++i) {
    const OpTotal& op = p.ops[i];
    EXPECT_GE(op.self_ms, 0) << op.name;
    EXPECT_LE(op.self_ms, op.total_ms + 1e-9) << op.name;
    if (i > 0) EXPECT_GE(p.ops[i - 1].self_ms, op.self_ms) << "sorted by self time, largest first";
    self += op.self_ms;
  }
  EXPECT_NEAR(self, p.cpu_self_ms, 1e-6);
  EXPECT_NEAR(fmwork::self_share(p, p.ops.front()), p.ops.front().self_ms / p.cpu_self_ms, 1e-12);
}

TEST(OpProfile, NeverReplacesWhatIsNoRegularFile) {
  TempDir dir;
  const std::string fifo = dir.file("fifo.trace.json");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  try {
    profile_call(small_model, c10::DeviceType::CPU, fifo);
    FAIL() << "a FIFO was accepted as the trace's path";
  } catch (const fmwork::Error& e) {
    EXPECT_EQ(std::string(e.what()), "--profile: " + fifo + " exists and is no regular file; it is not replaced");
  }
  struct stat st {};
  ASSERT_EQ(stat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode)) << "the FIFO is still there";
}

TEST(OpProfile, AFailingCallStopsTheProfilerAndPropagates) {
  TempDir dir;
  EXPECT_THROW(profile_call([] { throw std::runtime_error("model failed"); }, c10::DeviceType::CPU, dir.file("a.json")),
               std::runtime_error);
  // The profiler is stopped: a second profile starts cleanly.
  const OpProfile p = profile_call(small_model, c10::DeviceType::CPU, dir.file("b.json"));
  EXPECT_NE(find_op(p, "aten::addmm"), nullptr);
}

}  // namespace
