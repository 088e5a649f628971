// The check of a run against the CPU eager model: which runs get it, the rows the CPU runs, the judgement of a
// run's outputs (a wrong tensor fails, padding is not judged, outputs that cannot be compared are a note), and the
// run's check on a real TorchScript model written here: once, a note for what cannot run, a failure remembered.
#include "fmwork/sweep/cpu_reference.hpp"

#include <gtest/gtest.h>
#include <torch/script.h>
#include <torch/torch.h>

#include <string>

#include "fmwork/base/error.hpp"
#include "fmwork/loaders/model_loader.hpp"
#include "support/test_support.hpp"

namespace fmwork {
namespace {

std::string field(const CheckLine& line, const char* key) {
  const std::string* value = line.fields.find(key);
  return value ? *value : "<absent>";
}

TEST(CpuReference, HeldWhenCompiledOrOffTheCpuUnlessTheFileOrTheOptionSaysOtherwise) {
  const CheckOptions on, off{std::nullopt, std::nullopt, std::nullopt, false};
  const torch::Device cpu(torch::kCPU), device(c10::DeviceType::PrivateUse1, 0);
  EXPECT_FALSE(holds_against_cpu(false, cpu, false, on));  // CPU eager: nothing to hold it against
  EXPECT_TRUE(holds_against_cpu(true, cpu, false, on));
  EXPECT_TRUE(holds_against_cpu(false, device, false, on));
  EXPECT_TRUE(holds_against_cpu(true, device, false, on));
  EXPECT_FALSE(holds_against_cpu(true, device, false, off));  // --check_outputs:cpu@ False
  EXPECT_FALSE(holds_against_cpu(true, device, true, on));    // --check_outputs DIR is the run's reference
}

TEST(CpuReference, FirstRowsKeepThePaddingAndNeverThePacking) {
  Batch fed{torch::arange(12, torch::kLong).view({3, 4}), torch::tensor({1, 1, 1, 0, 1, 1, 0, 0, 1, 1, 1, 1}).view({3, 4}),
            torch::zeros({3, 4}, torch::kLong), true, {3, 2, 4}};
  const Batch b = first_rows(fed, 2);
  EXPECT_TRUE(b.input_ids.equal(fed.input_ids.narrow(0, 0, 2)));
  EXPECT_TRUE(b.attention_mask.equal(fed.attention_mask.narrow(0, 0, 2)));
  EXPECT_EQ(b.token_type_ids.sizes(), (c10::IntArrayRef{2, 4}));
  EXPECT_TRUE(b.padded);
  EXPECT_EQ(b.lengths, (std::vector<int64_t>{3, 2}));
  EXPECT_FALSE(b.packed.input_ids.defined());
}

const Tolerance kFloat32{1e-4, 1e-4, 0.99999};

TEST(CpuReference, TheSameOutputsPassWithTheLineSayingWhatWasCompared) {
  const auto hidden = torch::randn({2, 4, 8});
  const CpuCheck c = judge_against_cpu(16, 8, {{"last_hidden_state", hidden + 1e-7}}, {{"last_hidden_state", hidden}},
                                       kFloat32, "float32", torch::ones({2, 4}, torch::kLong));
  ASSERT_TRUE(c.line);
  EXPECT_TRUE(c.pass);
  EXPECT_TRUE(c.failure.empty());
  EXPECT_TRUE(c.note.empty());
  EXPECT_EQ(field(*c.line, "input"), "16");
  EXPECT_EQ(field(*c.line, "batch"), "8");
  EXPECT_EQ(field(*c.line, "reference"), "cpu");
  EXPECT_EQ(field(*c.line, "rows"), "2");
  EXPECT_EQ(field(*c.line, "outputs"), "last_hidden_state");
  EXPECT_EQ(field(*c.line, "result"), "pass");
  EXPECT_EQ(format_line(*c.line).rfind("FMWORK CHECK input=16 batch=8 reference=cpu rows=2 outputs=", 0), 0u);
}

// What a kernel stub returning uninitialised memory gives: values unrelated to the CPU's.
TEST(CpuReference, AWrongTensorFailsWithTheReasonForTheFailLine) {
  torch::manual_seed(1);
  const auto want = torch::randn({1, 4, 8}), wrong = torch::randn({1, 4, 8});
  const CpuCheck c = judge_against_cpu(4, 1, {{"output_0", wrong}}, {{"output_0", want}}, {2e-2, 2e-2, 0.9999},
                                       "float16", torch::ones({1, 4}, torch::kLong));
  ASSERT_TRUE(c.line);
  EXPECT_FALSE(c.pass);
  EXPECT_EQ(field(*c.line, "result"), "fail");
  EXPECT_EQ(field(*c.line, "min_cosine"), "0.9999");
  EXPECT_NE(c.failure.find("outputs differ from the same model eager on the CPU beyond float16's tolerances"),
            std::string::npos)
      << c.failure;
  EXPECT_NE(c.failure.find("first 1 rows"), std::string::npos) << c.failure;
}

TEST(CpuReference, PaddingIsNotJudgedAndOnlyOutputsOfBothAreCompared) {
  const auto hidden = torch::randn({2, 4, 8});
  auto run = hidden.clone();
  run.narrow(1, 3, 1).fill_(1e6);  // the run's model leaves its padding as it likes
  const auto mask = torch::tensor({1, 1, 1, 0, 1, 1, 1, 0}).view({2, 4});
  const CpuCheck c = judge_against_cpu(4, 2, {{"last_hidden_state", run}, {"extra", torch::ones({2})}},
                                       {{"last_hidden_state", hidden}, {"pooler_output_cpu_only", torch::ones({2, 8})}},
                                       kFloat32, "float32", mask);
  ASSERT_TRUE(c.line) << c.note;
  EXPECT_TRUE(c.pass);
  EXPECT_EQ(field(*c.line, "outputs"), "last_hidden_state");
}

TEST(CpuReference, OutputsThatCannotBeComparedAreANoteNotAFailure) {
  const auto mask = torch::ones({1, 4}, torch::kLong);
  const CpuCheck none = judge_against_cpu(4, 1, {{"a", torch::ones({1, 4})}}, {{"b", torch::ones({1, 4})}}, kFloat32,
                                          "float32", mask);
  EXPECT_FALSE(none.line);
  EXPECT_TRUE(none.pass);
  EXPECT_EQ(none.note, "cpu reference: not checked: no output in common: the run's model gives a, the CPU's b; the run "
                       "goes on unchecked");
  const CpuCheck shape = judge_against_cpu(4, 1, {{"a", torch::ones({1, 4})}}, {{"a", torch::ones({1, 5})}}, kFloat32,
                                           "float32", mask);
  EXPECT_FALSE(shape.line);
  EXPECT_TRUE(shape.pass);
  EXPECT_NE(shape.note.find("output a is [1, 4] from the run's model, [1, 5] from the CPU's"), std::string::npos)
      << shape.note;
}

// --- the run's check, on a real TorchScript model ---

// A TorchScript model of one weight: each token's id scaled, masked, as [batch, tokens, 2]. With a training mode,
// as a module from Python has (one defined in C++ has none unless given).
std::string write_scaling_model(const TempDir& dir) {
  torch::jit::Module m("Scaling");
  m.register_attribute("training", c10::BoolType::get(), true);
  m.register_parameter("scale", torch::tensor({0.5f, 2.0f}), false);
  m.define(R"(
    def forward(self, input_ids, attention_mask):
        x = input_ids.float().unsqueeze(-1) * self.scale
        return x * attention_mask.float().unsqueeze(-1)
  )");
  const std::string path = dir.file("scaling.pt");
  m.save(path);
  return path;
}

class CpuReferenceRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = write_scaling_model(dir_);
    options_.vocab_size = 100;
    model_ = load_model(request());
    model_->eval();
    fed_ = Batch{torch::randint(0, 100, {3, 5}, torch::kLong), torch::ones({3, 5}, torch::kLong),
                 torch::zeros({3, 5}, torch::kLong), false, {}};
  }
  LoadRequest request() const { return LoadRequest{path_, "BertModel", options_, torch::kCPU}; }
  CpuReference eager(bool eval = true) const {
    return CpuReference{[request = request(), eval] {
      auto m = load_model(request);
      if (eval) m->eval();
      return m;
    }};
  }

  TempDir dir_;
  std::string path_;
  ModelOptions options_;
  std::unique_ptr<Model> model_;
  Batch fed_;
};

TEST_F(CpuReferenceRunTest, TheFirstCombinationIsCheckedOnceOnItsFirstTwoRows) {
  CpuReferenceCheck check(eager(), {});
  EXPECT_NE(check.plan_line().find("its first 2 rows run again through the same model eager on the CPU"),
            std::string::npos);
  const CpuCheck first = check.after_reps(5, 3, *model_, fed_, model_->forward(fed_));
  ASSERT_TRUE(first.line) << first.note;
  EXPECT_TRUE(first.pass);
  EXPECT_EQ(field(*first.line, "rows"), "2");
  EXPECT_EQ(field(*first.line, "result"), "pass");
  const CpuCheck later = check.after_reps(5, 3, *model_, fed_, model_->forward(fed_));
  EXPECT_FALSE(later.line);
  EXPECT_TRUE(later.note.empty());
  EXPECT_TRUE(check.judged_wrong().empty());
}

TEST_F(CpuReferenceRunTest, WrongOutputsFailAndTheRunRemembersIt) {
  CpuReferenceCheck check(eager(), {});
  const torch::Tensor wrong = model_->forward(fed_).toTensor() + 1;
  const CpuCheck c = check.after_reps(5, 3, *model_, fed_, wrong);
  ASSERT_TRUE(c.line) << c.note;
  EXPECT_FALSE(c.pass);
  EXPECT_EQ(field(*c.line, "result"), "fail");
  EXPECT_FALSE(c.failure.empty());
  EXPECT_NE(check.judged_wrong().find("judged wrong at input 5 / batch 3"), std::string::npos) << check.judged_wrong();
}

TEST_F(CpuReferenceRunTest, ACheckThatCannotRunIsANoteAndNothingFails) {
  CpuReferenceCheck refused(CpuReference{[]() -> std::unique_ptr<Model> {
                              throw usage_error("class Gpt2Model has no native encoder; it runs with --compile");
                            }},
                            {});
  const CpuCheck c = refused.after_reps(5, 3, *model_, fed_, model_->forward(fed_));
  EXPECT_FALSE(c.line);
  EXPECT_TRUE(c.pass);
  EXPECT_EQ(c.note, "cpu reference: not checked: class Gpt2Model has no native encoder; it runs with --compile; the "
                    "run goes on unchecked");
  EXPECT_TRUE(refused.judged_wrong().empty());

  CpuReferenceCheck training(eager(false), {});
  const CpuCheck t = training.after_reps(5, 3, *model_, fed_, model_->forward(fed_));
  EXPECT_FALSE(t.line);
  EXPECT_NE(t.note.find("runs in training mode (no --eval)"), std::string::npos) << t.note;

  CpuReferenceCheck scalar(eager(), {});
  const CpuCheck s = scalar.after_reps(5, 3, *model_, fed_, torch::ones({7}));
  EXPECT_FALSE(s.line);
  EXPECT_NE(s.note.find("the run's outputs (output_0) have no row per sequence"), std::string::npos) << s.note;
}

// A model whose weights the host could not hold twice: the CPU model is never loaded.
class HugeModel : public Model {
 public:
  explicit HugeModel(Model& inner) : inner_(inner) {}
  ModelFacts facts() const override {
    ModelFacts f = inner_.facts();
    f.parameter_count = int64_t{1} << 60;  // 4 EiB of float32
    return f;
  }
  torch::IValue forward(const Batch& batch) override { return inner_.forward(batch); }
  void eval() override { inner_.eval(); }

 private:
  Model& inner_;
};

TEST_F(CpuReferenceRunTest, WeightsBeyondTheHostsMemoryAreNotLoadedAgain) {
  bool loaded = false;
  CpuReferenceCheck check(CpuReference{[&] {
                            loaded = true;
                            return load_model(request());
                          }},
                          {});
  HugeModel huge(*model_);
  const CpuCheck c = check.after_reps(5, 3, huge, fed_, huge.forward(fed_));
  EXPECT_FALSE(loaded);
  EXPECT_FALSE(c.line);
  EXPECT_NE(c.note.find("would not fit in the host's available memory"), std::string::npos) << c.note;
}

TEST_F(CpuReferenceRunTest, NoReferenceNoCheck) {
  CpuReferenceCheck none(std::nullopt, {});
  EXPECT_TRUE(none.plan_line().empty());
  const CpuCheck c = none.after_reps(5, 3, *model_, fed_, model_->forward(fed_));
  EXPECT_FALSE(c.line);
  EXPECT_TRUE(c.note.empty());
}

}  // namespace
}  // namespace fmwork
