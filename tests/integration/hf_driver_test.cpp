// The driver on Hugging Face folders, end to end: the upstream command line on a folder, random weights from
// a shipped config, and the exit codes of bad folders.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "fmwork/loaders/hf_model.hpp"
#include "support/test_support.hpp"

namespace {

namespace fs = std::filesystem;
using fmwork::test_support::CommandResult;
using fmwork::test_support::run_command;
using fmwork::TempDir;

CommandResult drive(const std::string& folder, const std::string& cls, const std::vector<std::string>& extra = {}) {
  std::vector<std::string> argv = {fmwork::test_support::driver_path(), "--platform", "cpu", "--model_class", cls,
                                   "--model_name", folder, "--input_sizes", "8", "--batch_sizes", "1,2", "--reps", "3"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return run_command(argv);
}

std::string tiny_config() {
  return nlohmann::json{{"model_type", "roberta"}, {"architectures", {"RobertaModel"}}, {"hidden_size", 32},
                        {"num_hidden_layers", 2}, {"num_attention_heads", 4}, {"intermediate_size", 64},
                        {"vocab_size", 120}, {"max_position_embeddings", 20}, {"type_vocab_size", 1},
                        {"pad_token_id", 1}, {"layer_norm_eps", 1e-5}}
      .dump();
}

TEST(HfDriver, RunsAFolderWithTheUpstreamCommandLine) {
  TempDir dir;
  fmwork::test_support::write_file(dir.file("config.json"), tiny_config());
  fmwork::hf::write_random_model_folder(dir.file("config.json"), dir.file("model"), 1);
  auto r = drive(dir.file("model"), "RobertaModel");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("native encoder: RobertaModel"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("zero-copy from the mapping"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("FMWORK SETUP "), std::string::npos);
  EXPECT_NE(r.out.find(" RobertaModel 8 1 "), std::string::npos) << "a RES line per combination: " << r.out;
  EXPECT_NE(r.out.find(" RobertaModel 8 2 "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("RANDOM"), std::string::npos);
}

TEST(HfDriver, RandomWeightsFromAShippedConfig) {
  const std::string folder = fmwork::test_support::source_dir() + "/configs/models/all-MiniLM-L6-v2";
  auto r = drive(folder, "BertModel", {"--model:random_weights@", "True"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("*** RANDOM WEIGHTS ***"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" BertModel 8 2 "), std::string::npos) << r.out;
  // Without the opt-in: a usage error that names it.
  auto refused = drive(folder, "BertModel");
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_NE(refused.err.find("--model:random_weights@ True"), std::string::npos) << refused.err;
}

TEST(HfDriver, BadFoldersExitWithTheirKind) {
  TempDir dir;
  // A head class: usage (2).
  fmwork::test_support::write_file(dir.file("config.json"), tiny_config());
  fmwork::hf::write_random_model_folder(dir.file("config.json"), dir.file("model"), 1);
  auto r = drive(dir.file("model"), "RobertaForMaskedLM");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("use --model_class RobertaModel"), std::string::npos) << r.err;
  // A truncated safetensors file: runtime (1), naming the file.
  std::string bytes = fmwork::test_support::read_file(dir.file("model/model.safetensors"));
  fmwork::test_support::write_file(dir.file("model/model.safetensors"), bytes.substr(0, bytes.size() - 100));
  r = drive(dir.file("model"), "RobertaModel");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("model.safetensors"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("past the end of the data section"), std::string::npos) << r.err;
}

TEST(HfDriver, InputLongerThanThePositionTableFailsThatCombinationOnly) {
  TempDir dir;
  fmwork::test_support::write_file(dir.file("config.json"), tiny_config());  // 20 positions, pad 1: 18 tokens
  auto r = run_command({fmwork::test_support::driver_path(), "--platform", "cpu", "--model_class", "AutoModel",
                        "--model_name", dir.path(), "--input_sizes", "18,19", "--batch_sizes", "1", "--reps", "2",
                        "--model:random_weights@", "True"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.out.find(" AutoModel 18 1 "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("FMWORK FAIL"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--input_sizes up to 18"), std::string::npos) << r.out;
}

}  // namespace
