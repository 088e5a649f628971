// driver --profile and the work fields, end to end on the all-MiniLM-L6-v2 architecture (random weights from
// the shipped config: the operators and FLOPs are the architecture's, whatever the weights): the traces load
// and hold the model's operators, the timed reps are the same with --profile as without, STAT carries gflops
// and of_peak, META the GEMM rate, and process reads the PROFILE lines.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/test_support.hpp"

namespace {

using fmwork::TempDir;
using fmwork::test_support::CommandResult;
using fmwork::test_support::run_command;

std::vector<std::string> minilm_argv(const std::string& input_sizes) {
  return {fmwork::test_support::driver_path(),
          "--platform", "cpu", "--model_class", "BertModel", "--model_name",
          fmwork::test_support::source_dir() + "/configs/models/all-MiniLM-L6-v2", "--model:random_weights@", "True",
          "--input_sizes", input_sizes, "--batch_sizes", "1,2", "--reps", "4"};
}

CommandResult drive(const TempDir& cache, std::vector<std::string> argv, const std::vector<std::string>& extra) {
  argv.insert(argv.end(), extra.begin(), extra.end());
  return run_command(argv, {"FMWORK_CACHE=" + cache.path()});
}

std::vector<std::string> lines_starting(const std::string& text, const std::string& prefix) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    if (text.compare(pos, prefix.size(), prefix) == 0) out.push_back(text.substr(pos, end - pos));
    pos = end + 1;
  }
  return out;
}

// The value of `key=` in a key=value line, "" when absent.
std::string field(const std::string& line, const std::string& key) {
  const size_t at = line.find(" " + key + "=");
  if (at == std::string::npos) return "";
  const size_t start = at + key.size() + 2;
  return line.substr(start, line.find(' ', start) - start);
}

TEST(ProfileDriver, WritesTracesOfTheModelsOperatorsOutsideTheTimedReps) {
  TempDir dir, cache;
  // at::linear, not the packed GEMM that is the default on some CPUs: then the trace holds the operator this
  // code calls (aten::linear) on every CPU, whatever kernel runs beneath it.
  const std::vector<std::string> unpacked = {"--model:packed_gemm@", "False"};
  const CommandResult plain = drive(cache, minilm_argv("8,16"), unpacked);
  std::vector<std::string> with_profile = unpacked;
  with_profile.insert(with_profile.end(), {"--profile", dir.file("prof")});
  const CommandResult profiled = drive(cache, minilm_argv("8,16"), with_profile);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  ASSERT_EQ(profiled.exit_code, 0) << profiled.err << profiled.out;
  // Same REP lines (4 per combination, 4 combinations) with and without: the profiled rep is none of them.
  EXPECT_EQ(lines_starting(profiled.out, "FMWORK REP ").size(), 16u);
  EXPECT_EQ(lines_starting(plain.out, "FMWORK REP ").size(), 16u);
  EXPECT_EQ(lines_starting(profiled.out, "FMWORK REP 4 4 ").size(), 4u) << "rep 4 of 4 is each combination's last";
  for (const char* shape : {"8x1", "16x1", "8x2", "16x2"}) {
    SCOPED_TRACE(shape);
    const std::string path = dir.file(std::string("prof/") + shape + ".trace.json");
    const nlohmann::json trace = nlohmann::json::parse(fmwork::test_support::read_file(path));
    std::map<std::string, int> names;
    for (const auto& e : trace["traceEvents"])
      if (e.contains("name") && e["name"].is_string()) ++names[e["name"].get<std::string>()];
    // MiniLM's 6 layers: the operators the encoder calls (the kernels beneath them differ between CPUs and
    // are not asserted): the embedding lookup, the linear layers, the layer norms.
    EXPECT_GE(names["aten::embedding"], 1);
    EXPECT_GE(names["aten::layer_norm"], 13) << "one before the layers, two per layer";
    EXPECT_GE(names["aten::linear"], 6 * 4) << "the attention's projections and output, the feed-forward's two";
  }
  const auto profile_lines = lines_starting(profiled.out, "FMWORK PROFILE ");
  ASSERT_FALSE(profile_lines.empty());
  EXPECT_LE(profile_lines.size(), 4u * 10u) << "the top 10 operators per combination (the CPU side only)";
  EXPECT_EQ(field(profile_lines.front(), "rank"), "1");
  EXPECT_EQ(field(profile_lines.front(), "on"), "cpu");
  EXPECT_EQ(field(profile_lines.front(), "trace"), "8x1.trace.json");
  EXPECT_EQ(lines_starting(plain.out, "FMWORK PROFILE ").size(), 0u);
  // STAT carries the profiled rep's time, which the plausibility check holds the timed reps to.
  for (const auto& stat : lines_starting(profiled.out, "FMWORK STAT "))
    EXPECT_GT(std::stod(field(stat, "profile_ms")), 0) << stat;
  for (const auto& stat : lines_starting(plain.out, "FMWORK STAT "))
    EXPECT_EQ(stat.find("profile_ms="), std::string::npos) << stat;
}

TEST(ProfileDriver, StatCarriesTheWorkAndMetaTheGemmRate) {
  TempDir cache;
  const CommandResult r = drive(cache, minilm_argv("16"), {});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto meta = lines_starting(r.out, "FMWORK META ");
  ASSERT_EQ(meta.size(), 1u);
  EXPECT_GT(std::stod(field(meta[0], "gemm_gflops")), 0);
  EXPECT_EQ(field(meta[0], "gemm_probe").rfind("at::mm_", 0), 0u) << meta[0];
  EXPECT_NE(field(meta[0], "isa"), "");
  EXPECT_NE(r.out.find("gemm rate: "), std::string::npos) << r.out;
  const auto stats = lines_starting(r.out, "FMWORK STAT ");
  ASSERT_EQ(stats.size(), 2u);
  for (const auto& stat : stats) {
    SCOPED_TRACE(stat);
    EXPECT_EQ(field(stat, "flops_from"), "formula");
    const double flops = std::stod(field(stat, "flops")), gflops = std::stod(field(stat, "gflops")),
                 p50 = std::stod(field(stat, "p50_ms")), of_peak = std::stod(field(stat, "of_peak"));
    EXPECT_NEAR(gflops, flops / (p50 / 1000) / 1e9, gflops * 1e-3 + 1e-3) << "gflops is flops over the median";
    // META's gemm_gflops has one decimal and gflops is rounded too: the ratio is exact only within those.
    const double gemm = std::stod(field(meta[0], "gemm_gflops")), ratio = gflops / gemm;
    EXPECT_NEAR(of_peak, ratio, ratio * (0.05 / gemm + 1e-3) + 1e-4);
  }
  // MiniLM at batch 1 x 16 tokens: 6 layers of 384 wide, 12 heads, 1536 intermediate, and the pooler.
  const double N = 16, H = 384, I = 1536;
  const double expected = 6 * (2 * N * H * 3 * H + 2 * N * H * H + 4 * 12 * N * N * 32 + 4 * N * H * I) + 2 * H * H;
  EXPECT_NEAR(std::stod(field(stats[0], "flops")), expected, expected * 1e-5);
  // The second run reads the rate back from the cache, unless the first run did not keep it (other work held
  // the CPU while it measured) or one product timed now beats it (the same, found later): each is said, and
  // then the rate is measured again.
  const CommandResult again = drive(cache, minilm_argv("16"), {});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  const auto again_meta = lines_starting(again.out, "FMWORK META ");
  ASSERT_EQ(again_meta.size(), 1u) << again.out;
  const std::string how = field(again_meta[0], "gemm_probe");
  const bool not_kept = r.out.find("used for this run, not kept") != std::string::npos;
  if (!not_kept && again.out.find("is measured again and replaced") == std::string::npos) {
    EXPECT_NE(again.out.find("read from the cache"), std::string::npos) << again.out;
    EXPECT_EQ(how.substr(how.size() - 7), "_cached") << how;
  } else {
    EXPECT_EQ(how.substr(how.size() - 9), "_measured") << how;
  }
}

TEST(ProfileDriver, ProcessReadsTheProfileAndWorkFields) {
  TempDir dir, cache;
  const CommandResult r = drive(cache, minilm_argv("8"), {"--profile", dir.file("prof")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  fmwork::test_support::write_file(dir.file("run.log"), r.out);
  const CommandResult csv =
      run_command({fmwork::test_support::process_path(), "--path", dir.file("run.log"), "--format", "csv"});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  const std::string header = csv.out.substr(0, csv.out.find('\n'));
  for (const char* column : {"gflops", "of_peak", "flops", "flops_from"})
    EXPECT_NE(header.find(column), std::string::npos) << column << " in " << header;
}

TEST(ProfileDriver, AProfileFolderThatCannotBeMadeIsRefusedBeforeLoading) {
  TempDir dir, cache;
  fmwork::test_support::write_file(dir.file("file"), "x");
  const CommandResult r = drive(cache, minilm_argv("8"), {"--profile", dir.file("file")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "error: --profile " + dir.file("file") +
                       ": a file of that name exists; name a folder (it is made when absent)\n");
  EXPECT_EQ(r.out.find("FMWORK REP"), std::string::npos);
}

}  // namespace
