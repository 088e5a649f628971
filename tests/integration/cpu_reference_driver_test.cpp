// The built `driver`: a run that is not CPU eager (--compile, a plugin device) is held against the same model
// eager on the CPU by default, in one CHECK line on its first combination; --check_outputs:cpu@ False turns it
// off; a CPU eager run gets no extra line; a model whose outputs differ from the CPU's fails its first
// combination and the later ones say so.
#include <gtest/gtest.h>
#include <torch/script.h>

#include <string>
#include <vector>

#include "fmwork/log/log_format.hpp"
#include "support/log_lines.hpp"
#include "support/test_support.hpp"

namespace fmwork {
namespace {

using namespace fmwork::test_support;

template <typename T>
std::vector<T> only(const std::string& out) {
  std::vector<T> lines;
  for (const auto& l : parse_all(out))
    if (auto* p = std::get_if<T>(&l)) lines.push_back(*p);
  return lines;
}

std::string field(const CheckLine& line, const char* key) {
  const std::string* value = line.fields.find(key);
  return value ? *value : "<absent>";
}

class CpuReferenceDriverTest : public EncoderSuite {
 protected:
  // A TorchScript model whose outputs are random, saved as `name`: its compiled run and its eager run on the CPU
  // cannot agree, as a compiler or a device that computes wrong would not.
  static std::string noisy_model(const std::string& name) {
    torch::jit::Module m("Noisy");
    m.define(R"(
    def forward(self, input_ids):
        return torch.rand([input_ids.size(0), input_ids.size(1), 8])
  )");
    m.save(dir_->file(name));
    return dir_->file(name);
  }

  static std::vector<std::string> args(const std::vector<std::string>& extra, const std::string& model = model_,
                                       const std::string& platform = "cpu") {
    std::vector<std::string> a = {"--platform", platform, "--model_class", "BertModel", "--model_name", model,
                                  "--input_sizes", "8,16", "--batch_sizes", "2,1", "--reps", "3", "--eval"};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }
};

TEST_F(CpuReferenceDriverTest, ACompiledRunIsCheckedOnceAgainstTheCpu) {
  auto r = driver(args({"--compile", "--compile:backend", "torchscript"}));
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("cpu reference: after the first combination's reps, its first 2 rows run again"),
            std::string::npos)
      << r.out;
  const auto checks = only<CheckLine>(r.out);
  ASSERT_EQ(checks.size(), 1u) << r.out;
  EXPECT_EQ(field(checks[0], "input"), "8");
  EXPECT_EQ(field(checks[0], "batch"), "2");
  EXPECT_EQ(field(checks[0], "reference"), "cpu");
  EXPECT_EQ(field(checks[0], "rows"), "2");
  EXPECT_EQ(field(checks[0], "result"), "pass");
  EXPECT_EQ(only<ResLine>(r.out).size(), 4u);
  EXPECT_TRUE(only<FailLine>(r.out).empty());
}

TEST_F(CpuReferenceDriverTest, APluginDeviceIsCheckedWithoutCompiling) {
  auto r = driver(args({}, model_, "refdev"));
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const auto checks = only<CheckLine>(r.out);
  ASSERT_EQ(checks.size(), 1u) << r.out;
  EXPECT_EQ(field(checks[0], "reference"), "cpu");
  EXPECT_EQ(field(checks[0], "result"), "pass");
}

TEST_F(CpuReferenceDriverTest, TheOptionTurnsItOffAndACpuEagerRunHasNone) {
  auto off = driver(args({"--compile", "--compile:backend", "torchscript", "--check_outputs:cpu@", "False"}));
  ASSERT_EQ(off.exit_code, 0) << off.err << off.out;
  EXPECT_NE(off.out.find("FMWORK ARG --check_outputs:cpu@ False\n"), std::string::npos) << off.out;
  EXPECT_TRUE(only<CheckLine>(off.out).empty()) << off.out;
  EXPECT_EQ(off.out.find("cpu reference"), std::string::npos) << off.out;

  auto eager = driver(args({}));
  ASSERT_EQ(eager.exit_code, 0) << eager.err << eager.out;
  EXPECT_TRUE(only<CheckLine>(eager.out).empty()) << eager.out;
  EXPECT_EQ(eager.out.find("cpu reference"), std::string::npos) << eager.out;
}

// The tolerances of --check_outputs tune the check against the CPU; on a CPU eager run without --check_outputs DIR
// they would tune nothing, and are refused.
TEST_F(CpuReferenceDriverTest, TolerancesTuneTheCheckAndAreRefusedWhereNothingIsChecked) {
  auto tuned = driver(args({"--compile", "--compile:backend", "torchscript", "--check_outputs:atol@", "0.5"}));
  ASSERT_EQ(tuned.exit_code, 0) << tuned.err << tuned.out;
  const auto checks = only<CheckLine>(tuned.out);
  ASSERT_EQ(checks.size(), 1u) << tuned.out;
  EXPECT_EQ(field(checks[0], "atol"), "0.5");
  expect_one_line_error(driver(args({"--check_outputs:atol@", "0.5"})), 2,
                        "--check_outputs:KEY sets tolerances of --check_outputs DIR, which is not given, or of the "
                        "check against the CPU");
}

// A model whose outputs are random: its compiled run and its eager run on the CPU cannot agree, as a compiler or a
// device that computes wrong would not.
TEST_F(CpuReferenceDriverTest, OutputsThatDifferFailTheFirstCombinationAndTheRestSaySo) {
  const std::string noisy = noisy_model("noisy.pt");
  auto r = driver(args({"--compile", "--compile:backend", "torchscript", "--model:vocab_size@", "100"}, noisy));
  EXPECT_EQ(r.exit_code, 1) << r.err << r.out;
  const auto checks = only<CheckLine>(r.out);
  ASSERT_EQ(checks.size(), 1u) << r.out;
  EXPECT_EQ(field(checks[0], "result"), "fail");
  const auto fails = only<FailLine>(r.out);
  ASSERT_EQ(fails.size(), 1u) << r.out;
  EXPECT_EQ(*fails[0].fields.find("input"), "8");
  EXPECT_EQ(*fails[0].fields.find("batch"), "2");
  EXPECT_NE(fails[0].fields.find("error")->find("outputs differ from the same model eager on the CPU"),
            std::string::npos);
  EXPECT_EQ(only<ResLine>(r.out).size(), 3u) << "the failed combination has no RES; the others run";
  const std::string wrong = "cpu reference: this run's outputs were judged wrong at input 8 / batch 2";
  size_t said = 0;
  for (size_t at = r.out.find(wrong); at != std::string::npos; at = r.out.find(wrong, at + 1)) ++said;
  EXPECT_EQ(said, 3u) << r.out;
  EXPECT_NE(r.err.find("1 of 4 combinations failed"), std::string::npos) << r.err;
}

// driver serve is held against the CPU too, once, before its levels: a model that computes wrong runs none.
TEST_F(CpuReferenceDriverTest, ServeIsCheckedBeforeItsLevelsAndAWrongModelRunsNone) {
  const auto serve = [](const std::string& model, std::vector<std::string> extra) {
    std::vector<std::string> a = {"serve", "--platform", "cpu", "--model_class", "BertModel", "--model_name", model,
                                  "--input_sizes", "8", "--batch_sizes", "2", "--rates", "50", "--duration_s", "0.5",
                                  "--compile", "--compile:backend", "torchscript", "--eval"};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };
  auto good = driver(serve(model_, {}));
  ASSERT_EQ(good.exit_code, 0) << good.err << good.out;
  auto checks = only<CheckLine>(good.out);
  ASSERT_EQ(checks.size(), 1u) << good.out;
  EXPECT_EQ(field(checks[0], "reference"), "cpu");
  EXPECT_EQ(field(checks[0], "rows"), "2");
  EXPECT_EQ(field(checks[0], "result"), "pass");
  EXPECT_FALSE(only<ServeLine>(good.out).empty()) << good.out;

  const std::string noisy = noisy_model("noisy-serve.pt");
  auto wrong = driver(serve(noisy, {"--model:vocab_size@", "100"}));
  EXPECT_EQ(wrong.exit_code, 1) << wrong.err << wrong.out;
  checks = only<CheckLine>(wrong.out);
  ASSERT_EQ(checks.size(), 1u) << wrong.out;
  EXPECT_EQ(field(checks[0], "result"), "fail");
  EXPECT_TRUE(only<ServeLine>(wrong.out).empty()) << wrong.out;
  EXPECT_EQ(wrong.err.rfind("error: serve: ", 0), 0u) << wrong.err;
  EXPECT_NE(wrong.err.find("no level is run for a model whose outputs are wrong"), std::string::npos) << wrong.err;
}

}  // namespace
}  // namespace fmwork
