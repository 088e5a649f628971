// The driver with request lengths of a distribution (--input_lengths, --batching), end to end on a Hugging
// Face folder: META names the mode and the distribution, STAT counts the real and computed tokens, the three
// modes see the same requests, unpadded computes on the real ones alone, and what cannot run is refused in one
// line.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <regex>
#include <string>

#include <nlohmann/json.hpp>

#include "fmwork/loaders/hf_model.hpp"
#include "fmwork/model/safetensors.hpp"
#include "support/test_support.hpp"

namespace {

using fmwork::test_support::CommandResult;
using fmwork::test_support::run_command;
using fmwork::TempDir;

class LengthsDriver : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir;
    fmwork::test_support::write_file(dir_->file("config.json"),
                                     nlohmann::json{{"model_type", "bert"}, {"architectures", {"BertModel"}},
                                                    {"hidden_size", 32}, {"num_hidden_layers", 2},
                                                    {"num_attention_heads", 4}, {"intermediate_size", 64},
                                                    {"vocab_size", 120}, {"max_position_embeddings", 64},
                                                    {"type_vocab_size", 2}, {"pad_token_id", 0}}
                                         .dump());
    fmwork::hf::write_random_model_folder(dir_->file("config.json"), dir_->file("model"), 1);
  }
  static void TearDownTestSuite() { delete dir_; }

  static CommandResult drive(const std::vector<std::string>& extra) {
    std::vector<std::string> argv = {fmwork::test_support::driver_path(), "--platform", "cpu", "--model_class",
                                     "BertModel", "--model_name", dir_->file("model"), "--input_sizes", "48",
                                     "--batch_sizes", "4", "--reps", "5", "--warmup", "1", "--quiet"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return run_command(argv);
  }

  // The key=value fields of the first line starting with `prefix`.
  static std::map<std::string, std::string> fields(const std::string& out, const std::string& prefix) {
    std::map<std::string, std::string> f;
    const size_t at = out.find(prefix);
    if (at == std::string::npos) return f;
    const std::string line = out.substr(at, out.find('\n', at) - at);
    static const std::regex pair(R"((\w+)=(\S*))");
    for (std::sregex_iterator it(line.begin(), line.end(), pair), end; it != end; ++it) f[(*it)[1]] = (*it)[2];
    return f;
  }

  static TempDir* dir_;
};
TempDir* LengthsDriver::dir_ = nullptr;

TEST_F(LengthsDriver, EachModeNamesItselfAndCountsItsTokens) {
  std::map<std::string, std::map<std::string, std::string>> stat;
  for (const char* mode : {"padded", "sorted", "unpadded"}) {
    SCOPED_TRACE(mode);
    const CommandResult r = drive({"--input_lengths", "lognormal:8,48", "--batching", mode});
    ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
    const auto meta = fields(r.out, "FMWORK META ");
    EXPECT_EQ(meta.at("batching"), mode);
    EXPECT_EQ(meta.at("lengths"), "lognormal:8,48,0.8");
    stat[mode] = fields(r.out, "FMWORK STAT ");
    const double real = std::stod(stat[mode].at("real_tokens")), padded = std::stod(stat[mode].at("padded_tokens"));
    EXPECT_GE(real, 4.0);
    EXPECT_LE(padded, 4.0 * 48);
    if (std::string(mode) == "unpadded") {
      EXPECT_EQ(real, padded) << "unpadded computes on the real tokens alone";
      EXPECT_EQ(stat[mode].at("padding"), "0.0000");
    } else {
      EXPECT_GT(padded, real) << "four lengths drawn from a log-normal are not all one length";
    }
    EXPECT_EQ(stat[mode].count("flops"), 0u) << "no one FLOP count for batches of many shapes";
    EXPECT_NE(r.out.find(" BertModel 48 4 "), std::string::npos) << "RES's input is the longest length allowed";
  }
  // One seed, the same requests: padded and unpadded see the same real tokens rep by rep; sorted's window holds
  // the same kept requests cut into other batches (its warm-up's apart), so the same real tokens a kept rep.
  EXPECT_EQ(stat["padded"].at("real_tokens"), stat["unpadded"].at("real_tokens"));
  EXPECT_EQ(stat["sorted"].at("real_tokens"), stat["padded"].at("real_tokens"));
  EXPECT_LE(std::stod(stat["sorted"].at("padded_tokens")), std::stod(stat["padded"].at("padded_tokens")))
      << "sorting pads less";
}

// Defect: with --sort_window not a multiple of the batch, each window's short last batch (its shortest
// requests) was left out, and sorted ran longer requests than padded on the same seed (42.9 real tokens a rep
// against 33.0, batch 4 and window 6), then was set beside padded as if it ran the same ones.
TEST_F(LengthsDriver, SortedWithAWindowOfPartBatchesRunsPaddedsRequests) {
  std::map<std::string, std::string> real;
  for (const char* mode : {"padded", "sorted"}) {
    std::vector<std::string> extra = {"--input_lengths", "uniform:1,48", "--batching", mode};
    if (std::string(mode) == "sorted") extra.insert(extra.end(), {"--sort_window", "6"});
    const CommandResult r = drive(extra);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    real[mode] = fields(r.out, "FMWORK STAT ").at("real_tokens");
  }
  EXPECT_EQ(real["sorted"], real["padded"]);
}

// The verdict of mixed lengths is of the durations at equal work: STAT carries that spread, NOTE judges it
// (spread_of=equal_work), and process's verdict, computed again from the log, is the same.
TEST_F(LengthsDriver, TheVerdictIsAtEqualWorkAndProcessAgrees) {
  const CommandResult r = drive({"--input_lengths", "lognormal:8,48", "--batching", "padded"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto stat = fields(r.out, "FMWORK STAT "), note = fields(r.out, "FMWORK NOTE ");
  ASSERT_EQ(stat.count("work_cov"), 1u) << r.out;
  EXPECT_EQ(stat.count("work_explained"), 1u);
  for (const char* key : {"spread_of", "verdict", "cov", "p90_p50"}) ASSERT_EQ(note.count(key), 1u) << key << r.out;
  ASSERT_EQ(stat.count("work_p90_p50"), 1u) << r.out;
  EXPECT_EQ(note.at("spread_of"), "equal_work") << r.out;
  EXPECT_EQ(note.at("cov"), stat.at("work_cov"));
  EXPECT_EQ(note.at("p90_p50"), stat.at("work_p90_p50"));
  // Drift is left out of both lines alike where the spread lacks it (at equal work a slow outlier rep can leave
  // the first quarter's adjusted durations with no positive mean): "" for an absent one.
  const auto value = [](const std::map<std::string, std::string>& line, const char* key) {
    return line.count(key) ? line.at(key) : std::string();
  };
  EXPECT_EQ(value(note, "drift"), value(stat, "work_drift")) << r.out;
  const std::string log = dir_->file("equal_work.log");
  fmwork::test_support::write_file(log, r.out);
  const CommandResult csv = run_command({fmwork::test_support::process_path(), "--format", "csv", log});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_NE(csv.out.find("," + note.at("verdict") + "," + note.at("cov") + "," + note.at("p90_p50") + "," +
                         value(note, "drift") + ",equal_work,"),
            std::string::npos)
      << csv.out << "\n" << r.out;
}

TEST_F(LengthsDriver, UnpaddedOutputsMatchPaddedOnTheRealTokens) {
  // --save_outputs from the padded run (the padding's outputs set to zero), checked by the unpadded run.
  const CommandResult saved =
      drive({"--input_lengths", "uniform:1,48", "--batching", "padded", "--save_outputs", dir_->file("ref")});
  ASSERT_EQ(saved.exit_code, 0) << saved.err;
  const CommandResult checked = drive({"--batching", "unpadded", "--check_outputs", dir_->file("ref")});
  ASSERT_EQ(checked.exit_code, 0) << checked.err << checked.out;
  EXPECT_EQ(fields(checked.out, "FMWORK CHECK ").at("result"), "pass") << checked.out;
}

// A batch of mixed lengths padded to 32 tokens, the model's hidden size (as MiniLM's 384): --save_outputs zeroed
// pooler_output past each row's length, as if it were per token, in every mode, and --check_outputs masked
// the reference the same way, so a wrong pooler passed.
TEST_F(LengthsDriver, APoolerAsWideAsThePaddedBatchIsSavedAndCheckedWhole) {
  const std::vector<int64_t> lengths = {32, 5, 17, 9};
  at::Tensor ids = at::arange(5, 5 + 4 * 32, at::kLong).remainder(110).add(5).view({4, 32});
  at::Tensor mask = at::ones({4, 32}, at::kLong);
  for (int64_t row = 0; row < 4; ++row) {
    mask[row].narrow(0, lengths[row], 32 - lengths[row]).zero_();
    ids[row].narrow(0, lengths[row], 32 - lengths[row]).zero_();
  }
  // The batch to feed, with outputs nothing computes: the check fails, the outputs are saved all the same.
  std::filesystem::create_directories(dir_->file("feed"));
  fmwork::hf::write_safetensors(dir_->file("feed/32x4.safetensors"),
                                {{"input_ids", ids}, {"attention_mask", mask}, {"token_type_ids", at::zeros_like(ids)},
                                 {"last_hidden_state", at::zeros({4, 32, 32})}, {"pooler_output", at::zeros({4, 32})}},
                                {{"format", "pt"}});
  for (const char* mode : {"padded", "unpadded"}) {
    SCOPED_TRACE(mode);
    const std::string saved = dir_->file(std::string("saved-") + mode);
    std::filesystem::create_directories(saved);
    const std::string scratch = saved + "-scratch";
    std::filesystem::create_directories(scratch);
    const auto run = [&](const std::string& check, const std::string& save) {
      return run_command({fmwork::test_support::driver_path(), "--platform", "cpu", "--model_class", "BertModel",
                          "--model_name", dir_->file("model"), "--input_sizes", "32", "--batch_sizes", "4", "--reps",
                          "2", "--quiet", "--batching", mode, "--check_outputs", check,
                          "--save_outputs", save});
    };
    const CommandResult fed = run(dir_->file("feed"), saved);
    ASSERT_EQ(fed.exit_code, 1) << fed.err << fed.out;  // the zeros are not its outputs
    ASSERT_EQ(fields(fed.out, "FMWORK CHECK ").at("result"), "fail") << fed.out;
    const auto file = fmwork::hf::SafetensorsFile::open(saved + "/32x4.safetensors");
    const at::Tensor pooled = file->tensor("pooler_output");
    for (int64_t row = 1; row < 4; ++row)
      EXPECT_FALSE(pooled[row].narrow(0, lengths[row], 32 - lengths[row]).eq(0).all().item<bool>())
          << "row " << row << ": the pooler past the row's length is no padding";
    EXPECT_TRUE(file->tensor("last_hidden_state")[1].narrow(0, 5, 27).eq(0).all().item<bool>())
        << "last_hidden_state is per token: zero at the padding";
    // Its own outputs pass; the same with one pooler value changed past a row's length does not.
    const CommandResult same = run(saved, scratch);
    EXPECT_EQ(same.exit_code, 0) << same.err << same.out;
    std::filesystem::create_directories(saved + "-wrong");
    at::Tensor wrong = pooled.clone();
    wrong[1][20] += 1.0f;
    fmwork::hf::write_safetensors(saved + "-wrong/32x4.safetensors",
                                  {{"input_ids", file->tensor("input_ids")}, {"attention_mask", file->tensor("attention_mask")},
                                   {"token_type_ids", file->tensor("token_type_ids")},
                                   {"last_hidden_state", file->tensor("last_hidden_state")}, {"pooler_output", wrong}},
                                  {{"format", "pt"}});
    const CommandResult caught = run(saved + "-wrong", scratch);
    EXPECT_EQ(caught.exit_code, 1) << caught.err << caught.out;
    EXPECT_EQ(fields(caught.out, "FMWORK CHECK ").at("result"), "fail") << caught.out;
  }
}

TEST_F(LengthsDriver, WhatCannotRunIsRefusedInOneLine) {
  const CommandResult beyond = drive({"--input_lengths", "uniform:1,64"});
  EXPECT_EQ(beyond.exit_code, 2);
  EXPECT_EQ(beyond.err,
            "error: --input_lengths can draw lengths up to 64 (uniform:1,64), beyond --input_sizes' 48 tokens; give a "
            "distribution whose longest length is at most 48\n");
  const CommandResult json = drive({"--input_lengths", "file:" + dir_->file("config.json")});
  EXPECT_EQ(json.exit_code, 2);
  EXPECT_NE(json.err.find("line 1 is longer than 64 bytes"), std::string::npos) << json.err;
  EXPECT_EQ(std::count(json.err.begin(), json.err.end(), '\n'), 1) << json.err;
  // A length file longer than the model's 64 positions (within --input_sizes 128) was refused after loading,
  // in two lines: one line now, before anything is loaded (config.json says how long the model's inputs go).
  fmwork::test_support::write_file(dir_->file("long.txt"), "12\n100\n7\n");
  const std::string long_file = "file:" + dir_->file("long.txt");
  const std::string past_positions = "error: --input_lengths can draw lengths up to 100 (" + long_file +
                                     "), beyond the positions of " + dir_->file("model") +
                                     "/config.json: 64 tokens; give a distribution whose longest length is at most 64\n";
  for (const bool serve : {false, true}) {
    std::vector<std::string> argv = {fmwork::test_support::driver_path(), "--platform", "cpu", "--model_class",
                                     "BertModel", "--model_name", dir_->file("model"), "--input_sizes", "128",
                                     "--batch_sizes", "4", "--input_lengths", long_file};
    if (serve) argv.insert(argv.begin() + 1, "serve"), argv.insert(argv.end(), {"--rates", "10"});
    else argv.insert(argv.end(), {"--reps", "2"});
    const CommandResult past = run_command(argv);
    EXPECT_EQ(past.exit_code, 2) << serve << past.err;
    EXPECT_EQ(past.err, past_positions) << serve;
    EXPECT_EQ(past.out.find("MODEL"), std::string::npos) << serve << ": refused before loading\n" << past.out;
  }
  // A TorchScript model is fed padded batches only.
  TempDir ts;
  const std::string model = fmwork::test_support::make_small_torchscript(ts, "small");
  auto torchscript = [&](const char* mode) {
    return run_command({fmwork::test_support::driver_path(), "--platform", "cpu", "--model_class", "BertModel",
                        "--model_name", model, "--input_sizes", "16", "--batch_sizes", "2", "--reps", "2",
                        "--input_lengths", "uniform:1,16", "--batching", mode});
  };
  const CommandResult refused = torchscript("unpadded");
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_NE(refused.err.find("--batching unpadded runs in the native encoders only"), std::string::npos) << refused.err;
  // serve refuses it in the same words (one check for both commands).
  const CommandResult served = run_command({fmwork::test_support::driver_path(), "serve", "--platform", "cpu",
                                            "--model_class", "BertModel", "--model_name", model, "--input_sizes", "16",
                                            "--batching", "unpadded", "--rates", "10"});
  EXPECT_EQ(served.exit_code, 2) << served.err;
  EXPECT_EQ(served.err.substr(served.err.find("--batching")), refused.err.substr(refused.err.find("--batching")));
  // ... but runs padded and sorted.
  const CommandResult padded = torchscript("sorted");
  EXPECT_EQ(padded.exit_code, 0) << padded.err;
  EXPECT_NE(padded.out.find("padding="), std::string::npos) << padded.out;
}

// --batching not given on mixed lengths: unpadded where the model runs packed tokens (a native encoder), padded
// where it cannot (a TorchScript file), in the sweep and in serve; a line says which and why, and META (serve:
// its SERVE lines) names it. Fixed lengths leave batching out.
TEST_F(LengthsDriver, UnpaddedIsTheDefaultWhereTheModelRunsIt) {
  const CommandResult native = drive({"--input_lengths", "lognormal:8,48"});
  ASSERT_EQ(native.exit_code, 0) << native.err;
  EXPECT_EQ(fields(native.out, "FMWORK META ").at("batching"), "unpadded");
  EXPECT_NE(native.out.find("batching: unpadded (--batching not given: the default on mixed lengths where the model "
                            "runs packed tokens"),
            std::string::npos) << native.out;
  const auto stat = fields(native.out, "FMWORK STAT ");
  EXPECT_EQ(stat.at("real_tokens"), stat.at("padded_tokens")) << "unpadded computes on the real tokens alone";

  const CommandResult served = run_command(
      {fmwork::test_support::driver_path(), "serve", "--platform", "cpu", "--model_class", "BertModel",
       "--model_name", dir_->file("model"), "--input_sizes", "48", "--batch_sizes", "4", "--input_lengths",
       "uniform:1,48", "--rates", "50", "--warmup_s", "0", "--duration_s", "0.2", "--min_queries", "5", "--quiet"});
  ASSERT_EQ(served.exit_code, 0) << served.err;
  EXPECT_EQ(fields(served.out, "FMWORK SERVE ").at("batching"), "unpadded") << served.out;

  TempDir ts;
  const std::string model = fmwork::test_support::make_small_torchscript(ts, "small");
  const CommandResult padded =
      run_command({fmwork::test_support::driver_path(), "--platform", "cpu", "--model_class", "BertModel",
                   "--model_name", model, "--input_sizes", "16", "--batch_sizes", "2", "--reps", "2",
                   "--input_lengths", "uniform:1,16"});
  ASSERT_EQ(padded.exit_code, 0) << padded.err;
  EXPECT_EQ(fields(padded.out, "FMWORK META ").at("batching"), "padded");
  EXPECT_NE(padded.out.find("batching: padded (--batching not given: this model or platform runs padded batches "
                            "only)"),
            std::string::npos) << padded.out;

  const CommandResult fixed = drive({});
  ASSERT_EQ(fixed.exit_code, 0) << fixed.err;
  EXPECT_EQ(fields(fixed.out, "FMWORK META ").count("batching"), 0u) << fixed.out;
  EXPECT_EQ(fixed.out.find("batching:"), std::string::npos) << fixed.out;
}

}  // namespace
