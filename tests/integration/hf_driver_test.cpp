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

// Defect: --compare paired an eager-attention run with an sdpa one as like with like: META did not
// say which attention ran (nor whether the GELU epilogue did), so the documented refusal never fired.
TEST(HfDriver, AttentionAndTheGeluEpilogueAreInMetaAndCompareRefusesToPairThem) {
  TempDir dir;
  fmwork::test_support::write_file(dir.file("config.json"), tiny_config());
  fmwork::hf::write_random_model_folder(dir.file("config.json"), dir.file("model"), 1);
  const CommandResult eager = drive(dir.file("model"), "RobertaModel", {"--model:attn_implementation", "eager"});
  const CommandResult sdpa = drive(dir.file("model"), "RobertaModel");
  ASSERT_EQ(eager.exit_code, 0) << eager.err;
  ASSERT_EQ(sdpa.exit_code, 0) << sdpa.err;
  EXPECT_NE(eager.out.find(" attention=eager gelu_epilogue=false runtime=eager\n"), std::string::npos) << eager.out;
  EXPECT_NE(sdpa.out.find(" attention=sdpa gelu_epilogue=false runtime=eager\n"), std::string::npos) << sdpa.out;
  const std::string a = dir.file("eager.log"), b = dir.file("sdpa.log");
  fmwork::test_support::write_file(a, eager.out);
  fmwork::test_support::write_file(b, sdpa.out);
  const CommandResult refused = run_command({fmwork::test_support::process_path(), "--compare", a, b});
  EXPECT_EQ(refused.exit_code, 2) << refused.out;
  EXPECT_NE(refused.err.find(" RobertaModel float32      8      1 differs in attention (A: eager, B: sdpa); compare "
                             "like with like, or pass --ignore-meta attention to pair them anyway\n"),
            std::string::npos)
      << refused.err;
  const CommandResult paired =
      run_command({fmwork::test_support::process_path(), "--compare", a, b, "--ignore-meta", "attention"});
  EXPECT_EQ(paired.exit_code, 0) << paired.err;
  EXPECT_NE(paired.out.find("B/A lat"), std::string::npos) << paired.out;
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

// With ATen, MKL and oneDNN held to AVX2 (every CPU of this project's kinds has AVX2), the driver's own ISA
// decisions follow what ATen's kernels use, whatever the CPU has: META says isa=avx2, bfloat16 is warned about
// (no native instructions among AVX2's), and the MKL packed GEMM, the default only with AVX-512, is off.
TEST(HfDriver, IsaDecisionsFollowTheCapabilityAtenReports) {
  const std::string folder = fmwork::test_support::source_dir() + "/configs/models/all-MiniLM-L6-v2";
  const std::vector<std::string> argv = {fmwork::test_support::driver_path(), "--platform", "cpu", "--model_class",
                                         "BertModel", "--model_name", folder, "--model:random_weights@", "True",
                                         "--input_sizes", "8", "--batch_sizes", "1", "--reps", "2"};
  std::vector<std::string> bf16 = argv;
  bf16.insert(bf16.end(), {"--model:torch_dtype", "bfloat16"});
  // All three held together, as an AVX2-only machine is: ATen alone held would leave oneDNN's AMX to bfloat16.
  const std::vector<std::string> held = {"ATEN_CPU_CAPABILITY=avx2", "MKL_ENABLE_INSTRUCTIONS=AVX2",
                                         "ONEDNN_MAX_CPU_ISA=AVX2"};
  const CommandResult f32 = run_command(argv, held);
  const CommandResult b16 = run_command(bf16, held);
  ASSERT_EQ(f32.exit_code, 0) << f32.err << f32.out;
  ASSERT_EQ(b16.exit_code, 0) << b16.err << b16.out;
  EXPECT_NE(f32.out.find(" isa=avx2 "), std::string::npos) << f32.out;
  EXPECT_NE(f32.out.find("MKL packed GEMM is off by default without AVX-512"), std::string::npos) << f32.out;
  EXPECT_NE(b16.err.find("warning: bfloat16 has no native instructions on this CPU (avx2: "), std::string::npos)
      << b16.err;
  EXPECT_EQ(f32.err.find("no native instructions"), std::string::npos) << "float32 needs none: " << f32.err;
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

// Defect: --input_sizes past the positions was a FAIL line after loading (the others ran), while
// --input_lengths past them was refused before: one rule now, config.json read before the weights, for the sweep
// and serve alike.
TEST(HfDriver, InputLongerThanThePositionTableIsRefusedBeforeLoading) {
  TempDir dir;
  fmwork::test_support::write_file(dir.file("config.json"), tiny_config());  // 20 positions, pad 1: 18 tokens
  for (const bool serve : {false, true}) {
    std::vector<std::string> argv = {fmwork::test_support::driver_path(), "--platform", "cpu", "--model_class",
                                     "AutoModel", "--model_name", dir.path(), "--input_sizes", serve ? "19" : "18,19",
                                     "--batch_sizes", "1", "--model:random_weights@", "True"};
    if (serve) argv.insert(argv.begin() + 1, "serve"), argv.insert(argv.end(), {"--rates", "10"});
    else argv.insert(argv.end(), {"--reps", "2"});
    const auto r = run_command(argv);
    EXPECT_EQ(r.exit_code, 2) << serve << r.err;
    EXPECT_EQ(r.err, "error: --input_sizes 19 is beyond the positions of " + dir.path() +
                         "/config.json: 18 tokens; give --input_sizes up to 18\n")
        << serve;
    EXPECT_EQ(r.out.find("MODEL"), std::string::npos) << serve << ": refused before loading\n" << r.out;
  }
}

}  // namespace
