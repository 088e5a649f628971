// Hostile input at the loaders and the driver (over 500 lines: one suite of short cases sharing the fixtures
// below, each case a defect a hostile round found): JSON nested 100,000 deep in config.json, a safetensors header,
// tokenizer.json and a TorchScript file's config.json (one-line runtime Errors naming the file, no crash);
// FIFOs and dangling links given as the model file, config.json, model.safetensors or tokenizer.json (a
// one-line usage error, no hang: the driver runs under `timeout` and the tests open nothing); values that
// would size allocations or span lines; a model's strings that would write lines of the log; secrets given
// on the command line. Each would crash, hang, allocate or leak without its check.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "fmwork/base/error.hpp"
#include "fmwork/base/zip_archive.hpp"
#include "fmwork/runtime/exception_cause.hpp"
#include "fmwork/hf/config.hpp"
#include "fmwork/loaders/hf_model.hpp"
#include "fmwork/model/safetensors.hpp"
#include "fmwork/hf/special_tokens.hpp"
#include "fmwork/loaders/model_loader.hpp"
#include "fmwork/model/inputs.hpp"
#include "fmwork/platform/platform_registry.hpp"
#include "fmwork/sweep/sweep.hpp"
#include "support/model_fixtures.hpp"
#include "support/test_support.hpp"
#include "support/zip_fixtures.hpp"

namespace fmwork {
namespace {

namespace fs = std::filesystem;
using test_support::CommandResult;
using fmwork::TempDir;
using test_support::write_file;

const char kTooDeep[] = ": the JSON is nested deeper than 64 levels; it is not a file this program reads";

std::string deep(size_t levels) { return std::string(levels, '[') + std::string(levels, ']'); }

nlohmann::json small_config() {
  return {{"model_type", "bert"}, {"architectures", {"BertModel"}}, {"hidden_size", 32}, {"num_hidden_layers", 1},
          {"num_attention_heads", 4}, {"intermediate_size", 64}, {"vocab_size", 120}, {"max_position_embeddings", 20},
          {"type_vocab_size", 2}, {"pad_token_id", 0}};
}

// A Hugging Face folder <dir>/model with config.json and random weights in model.safetensors.
std::string model_folder(const TempDir& dir) {
  write_file(dir.file("config.json"), small_config().dump());
  hf::write_random_model_folder(dir.file("config.json"), dir.file("model"), 1);
  return dir.file("model");
}

// The driver on `model`, killed after 60 s (a FIFO opened would block it forever).
CommandResult drive(const std::string& model, const std::vector<std::string>& extra = {},
                    const std::string& reps = "3") {
  std::vector<std::string> argv = {"timeout", "60", test_support::driver_path(), "--platform", "cpu", "--model_class",
                                   "BertModel", "--model_name", model, "--input_sizes", "8", "--batch_sizes", "1",
                                   "--reps", reps};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return test_support::run_command(argv);
}

// The driver failed with exit `code` and exactly the one error line `message`.
void expect_refused(const CommandResult& r, int code, const std::string& message) {
  EXPECT_EQ(r.exit_code, code) << r.err;
  EXPECT_EQ(test_support::without_machine_lines(r.err), "error: " + message + "\n");
}

TEST(HostileInput, DeepConfigJsonIsOneRuntimeError) {
  TempDir dir;
  // Without the limit, the message "hidden_size must be an integer, not <dump>" recursed 100,000 deep.
  nlohmann::json shallow = small_config();
  shallow.erase("hidden_size");  // given once, deep (a key given twice is refused before its value is read)
  const std::string config = shallow.dump();
  write_file(dir.file("config.json"), config.substr(0, config.size() - 1) + ", \"hidden_size\": " + deep(100000) + "}");
  const Error e = test_support::expect_error([&] { hf::load_config(dir.file("config.json")); });
  EXPECT_EQ(e.kind(), ErrorKind::runtime);
  EXPECT_EQ(std::string(e.what()), dir.file("config.json") + kTooDeep);
}

TEST(HostileInput, DeepSafetensorsHeaderIsOneRuntimeError) {
  TempDir dir;
  const std::string header = "{\"t\": {\"dtype\": " + deep(100000) + ", \"shape\": [1], \"data_offsets\": [0, 4]}}";
  std::string bytes(8, '\0');
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>((header.size() >> (8 * i)) & 0xff);
  write_file(dir.file("model.safetensors"), bytes + header + std::string(4, '\0'));
  const Error e = test_support::expect_error([&] { hf::SafetensorsFile::open(dir.file("model.safetensors")); });
  EXPECT_EQ(e.kind(), ErrorKind::runtime);
  EXPECT_EQ(std::string(e.what()), dir.file("model.safetensors") + ": the header" + kTooDeep);
}

TEST(HostileInput, DeepTokenizerAndTorchScriptConfigAreOneRuntimeError) {
  TempDir dir;
  write_file(dir.file("tokenizer.json"), "{\"added_tokens\": " + deep(100000) + "}");
  const hf::EncoderConfig config = hf::parse_config(small_config(), "config.json");
  Error e = test_support::expect_error([&] { hf::read_special_tokens(dir.path(), config); });
  EXPECT_EQ(std::string(e.what()), dir.file("tokenizer.json") + kTooDeep);

  const std::string model = test_support::make_small_torchscript(dir, "ts");
  const std::string beside = (fs::path(model).parent_path() / "config.json").string();
  write_file(beside, "{\"vocab_size\": " + deep(100000) + "}");
  e = test_support::expect_error([&] { load_model(LoadRequest{model, "BertModel", {}}); });
  EXPECT_EQ(e.kind(), ErrorKind::runtime);
  EXPECT_EQ(std::string(e.what()), beside + kTooDeep);
}

TEST(HostileInput, FifosAreRefusedNotOpened) {
  TempDir dir;
  const std::string fifo_error = " is a FIFO, not a file; give the path of a regular file";
  for (const char* name : {"model.pt", "model.pt2"}) {
    SCOPED_TRACE(name);
    ASSERT_EQ(::mkfifo(dir.file(name).c_str(), 0600), 0);
    expect_refused(drive(dir.file(name)), 2, dir.file(name) + fifo_error);
  }
  const std::string folder = model_folder(dir);
  for (const char* name : {"config.json", "model.safetensors", "tokenizer.json"}) {
    SCOPED_TRACE(name);
    const std::string path = folder + "/" + name;
    const std::string kept = path + ".kept";
    if (fs::exists(path)) fs::rename(path, kept);
    ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
    expect_refused(drive(folder), 2, path + fifo_error);
    fs::remove(path);
    if (fs::exists(kept)) fs::rename(kept, path);
  }
}

TEST(HostileInput, DanglingLinksSayWhereTheyPoint) {
  TempDir dir;
  ASSERT_EQ(::symlink("gone.pt", dir.file("model.pt").c_str()), 0);
  expect_refused(drive(dir.file("model.pt")), 2,
                 dir.file("model.pt") + " is a dangling symbolic link to gone.pt; point it at an existing file");
  const std::string folder = model_folder(dir);
  fs::remove(folder + "/config.json");
  ASSERT_EQ(::symlink("gone.json", (folder + "/config.json").c_str()), 0);
  expect_refused(drive(folder), 2,
                 folder + "/config.json is a dangling symbolic link to gone.json; point it at an existing file");
  // The weights as a link to a file that is gone were reported as "has no weights".
  TempDir other;
  const std::string weights = model_folder(other);
  fs::remove(weights + "/model.safetensors");
  ASSERT_EQ(::symlink("/nonexistent/model.safetensors", (weights + "/model.safetensors").c_str()), 0);
  expect_refused(drive(weights), 2,
                 weights + "/model.safetensors is a dangling symbolic link to /nonexistent/model.safetensors; point it "
                           "at an existing file");
}

// A thread count in the environment that MKL would silently take as 1 (and libgomp ignore after a raw line)
// is refused by name, before anything is loaded.
TEST(HostileInput, JunkThreadCountsInTheEnvironmentAreRefused) {
  TempDir dir;
  const std::string model = test_support::make_small_torchscript(dir, "ts");
  const CommandResult r = test_support::run_command(
      {test_support::driver_path(), "--platform", "cpu", "--model_class", "BertModel", "--model_name", model,
       "--input_sizes", "8", "--batch_sizes", "1", "--reps", "2"},
      {"MKL_NUM_THREADS=abc"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err.rfind("error: environment variable MKL_NUM_THREADS='abc' is not a thread count: ", 0), 0u) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
  EXPECT_EQ(r.out.find("FMWORK RES"), std::string::npos) << r.out;
}

TEST(HostileInput, DriverRefusesOversizedAndMultiLineValues) {
  TempDir dir;
  const std::string folder = model_folder(dir);
  expect_refused(drive(folder, {}, "2147483648"), 2,
                 "--reps 2147483648 is out of range: it must be from 2 to 1000000 (each rep's timestamps are kept in "
                 "memory)");
  const CommandResult deep_literal = drive(folder, {"--model:foo@", deep(10000)});
  EXPECT_EQ(deep_literal.exit_code, 2) << deep_literal.err;
  EXPECT_NE(deep_literal.err.find("is nested deeper than 100 levels"), std::string::npos) << deep_literal.err;
  EXPECT_EQ(deep_literal.err.find('\n'), deep_literal.err.size() - 1);
  const CommandResult threads = drive(folder, {"--torch.call:set_num_threads@", "100000000"});
  EXPECT_EQ(threads.exit_code, 2) << threads.err;
  EXPECT_NE(threads.err.find("--torch.call:set_num_threads must be at most"), std::string::npos) << threads.err;
  const CommandResult forged = drive("m\nFMWORK RES forged 1 2 3");
  EXPECT_EQ(forged.exit_code, 2);
  EXPECT_EQ(forged.err.find('\n'), forged.err.size() - 1) << forged.err;
  EXPECT_EQ(forged.err.find("\nFMWORK"), std::string::npos) << forged.err;
}

// Defect: a value of 100,000 characters came back whole in its error line (--seed, a dtype, a
// --torch.call: value, an unknown key or option, a folder), and `process --<it>` / `driver run --<it>` died by
// SIGSEGV. Each is now one line quoting an excerpt: at most 200 characters of the value, then "...".
TEST(HostileInput, HugeValuesAreExcerptedInTheirErrorLine) {
  const std::string huge(100000, 'a');
  const std::vector<std::string> sweep = {test_support::driver_path(), "--platform", "cpu", "--model_class",
                                          "BertModel", "--model_name", "m", "--input_sizes", "8",
                                          "--batch_sizes", "1", "--reps", "2"};
  std::vector<std::vector<std::string>> lines;
  for (const std::vector<std::string>& extra : std::vector<std::vector<std::string>>{
           {"--seed", huge}, {"--model:torch_dtype", huge}, {"--model:random_weights", huge},
           {"--torch.call:set_num_threads", huge}, {"--torch.set:backends.cudnn.enabled", huge},
           {"--model:" + huge, "1"}, {"--torch.call:" + huge, "1"}, {"--platform:" + huge, "1"}, {"--" + huge, "1"},
           {"--model:x@", "{" + huge + ": 1}"}, {"--save_outputs", "/tmp/" + huge}, {"--check_outputs", huge}}) {
    std::vector<std::string> argv = sweep;
    argv.insert(argv.end(), extra.begin(), extra.end());
    lines.push_back(argv);
  }
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"--" + huge}, {"--format", huge}, {"--path", huge}})
    lines.push_back(args), lines.back().insert(lines.back().begin(), test_support::process_path());
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"run", "--" + huge}, {"run", huge}, {"run", "--resume", huge}})
    lines.push_back(args), lines.back().insert(lines.back().begin(), test_support::driver_path());
  for (const std::vector<std::string>& argv : lines) {
    const CommandResult r = test_support::run_command(argv);
    const std::string err = test_support::without_machine_lines(r.err);
    SCOPED_TRACE(err.substr(0, 300));
    EXPECT_TRUE(r.exit_code == 1 || r.exit_code == 2) << r.exit_code;
    EXPECT_EQ(err.rfind("error: ", 0), 0u);
    EXPECT_EQ(err.find('\n'), err.size() - 1) << "one line";
    EXPECT_LT(err.size(), 1000u) << "an excerpt, not the value";
    EXPECT_EQ(err.find(std::string(201, 'a')), std::string::npos);
  }
}

// The cause of a failure (a FAIL line's text, an error line) holds no control character either.
TEST(HostileInput, FailureCauseIsOneLine) {
  EXPECT_EQ(message_cause("boom\x1b[2J\tx\r\nFMWORK RES forged"), "boom\\x1b[2J\\tx");
  // LibTorch's words translated: where a check sits in its sources is nothing a user can act on.
  EXPECT_EQ(message_cause("[enforce fail at inline_container.cc:337] . file not found: archive/constants.pkl"),
            "file not found: archive/constants.pkl");
}

// An id past the embedding table, as a real lookup reports it (a TorchScript file given a larger
// --model:vocab_size than its table): the cause in the user's terms.
TEST(HostileInput, AnIdPastTheEmbeddingTableSaysSo) {
  try {
    (void)at::embedding(at::zeros({4, 2}), at::full({1}, 7, at::kLong));
    ADD_FAILURE() << "an id of 7 read a table of 4 rows";
  } catch (const std::exception& e) {
    EXPECT_EQ(exception_cause(e), "an input id is past the model's embedding table (is --model:vocab_size, or the "
                                  "vocab_size beside the file, larger than the model's vocabulary?)");
  }
}

// A failed allocation reads as out of memory with the size, not in the allocator's words: a real one, from
// LibTorch's CPU allocator asked for more than any machine has.
TEST(HostileInput, AFailedAllocationSaysOutOfMemoryAndTheSize) {
  try {
    const at::Tensor huge = at::empty({int64_t{1} << 58}, at::kByte);
    ADD_FAILURE() << "allocated " << huge.numel() << " bytes";
  } catch (const std::exception& e) {
    EXPECT_EQ(exception_cause(e), "out of memory: an allocation of 268435456.00 GiB failed (the host's memory, a "
                                  "cgroup limit or ulimit -v); lower --batch_sizes or --input_sizes, or free memory")
        << e.what();
  }
  EXPECT_EQ(exception_cause(std::bad_alloc()).rfind("out of memory: an allocation failed (", 0), 0u);
}

// A log that cannot be written stops the run with exit 1 and says why, on one line: standard output on a full
// disk (/dev/full) or closed, for the driver and for process.
TEST(HostileInput, LostOutputIsAnErrorNotSuccess) {
  TempDir dir;
  const std::string folder = model_folder(dir);
  const std::string driver = test_support::driver_path() + " --platform cpu --model_class BertModel --model_name " + folder +
                             " --input_sizes 8 --batch_sizes 1 --reps 2";
  const std::string expected =
      "error: cannot write the log to standard output (No space left on device): the disk may be full or the output "
      "closed; the run stops\n";
  const CommandResult full = test_support::run_command({"sh", "-c", "exec " + driver + " >/dev/full"});
  EXPECT_EQ(full.exit_code, 1);
  EXPECT_EQ(full.err, expected);
  const CommandResult closed = test_support::run_command({"sh", "-c", "exec " + driver + " >&-"});
  EXPECT_EQ(closed.exit_code, 1);
  EXPECT_EQ(closed.err, "error: cannot write the log to standard output (Bad file descriptor): the disk may be full or "
                        "the output closed; the run stops\n");
  const CommandResult log = test_support::run_command({"sh", "-c", "exec " + driver + " >" + dir.file("run.log")});
  ASSERT_EQ(log.exit_code, 0) << log.err;
  const CommandResult process = test_support::run_command(
      {"sh", "-c", "exec " + test_support::process_path() + " --path " + dir.file("run.log") + " --format csv >/dev/full"});
  EXPECT_EQ(process.exit_code, 1);
  EXPECT_EQ(process.err, "error: cannot write the output to standard output (No space left on device): the disk may "
                         "be full or the output closed; the run stops\n");
}

// A damaged .pt2: LibTorch's package loader checks no CRC-32, so a flipped byte in its shared object was
// unpacked, dlopen()ed and killed the driver with SIGSEGV (exit 139, no line). The zip is checked first.
TEST(HostileInput, DamagedPackageIsOneLineNotACrash) {
  TempDir dir;
  const std::string so(64 * 1024, '\x7f'), name = "pkg/data/aotinductor/model/model.so";
  std::string bytes = test_support::stored_zip({{name, so}, {"pkg/archive_format", "pt2"}});
  const size_t data = 30 + name.size();  // after the first local header
  bytes[data + 1000] ^= 0x20;
  write_file(dir.file("model.pt2"), bytes);
  expect_refused(drive(dir.file("model.pt2"), {"--model:vocab_size@", "100"}), 1,
                 dir.file("model.pt2") + ": damaged: member '" + name + "' fails its CRC-32 check (" +
                     fmt::format("{:08x}", zip_crc32(bytes.data() + data, so.size())) + ", recorded " +
                     fmt::format("{:08x}", zip_crc32(so.data(), so.size())) + "); copy or build the file again");
}

// An intact zip that is no package: LibTorch's loader throws after unpacking it into a new
// $TMPDIR/aotinductor_* folder, which every failed load left behind. The load unpacks into a folder of
// the driver's own, removed whatever happens; nothing else in TMPDIR is touched.
TEST(HostileInput, FailedPackageLoadLeavesNothingInTmpdir) {
  TempDir dir;
  fs::create_directories(dir.file("tmp"));
  write_file(dir.file("tmp/kept"), "someone else's");
  write_file(dir.file("model.pt2"), test_support::stored_zip({{"pkg/data/aotinductor/model/notes.txt", "no model"},
                                                              {"pkg/archive_format", "pt2"}}));
  const CommandResult r = test_support::run_command(
      {test_support::driver_path(), "--platform", "cpu", "--model_class", "BertModel", "--model_name",
       dir.file("model.pt2"), "--input_sizes", "8", "--batch_sizes", "1", "--reps", "2", "--model:vocab_size@", "100"},
      {"TMPDIR=" + dir.file("tmp")});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.err, "error: " + dir.file("model.pt2") + ": cannot load as an AOTInductor package: Failed to find a "
                   "generated cpp file or so file for model 'model' in the zip archive.\n");
  std::vector<std::string> left;
  for (const auto& entry : fs::directory_iterator(dir.file("tmp"))) left.push_back(entry.path().filename().string());
  EXPECT_EQ(left, std::vector<std::string>{"kept"});
}

// A disk that fills during the sweep (here a file size limit, which holds for root too) cuts a block of
// REP lines anywhere: the driver says why in one line and leaves the log ending in a whole line, which
// process reads. Before, the log ended in half a line ("FMWORK REP 29 30 1795490538.289988147 17") and
// process refused it whole.
TEST(HostileInput, FullDiskLeavesOnlyWholeLines) {
  TempDir dir;
  const std::string folder = model_folder(dir);
  const std::string log = dir.file("run.log");
  const CommandResult r = test_support::run_command(
      {"sh", "-c", "ulimit -f 16 && exec \"$0\" \"$@\" >" + log, test_support::driver_path(), "--platform", "cpu",
       "--model_class", "BertModel", "--model_name", folder, "--input_sizes", "8", "--batch_sizes", "1", "--reps",
       "2000", "--quiet"});  // no progress line: stderr holds the error alone
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.err, "error: cannot write the log (File too large): the disk may be full or the output closed; the "
                   "run stops\n");
  const std::string text = test_support::read_file(log);
  ASSERT_FALSE(text.empty());
  EXPECT_LE(text.size(), 16u * 512u);
  EXPECT_EQ(text.back(), '\n');
  EXPECT_NE(text.find("FMWORK REP 1 2000 "), std::string::npos);
  const CommandResult processed = test_support::run_command({test_support::process_path(), "--path", log, "--format", "csv"});
  EXPECT_EQ(processed.exit_code, 0) << processed.err;
}

// Weights cut short while the run reads them in place (another process rewrote the file): SIGBUS killed the
// driver at the first touch. Each combination is now a FAIL line naming the file, and the sweep goes on.
TEST(HostileInput, WeightsCutShortDuringARunAreFailLines) {
  TempDir dir;
  const std::string folder = model_folder(dir);
  auto platform = make_platform("cpu", {});
  auto model = load_model(LoadRequest{folder, "BertModel", {}, platform->facts().device});
  ASSERT_EQ(::truncate((folder + "/model.safetensors").c_str(), 4096), 0);
  InputGenerator inputs(model->facts().tokens, 0);
  std::ostringstream out;
  std::vector<std::string> reported;
  const int failures = run_sweep(test_support::sweep_of({1}, {8, 16}, 3), *model, *platform, inputs, out,
                                 [&](const std::string& m) { reported.push_back(m); });
  EXPECT_EQ(failures, 2) << out.str();
  const std::string why = folder + "/model.safetensors: the file was cut short while the run read it in place (its "
                                   "missing pages read as zeros); restore it and run again";
  ASSERT_EQ(reported.size(), 2u);
  EXPECT_EQ(reported[1], "combination input 16 / batch 1 failed: " + why + "; the sweep goes on");
  EXPECT_NE(out.str().find("FMWORK FAIL input=8 batch=1 "), std::string::npos) << out.str();
}

// A --save_outputs folder that cannot be written was found only after each combination had run (sysfs
// refuses new files even to root).
TEST(HostileInput, UnwritableSaveOutputsFolderIsRefusedBeforeTheRun) {
  TempDir dir;
  const CommandResult r = drive(model_folder(dir), {"--save_outputs", "/sys/kernel"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err.rfind("error: --save_outputs /sys/kernel: cannot write into the folder (", 0), 0u) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
  EXPECT_EQ(r.out.find("FMWORK RES"), std::string::npos) << r.out;
}

// Random weights are sized by config.json: fields each in range (hidden 65536, 1024 layers) that add up to
// terabytes are refused with the figures before any allocation.
TEST(HostileInput, RandomWeightsBeyondMemoryAreRefusedWithTheFigures) {
  TempDir dir;
  nlohmann::json config = small_config();
  config["hidden_size"] = 65536;
  config["num_attention_heads"] = 64;
  config["num_hidden_layers"] = 1024;
  fs::create_directories(dir.file("big"));
  write_file(dir.file("big/config.json"), config.dump());
  const CommandResult r = drive(dir.file("big"), {"--model:random_weights@", "True"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.err.rfind("error: " + dir.file("big/config.json") + ": random weights for this config need ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(" GiB but the host has "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("; lower its sizes (layers=1024 hidden=65536"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
}

// What escapes LibTorch's deserialiser is given the file's name and made one line.
TEST(HostileInput, ForeignLoaderErrorsNameTheFile) {
  TempDir dir;
  write_file(dir.file("garbage.pt"), std::string("PK\x03\x04") + std::string(4096, '\x07'));
  const CommandResult r = drive(dir.file("garbage.pt"), {"--model:vocab_size@", "100"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find(dir.file("garbage.pt")), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
}

// A TorchScript file with one damaged byte came out as a parse error in the model's code, an unknown type,
// or LibTorch's "INTERNAL ASSERT FAILED ... please report a bug to PyTorch". Its zip is checked first.
TEST(HostileInput, DamagedTorchScriptNamesTheMember) {
  TempDir dir;
  const std::string model = test_support::make_small_torchscript(dir, "ts");
  std::string bytes = test_support::read_file(model);
  const auto u16 = [&](size_t at) { return static_cast<size_t>(static_cast<unsigned char>(bytes[at])) |
                                           static_cast<size_t>(static_cast<unsigned char>(bytes[at + 1])) << 8; };
  for (const ZipMember& m : verify_zip_file(model)) {  // a tensor's bytes: stored, so their CRC-32 is checked
    if (m.method != 0 || m.size == 0 || m.name.find("/data/") == std::string::npos) continue;
    const size_t h = m.header_offset;
    bytes[h + 30 + u16(h + 26) + u16(h + 28)] ^= 0x20;
    break;
  }
  write_file(model, bytes);
  const CommandResult r = drive(model, {"--model:vocab_size@", "100"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.err.rfind("error: " + model + ": damaged: member '", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("' fails its CRC-32 check ("), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
}

// An empty or foreign file given as TorchScript: one line saying it is no archive, before the vocabulary is
// asked for (it was "put a config.json with vocab_size beside the file", then miniz's internal error).
TEST(HostileInput, AFileThatIsNoArchiveIsSaidToBeNone) {
  TempDir dir;
  for (const std::string& bytes : {std::string(), std::string("\x7f" "ELF random bytes, not a zip", 28)}) {
    write_file(dir.file("model.pt"), bytes);
    for (const std::vector<std::string>& extra : {std::vector<std::string>{}, {"--model:vocab_size@", "100"}}) {
      const CommandResult r = drive(dir.file("model.pt"), extra);
      EXPECT_EQ(r.exit_code, 2) << r.err;
      EXPECT_EQ(r.err, "error: " + dir.file("model.pt") +
                           ": not a TorchScript archive (torch.jit.save writes a zip; this file does not begin as one)\n");
    }
  }
}

// driver serve's largest batch is admitted as the sweep's combinations are: a batch that cannot fit in memory is
// refused in one line with the figures before any level runs, not ended by the allocator mid-level.
TEST(HostileInput, AServeBatchBeyondMemoryIsRefusedBeforeAnyLevel) {
  TempDir dir;
  nlohmann::json config = small_config();
  config["max_position_embeddings"] = 512;
  write_file(dir.file("config.json"), config.dump());
  hf::write_random_model_folder(dir.file("config.json"), dir.file("model"), 1);
  const CommandResult r = test_support::run_command(
      {"timeout", "120", test_support::driver_path(), "serve", "--platform", "cpu", "--model_class", "BertModel",
       "--model_name", dir.file("model"), "--input_sizes", "512", "--batch_sizes", "100000000", "--rates", "1",
       "--duration_s", "1", "--min_queries", "1"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.err.rfind("error: batch 100000000 x input 512 needs an estimated ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("lower --batch_sizes or --input_sizes"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("FMWORK SERVE"), std::string::npos) << "a level ran: " << r.out;
}

// A run given --model:token, --model:use_auth_token and --model:proxies: the secrets are in none of its output,
// stdout or stderr, nor in what process makes of its log, in any format; the options' ARG lines stay, with
// "<not shown>" for their values. A log of an older driver that holds one: process leaves it out too.
TEST(HostileInput, ASecretIsWrittenNowhere) {
  TempDir dir;
  const std::string model = model_folder(dir);
  const CommandResult r = drive(model, {"--model:token", "hf_SECRET1", "--model:use_auth_token@", "'hf_SECRET2'",
                                        "--model:proxies@", "{'https': 'http://user:SECRET3@proxy:3128'}"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("SECRET"), std::string::npos) << r.out;
  EXPECT_EQ(r.err.find("SECRET"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("FMWORK ARG --model:token <not shown>\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("FMWORK ARG --model:proxies@ <not shown>\n"), std::string::npos) << r.out;
  std::string log = r.out;
  const std::string older = "FMWORK ARG --model:token hf_SECRET4\n";
  log.insert(log.find("FMWORK ARG "), older);
  const std::string path = dir.write("run.log", log);
  for (const std::vector<std::string>& format :
       {std::vector<std::string>{"json"}, {"json", "--upstream"}, {"csv"}, {"summary"}, {"html"}}) {
    std::vector<std::string> argv = {test_support::process_path(), "--path", path, "--format"};
    argv.insert(argv.end(), format.begin(), format.end());
    const CommandResult processed = test_support::run_command(argv);
    EXPECT_EQ(processed.exit_code, 0) << processed.err;
    EXPECT_EQ(processed.out.find("SECRET"), std::string::npos) << format[0] << ":\n" << processed.out;
    EXPECT_EQ(processed.err.find("SECRET"), std::string::npos) << processed.err;
  }
  // A value that is no Python literal is refused without being quoted.
  const CommandResult refused = drive(model, {"--model:token@", "hf_SECRET5"});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_EQ(refused.err, "error: --model:token@: its value (not shown: a secret) is no Python literal; quote a "
                         "string: --model:token@ 'VALUE', or give it without '@'\n");
}

// A model folder whose strings hold line breaks, a carriage return, ESC and whole forged FMWORK lines
// (config.json's architectures and a name it is not read for, a tensor's name in model.safetensors): the
// driver's output has no line it did not write and no control character but its own line ends, and process
// reads the run's one combination, nothing forged.
TEST(HostileInput, AModelsStringsCannotForgeLogLines) {
  TempDir dir;
  const std::string forged = "FMWORK RES 1.000000000 2.000000000 forged BertModel 8 1 0.001 9999.0";
  nlohmann::json config = small_config();
  config["architectures"] = {"BertModel\n" + forged, "X\r" + forged, "\x1b[2J\x7f"};
  config["_name_or_path"] = "\n" + forged + "\n";
  write_file(dir.file("config.json"), config.dump());
  hf::write_random_model_folder(dir.file("config.json"), dir.file("model"), 1);
  {
    std::vector<std::pair<std::string, at::Tensor>> tensors;
    const hf::Checkpoint weights = hf::Checkpoint::open_folder(dir.file("model"));
    for (const std::string& name : weights.names()) tensors.emplace_back(name, weights.tensor(name).clone());
    tensors.emplace_back("classifier.bias\n" + forged, at::zeros({2}));  // an ignored task head
    hf::write_safetensors(dir.file("weights.safetensors"), tensors);
  }
  fs::rename(dir.file("weights.safetensors"), dir.file("model/model.safetensors"));
  const CommandResult r = drive(dir.file("model"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  size_t res_lines = 0, grep_res = 0;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    res_lines += line.rfind("FMWORK RES ", 0) == 0;
    grep_res += line.find("FMWORK RES") != std::string::npos;  // what `grep "FMWORK RES"` takes
    for (char c : line) EXPECT_FALSE(static_cast<unsigned char>(c) < 0x20 || c == 0x7f) << line;
  }
  EXPECT_EQ(res_lines, 1u) << r.out;
  EXPECT_EQ(grep_res, 1u) << r.out;
  EXPECT_NE(r.out.find("architectures=BertModel\\n\\x46MWORK RES"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("classifier.bias\\n\\x46MWORK RES"), std::string::npos) << r.out;
  const std::string log = dir.write("run.log", r.out);
  const CommandResult processed = test_support::run_command({test_support::process_path(), "--path", log,
                                                             "--format", "csv"});
  ASSERT_EQ(processed.exit_code, 0) << processed.err;
  EXPECT_EQ(processed.out.find("forged"), std::string::npos) << processed.out;
  EXPECT_EQ(std::count(processed.out.begin(), processed.out.end(), '\n'), 2) << processed.out;
}

}  // namespace
}  // namespace fmwork
