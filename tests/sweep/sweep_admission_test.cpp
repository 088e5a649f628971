// The sweep's memory admission, through the driver on real models: a combination whose inputs and estimated
// activations exceed the memory available becomes a FAIL line with the estimate and the limit, before
// anything is allocated for it, and the sweep goes on; an input longer than the model's positions fails at
// once, not after building its inputs. The sizes asked for (terabytes) exceed any machine's memory.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fmwork/loaders/hf_model.hpp"
#include "fmwork/loaders/model_loader.hpp"
#include "support/test_support.hpp"

namespace fmwork {
namespace {

using test_support::CommandResult;
using fmwork::TempDir;

std::string small_bert(const TempDir& dir) {
  const nlohmann::json config = {{"model_type", "bert"}, {"architectures", {"BertModel"}}, {"hidden_size", 32},
                                 {"num_hidden_layers", 1}, {"num_attention_heads", 4}, {"intermediate_size", 64},
                                 {"vocab_size", 120}, {"max_position_embeddings", 64}, {"type_vocab_size", 2},
                                 {"pad_token_id", 0}};
  test_support::write_file(dir.file("config.json"), config.dump());
  hf::write_random_model_folder(dir.file("config.json"), dir.file("model"), 1);
  return dir.file("model");
}

CommandResult sweep(const std::string& model, const std::string& inputs, const std::string& batches) {
  return test_support::run_command({"timeout", "120", test_support::driver_path(), "--platform", "cpu", "--model_class",
                               "BertModel", "--model_name", model, "--input_sizes", inputs, "--batch_sizes", batches,
                               "--reps", "2"});
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(SweepAdmission, CombinationBeyondMemoryIsAFailLineWithTheFiguresAndTheSweepGoesOn) {
  TempDir dir;
  // Batch 2^40 x input 64: petabytes of activations. It comes first; batch 2 must still run.
  const CommandResult r = sweep(small_bert(dir), "64", "1099511627776,2");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const std::string fail = "FMWORK FAIL input=64 batch=1099511627776 error=batch 1099511627776 x input 64 needs an "
                           "estimated ";
  ASSERT_NE(r.out.find(fail), std::string::npos) << r.out;
  const std::string line = r.out.substr(r.out.find(fail), r.out.find('\n', r.out.find(fail)) - r.out.find(fail));
  EXPECT_NE(line.find(" of inputs + "), std::string::npos) << line;
  EXPECT_NE(line.find(" of activations) but cpu has "), std::string::npos) << line;
  EXPECT_NE(line.find(" GiB available ("), std::string::npos) << line;
  EXPECT_NE(line.find("lower --batch_sizes or --input_sizes"), std::string::npos) << line;
  EXPECT_EQ(count(r.out, "FMWORK RES "), 1u) << r.out;
  EXPECT_NE(r.out.find("BertModel 64 2 "), std::string::npos) << r.out;
  EXPECT_EQ(count(r.err, "error: "), 2u) << r.err;  // the combination's line and the summary line
  // stderr is no terminal here: progress is one line per combination that ran, and the failed one has its
  // error instead. Besides those, only what the machine's state may add (the GEMM probe's line on an empty
  // cache, a warning) is allowed.
  size_t progress = 0;
  for (size_t at = 0; at < r.err.size();) {
    const size_t end = std::min(r.err.find('\n', at), r.err.size());
    const std::string line = r.err.substr(at, end - at);
    at = end + 1;
    progress += line.rfind("combination ", 0) == 0;
    EXPECT_TRUE(line.rfind("combination ", 0) == 0 || line.rfind("error: ", 0) == 0 ||
                line.rfind("measuring the machine's GEMM rate", 0) == 0 || line.rfind("warning: ", 0) == 0)
        << "unexpected line: " << line;
  }
  EXPECT_EQ(progress, 1u) << r.err;
  EXPECT_NE(r.err.find("combination 2 of 2 (input 64, batch 2): p50 "), std::string::npos) << r.err;
}

TEST(SweepAdmission, InputLongerThanThePositionsIsRefusedBeforeAnythingLoads) {
  TempDir dir;
  // 2^31 tokens would be 48 GiB of inputs; the position table (64), read from config.json, refuses the shape
  // before the weights are read (it was the combination's FAIL line, the encoder refusing it before its inputs
  // were built; the encoder still does for a model whose config.json tells nothing beforehand).
  const std::string model = small_bert(dir);
  const CommandResult r = sweep(model, "2147483648,8", "1");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err, "error: --input_sizes 2147483648 is beyond the positions of " + model +
                       "/config.json: 64 tokens; give --input_sizes up to 64\n");
  EXPECT_EQ(r.out.find("MODEL"), std::string::npos) << r.out;
}

TEST(SweepAdmission, ModelsWithoutAnEstimateAreAdmittedOnTheirInputs) {
  TempDir dir;
  const std::string model = test_support::make_small_torchscript(dir, "ts");
  // A TorchScript file gives no estimate: 2^40 x 2^10 tokens of int64 inputs (24 PiB) are refused on their own.
  const CommandResult r = sweep(model, "1024", "1099511627776");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("of inputs; the model gives no activation estimate) but cpu has "), std::string::npos) << r.out;
}

TEST(SweepAdmission, EstimateGrowsWithTheShapeAndCountsEagerScores) {
  TempDir dir;
  LoadRequest request{small_bert(dir), "BertModel", {}, torch::kCPU};
  request.options.attn_implementation = "sdpa";
  const auto sdpa = load_model(request);
  request.options.attn_implementation = "eager";
  const auto eager = load_model(request);
  const uint64_t small = sdpa->facts().activation_bytes(1, 8), large = sdpa->facts().activation_bytes(4, 64);
  EXPECT_GT(small, 0u);
  EXPECT_GT(large, small * 4);  // at least linear in the tokens
  // Eager attention holds two [batch, heads, T, T] float32 tensors that sdpa does not.
  const uint64_t scores = 2ull * 4 * 4 * 64 * 64 * sizeof(float);
  EXPECT_GT(eager->facts().activation_bytes(4, 64), large + scores / 2);
  EXPECT_THROW(sdpa->facts().activation_bytes(1, 65), Error);
}

}  // namespace
}  // namespace fmwork
