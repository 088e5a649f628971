// The built `driver` with --compile:backend inductor on a tiny Hugging Face folder: the package built by the
// project's exporter (tools/aoti_export.py, transformers' own BertModel), cached, loaded from the cache
// without Python on the second run, outputs checked against eager, shapes outside the exported ranges
// refused, a corrupt entry rebuilt, and the package run directly as a .pt2 --model_name.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "fmwork/log/log_format.hpp"
#include "fmwork/model/safetensors.hpp"
#include "support/test_support.hpp"

namespace fmwork {
namespace {

namespace fs = std::filesystem;
using test_support::CommandResult;
using fmwork::TempDir;

class InductorDriverTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    const auto config = test_support::encoders::tiny_config("bert");
    test_support::encoders::write_folder(dir_->file("bert"), config, test_support::encoders::tiny_weights(config, true, 3));
  }
  static void TearDownTestSuite() { delete dir_; }

  // The driver with its cache in `cache` and `env` (FMWORK_PYTHON=... to take Python away).
  static CommandResult driver(std::vector<std::string> extra, const std::string& cache,
                              std::vector<std::string> env = {}) {
    std::vector<std::string> argv = {test_support::driver_path(), "--platform", "cpu", "--model_class", "BertModel",
                                     "--model_name", dir_->file("bert"), "--reps", "3",
                                     "--torch.call:set_num_threads@", "1"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    env.push_back("FMWORK_CACHE=" + cache);
    return test_support::run_command(argv, env);
  }
  static std::vector<LogLine> lines_of(const std::string& out) {
    std::vector<LogLine> lines;
    std::string line;
    for (char c : out) {
      if (c != '\n') {
        line += c;
        continue;
      }
      if (auto parsed = parse_line(line)) lines.push_back(*parsed);
      line.clear();
    }
    return lines;
  }
  template <typename T>
  static std::vector<T> only(const std::string& out) {
    std::vector<T> found;
    for (const auto& l : lines_of(out))
      if (auto* t = std::get_if<T>(&l)) found.push_back(*t);
    return found;
  }

  static void expect_shapes_held_to(const std::string& package);

  static TempDir* dir_;
};
TempDir* InductorDriverTest::dir_ = nullptr;

const std::vector<std::string> kDynamic = {"--compile", "--compile:backend", "inductor", "--compile:dynamic@", "True",
                                           "--input_sizes", "4,16", "--batch_sizes", "1,3"};

// The COMPILE line of the run, from its MODEL notes.
std::string compile_field(const CommandResult& r, const char* key) {
  size_t at = r.out.find("\nFMWORK COMPILE ");
  EXPECT_NE(at, std::string::npos) << r.out;
  if (at == std::string::npos) return "";
  ++at;
  const auto parsed = parse_line(r.out.substr(at, r.out.find('\n', at) - at));
  const std::string* value = parsed ? std::get<CompileLine>(*parsed).fields.find(key) : nullptr;
  return value ? *value : "";
}

TEST_F(InductorDriverTest, DynamicPackageIsBuiltOnceThenTakenFromTheCacheWithoutPython) {
  TempDir cache;
  const std::string saved = cache.file("eager");
  CommandResult eager = driver({"--input_sizes", "4,16", "--batch_sizes", "1,3", "--save_outputs", saved},
                               cache.path());
  ASSERT_EQ(eager.exit_code, 0) << eager.err;

  std::vector<std::string> checked = kDynamic;
  checked.insert(checked.end(), {"--check_outputs", saved, "--check_outputs:atol@", "1e-4"});
  CommandResult first = driver(checked, cache.path());
  ASSERT_EQ(first.exit_code, 0) << first.err << first.out;
  EXPECT_EQ(compile_field(first, "cache"), "built");
  EXPECT_EQ(compile_field(first, "shape"), "dynamic");
  EXPECT_EQ(only<ResLine>(first.out).size(), 4u);
  const auto checks = only<CheckLine>(first.out);
  ASSERT_EQ(checks.size(), 4u);
  for (const auto& c : checks) EXPECT_EQ(*c.fields.find("result"), "pass") << first.out;

  // No Python now: the package must come from the cache.
  CommandResult second = driver(checked, cache.path(), {"FMWORK_PYTHON=/nonexistent/python"});
  ASSERT_EQ(second.exit_code, 0) << second.err << second.out;
  EXPECT_EQ(compile_field(second, "cache"), "hit");
  EXPECT_EQ(compile_field(second, "key"), compile_field(first, "key"));

  const CommandResult list = test_support::run_command({test_support::driver_path(), "--cache", "list"},
                                                  {"FMWORK_CACHE=" + cache.path()});
  EXPECT_EQ(list.exit_code, 0) << list.err;
  EXPECT_NE(list.out.find(compile_field(first, "key").substr(0, 12)), std::string::npos) << list.out;
}

// Every way a shape reaches a package built for batch 2 x input 8 alone, which checks no shape itself (the
// driver died inside it with a stack trace, its results lost and its unpacked folder left in TMPDIR): the drawn
// lengths of --input_lengths and serve's batcher are refused before the run in one line; a --check_outputs
// reference of another shape, the last line of defence, is a FAIL line.
void InductorDriverTest::expect_shapes_held_to(const std::string& package) {
  TempDir scratch;
  const std::vector<std::string> pt2 = {"--platform", "cpu", "--model_class", "BertModel", "--model_name", package,
                                        "--model:vocab_size@", "99", "--input_sizes", "8", "--batch_sizes", "2"};
  const auto drive = [&](std::vector<std::string> words, std::vector<std::string> more) {
    words.insert(words.begin(), test_support::driver_path());
    words.insert(words.end(), pt2.begin(), pt2.end());
    words.insert(words.end(), more.begin(), more.end());
    return test_support::run_command(words, {"TMPDIR=" + scratch.path()});
  };
  const CommandResult lengths = drive({}, {"--reps", "3", "--input_lengths", "uniform:3,8"});
  EXPECT_EQ(lengths.exit_code, 2) << lengths.err << lengths.out;
  EXPECT_EQ(lengths.err, "error: --input_lengths uniform:3,8 (each batch padded to its longest request) feeds the "
                         "model rows of 3 to 8 tokens, but the AOTInductor package " + package +
                         " takes rows of 8 tokens only; keep them within its range, or build a package of a wider "
                         "one\n");
  const CommandResult serve = drive({"serve"}, {"--rates", "50"});
  EXPECT_EQ(serve.exit_code, 2) << serve.err << serve.out;
  EXPECT_NE(serve.err.find("error: driver serve's batcher (--batch_sizes 2: 1 to 2 queries a batch) feeds the model "
                           "batches of 1 to 2 rows, but the AOTInductor package " + package +
                           " takes batches of 2 rows only"),
            std::string::npos)
      << serve.err;
  EXPECT_EQ(std::count(serve.err.begin(), serve.err.end(), '\n'), 1) << serve.err;

  // A reference of 2 x 5 tokens (saved from a batch of mixed lengths) fed to the 2 x 8 package.
  std::filesystem::create_directories(scratch.file("ref"));
  const at::Tensor ids = at::arange(10, 20, at::kLong).view({2, 5});
  hf::write_safetensors(scratch.file("ref/8x2.safetensors"), {{"input_ids", ids}, {"attention_mask", at::ones_like(ids)},
                        {"last_hidden_state", at::zeros({2, 5, 32})}});
  const CommandResult checked = drive({}, {"--reps", "2", "--check_outputs", scratch.file("ref")});
  EXPECT_EQ(checked.exit_code, 1) << checked.err << checked.out;
  const auto fails = only<FailLine>(checked.out);
  ASSERT_EQ(fails.size(), 1u) << checked.out << checked.err;
  EXPECT_NE(fails[0].fields.find("error")->find("input size 5 is outside the package's input sizes (8)"),
            std::string::npos)
      << checked.out;
  for (const auto& entry : fs::directory_iterator(scratch.path()))
    EXPECT_NE(entry.path().filename().string().rfind("fmwork-aoti-", 0), 0u) << "left behind: " << entry.path();
}

TEST_F(InductorDriverTest, ShapesOutsideTheExportedRangesFailBeforeTheyRun) {
  TempDir cache;
  // 1025 is past the package's batch range (1 to 1024), which the model itself would take: the package refuses
  // it. (An input past the tiny BERT's 40 positions is refused before anything loads: HfDriver's tests.)
  std::vector<std::string> args = {"--compile", "--compile:backend", "inductor", "--compile:dynamic@", "True",
                                   "--input_sizes", "8", "--batch_sizes", "2,1025"};
  CommandResult r = driver(args, cache.path());
  EXPECT_EQ(r.exit_code, 1) << r.err << r.out;
  const auto fails = only<FailLine>(r.out);
  ASSERT_EQ(fails.size(), 1u) << r.out;
  EXPECT_NE(fails[0].fields.find("error")->find("batch 1025 is outside the package's batch sizes (1 to 1024)"),
            std::string::npos)
      << *fails[0].fields.find("error");
  EXPECT_EQ(only<ResLine>(r.out).size(), 1u);
}

TEST_F(InductorDriverTest, StaticPackagesPerShapeACorruptEntryIsRebuiltAndAPackageRunsAsAModel) {
  TempDir cache;
  const std::vector<std::string> args = {"--compile", "--compile:backend", "inductor", "--input_sizes", "8",
                                         "--batch_sizes", "2"};
  CommandResult first = driver(args, cache.path());
  ASSERT_EQ(first.exit_code, 0) << first.err << first.out;
  EXPECT_EQ(compile_field(first, "shape"), "2x8");
  EXPECT_EQ(compile_field(first, "cache"), "built");

  std::string package;
  for (const auto& entry : fs::recursive_directory_iterator(cache.path()))
    if (entry.path().filename() == "model.pt2") package = entry.path().string();
  ASSERT_FALSE(package.empty());

  // The package as --model_name (its vocabulary given, as no config.json lies beside it).
  CommandResult direct = test_support::run_command(
      {test_support::driver_path(), "--platform", "cpu", "--model_class", "BertModel", "--model_name", package,
       "--input_sizes", "8", "--batch_sizes", "2", "--reps", "3", "--model:vocab_size@", "99"});
  ASSERT_EQ(direct.exit_code, 0) << direct.err << direct.out;
  EXPECT_NE(direct.out.find("AOTInductor package " + package), std::string::npos) << direct.out;
  CommandResult wrong = test_support::run_command(
      {test_support::driver_path(), "--platform", "cpu", "--model_class", "BertModel", "--model_name", package,
       "--input_sizes", "9", "--batch_sizes", "2", "--reps", "3", "--model:vocab_size@", "99"});
  EXPECT_EQ(wrong.exit_code, 1) << wrong.out;
  EXPECT_NE(wrong.out.find("input size 9 is outside the package's input sizes (8)"), std::string::npos) << wrong.out;
  expect_shapes_held_to(package);

  // A byte changed in the cached package: detected, rebuilt, never loaded.
  {
    std::fstream f(package, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(100);
    f.put('\x5a');
  }
  CommandResult again = driver(args, cache.path());
  ASSERT_EQ(again.exit_code, 0) << again.err << again.out;
  EXPECT_EQ(compile_field(again, "cache"), "built");
}

TEST_F(InductorDriverTest, RefusalsAreOneLineUsageErrors) {
  TempDir cache;
  CommandResult no_python = driver(kDynamic, cache.path(), {"FMWORK_PYTHON=/nonexistent/python"});
  EXPECT_EQ(no_python.exit_code, 2) << no_python.err;
  EXPECT_NE(no_python.err.find("set FMWORK_PYTHON to a Python with torch=="), std::string::npos) << no_python.err;
  // The progress line saying the package build starts (stderr is no terminal), then the one error line.
  EXPECT_EQ(std::count(no_python.err.begin(), no_python.err.end(), '\n'), 2) << no_python.err;
  EXPECT_EQ(no_python.err.rfind("inductor: building the AOTInductor package", 0), 0u) << no_python.err;

  std::vector<std::string> graphs = kDynamic;
  graphs.insert(graphs.end(), {"--compile:mode", "reduce-overhead"});
  CommandResult r = driver(graphs, cache.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "error: --compile:mode reduce-overhead captures CUDA graphs, which need --platform cuda (this run: "
                   "--platform cpu); on cpu use --compile:backend inductor with --compile:mode default, max-autotune "
                   "or max-autotune-no-cudagraphs\n")
      << "one line, before anything is loaded or built";

  // A package per combination takes that combination's shape alone: the drawn lengths of --input_lengths and
  // serve's batcher are refused before any package is built (no Python here to build one).
  const std::string one_shape = "a package built for one batch x input (--compile:backend inductor, "
                                "--compile:dynamic@ False)";
  CommandResult lengths = driver({"--compile", "--compile:backend", "inductor", "--input_sizes", "8", "--batch_sizes",
                                  "2", "--input_lengths", "uniform:3,8"},
                                 cache.path(), {"FMWORK_PYTHON=/nonexistent/python"});
  EXPECT_EQ(lengths.exit_code, 2) << lengths.err;
  EXPECT_EQ(lengths.err, "error: --input_lengths uniform:3,8 (each batch padded to its longest request) feeds the "
                         "model rows of 3 to 8 tokens, but " + one_shape + " takes rows of 8 tokens only; give "
                         "--compile:dynamic@ True (one package for every shape up to the model's longest input)\n");
  CommandResult serve = test_support::run_command(
      {test_support::driver_path(), "serve", "--platform", "cpu", "--model_class", "BertModel", "--model_name",
       dir_->file("bert"), "--compile", "--compile:backend", "inductor", "--input_sizes", "8", "--batch_sizes", "4",
       "--rates", "50", "--quiet"},
      {"FMWORK_CACHE=" + cache.path(), "FMWORK_PYTHON=/nonexistent/python"});
  EXPECT_EQ(serve.exit_code, 2) << serve.err;
  EXPECT_EQ(serve.err, "error: driver serve's batcher (--batch_sizes 4: 1 to 4 queries a batch) feeds the model "
                       "batches of 1 to 4 rows, but " + one_shape + " takes batches of 4 rows only; give "
                       "--compile:dynamic@ True (one package for every shape up to the model's longest input)\n");

  // What configures the native encoder, which the package replaces, is refused by name before any build.
  for (const auto& [key, value] : {std::pair<std::string, std::string>{"random_weights", "True"},
                                   {"packed_gemm", "False"}, {"gelu_epilogue", "True"}}) {
    std::vector<std::string> native = kDynamic;
    native.insert(native.end(), {"--model:" + key + "@", value});
    const CommandResult refused = driver(native, cache.path(), {"FMWORK_PYTHON=/nonexistent/python"});
    EXPECT_EQ(refused.exit_code, 2) << refused.err;
    EXPECT_EQ(refused.err, "error: --compile:backend inductor: --model:" + key + " is for the native encoder, which "
                           "the package replaces (transformers builds it from the folder's own weights); leave out "
                           "one or the other\n");
  }

  // max-autotune-no-cudagraphs captures no CUDA graphs: it passes the mode check and meets the next one.
  std::vector<std::string> no_graphs = kDynamic;
  no_graphs.insert(no_graphs.end(), {"--compile:mode", "max-autotune-no-cudagraphs"});
  CommandResult accepted = driver(no_graphs, cache.path(), {"FMWORK_PYTHON=/nonexistent/python"});
  EXPECT_EQ(accepted.exit_code, 2) << accepted.err;
  EXPECT_EQ(accepted.err.find("CUDA graphs"), std::string::npos) << accepted.err;
  EXPECT_NE(accepted.err.find("set FMWORK_PYTHON to a Python with torch=="), std::string::npos) << accepted.err;
}

}  // namespace
}  // namespace fmwork
