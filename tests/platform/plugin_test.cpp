// over 500 lines: one plugin exercised end to end, every loading error, option and constraint in one place.
// Platform plugins: the search path and every loading error, options reaching the plugin, constraints
// turned into refusals, the reference device (tensors on privateuseone, the same results as on CPU,
// memory peaks, synchronise counted) and a plugin's compile hook.
#include <gtest/gtest.h>
#include <torch/script.h>
#include <torch/torch.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "fmwork/cli/cli.hpp"
#include "fmwork/base/error.hpp"
#include "fmwork/model/model.hpp"
#include "fmwork/cli/option_sets.hpp"
#include "fmwork/platform/platform.hpp"
#include "fmwork/platform/platform_registry.hpp"
#include "fmwork/cli/platform_rules.hpp"
#include "fmwork/platform/plugin/plugin_loader.hpp"
#include "fmwork/platform/plugin/plugin_api.h"
#include "support/model_fixtures.hpp"
#include "support/test_support.hpp"
#include "support/text_lines.hpp"

namespace fmwork {
namespace {

using test_support::ScopedEnv;
using fmwork::TempDir;
using test_support::lines_of;

#define EXPECT_CONTAINS(text, part) \
  EXPECT_NE(std::string(text).find(part), std::string::npos) << "text: " << (text) << "\nlacks: " << (part)
#define EXPECT_NOT_CONTAINS(text, part) \
  EXPECT_EQ(std::string(text).find(part), std::string::npos) << "text: " << (text) << "\nhas: " << (part)
#define EXPECT_STARTS_WITH(text, part) \
  EXPECT_EQ(std::string(text).rfind(part, 0), 0u) << "text: " << (text) << "\ndoes not start with: " << (part)

std::string reference_dir() { return test_support::plugin_dir(); }
std::string testing_dir() { return test_support::plugin_dir() + "/testing"; }

PlatformOptions options(std::vector<std::pair<std::string, std::string>> entries) { return {std::move(entries)}; }

// Runs `body`, which must throw an Error of `kind`; returns its message.
template <typename F>
std::string error_of(F&& body, ErrorKind kind = ErrorKind::usage) {
  try {
    body();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no Error thrown";
  return {};
}

// The refusals of the platform's rules, as the driver checks them.
std::vector<std::string> refusals_of(const Platform& platform, const CommandLine& command_line) {
  return check_constraints(platform.facts().name, platform.facts().constraints, command_line);
}

CommandLine command_line(std::vector<std::string> words) {
  words.insert(words.begin(), "driver");
  std::vector<const char*> argv;
  for (const auto& w : words) argv.push_back(w.c_str());
  return parse_command_line(static_cast<int>(argv.size()), argv.data());
}

const torch::Device kRefdev(c10::DeviceType::PrivateUse1, 0);

// --- search path and loading errors ---

// --platform cup: no plugin of that name, and one typo from cpu: the line ends offering it. A plugin's name
// that is no typo of a built-in one gets no guess.
TEST(PluginLoading, ABuiltInNameMisspeltIsOfferedIt) {
  TempDir a;
  ScopedEnv path(kPluginPathVariable, a.path());
  const std::string message = error_of([] { make_platform("cup", {}); });
  EXPECT_EQ(message.rfind("--platform cup: not a built-in platform (cpu, cuda, cuda:N) and no plugin ", 0), 0u) << message;
  const std::string tail = " to the folder that holds it); did you mean cpu?";
  ASSERT_GE(message.size(), tail.size()) << message;
  EXPECT_EQ(message.substr(message.size() - tail.size()), tail) << message;
  EXPECT_EQ(error_of([] { make_platform("nosuchdevice", {}); }).find("did you mean"), std::string::npos);
}

TEST(PluginLoading, MissingPluginListsEveryPathTried) {
  TempDir a, b;
  ScopedEnv path(kPluginPathVariable, a.path() + ":" + b.path());
  auto message = error_of([] { make_platform("nosuchdevice", {}); });
  EXPECT_EQ(message.find('\n'), std::string::npos);
  EXPECT_CONTAINS(message, "--platform nosuchdevice: not a built-in platform (cpu, cuda, cuda:N)");
  for (const auto& dir : plugin_search_dirs())
    EXPECT_CONTAINS(message, dir + "/libfmwork_platform_nosuchdevice.so");
  EXPECT_CONTAINS(message, "FMWORK_PLUGIN_PATH");
}

TEST(PluginLoading, RefusesNamesThatAreNotFileNames) {
  auto message = error_of([] { make_platform("../../etc/x", {}); });
  EXPECT_EQ(message, "--platform ../../etc/x: not a platform name; expected cpu, cuda, cuda:N or a plugin name of "
                     "up to 64 letters, digits, '_', '-' and '.'");
}

TEST(PluginLoading, LibraryThatIsNotASharedObject) {
  TempDir dir;
  test_support::write_file(dir.file("libfmwork_platform_garbage.so"), "not an ELF file");
  ScopedEnv path(kPluginPathVariable, dir.path());
  auto message = error_of([] { make_platform("garbage", {}); });
  EXPECT_CONTAINS(message, "--platform garbage: cannot load " + dir.file("libfmwork_platform_garbage.so"));
  EXPECT_CONTAINS(message, "tried " + dir.file("libfmwork_platform_garbage.so"));
  EXPECT_EQ(message.find('\n'), std::string::npos);
}

TEST(PluginLoading, LibraryWithoutEntryPoint) {
  ScopedEnv path(kPluginPathVariable, testing_dir());
  auto message = error_of([] { make_platform("noentry", {}); });
  const std::string file = testing_dir() + "/libfmwork_platform_noentry.so";
  EXPECT_CONTAINS(message, "--platform noentry: " + file +
                                 " is not an fmwork platform plugin: it exports no fmwork_platform_plugin_entry()");
  EXPECT_CONTAINS(message, "tried " + file);
}

TEST(PluginLoading, InterfaceVersionMismatch) {
  ScopedEnv path(kPluginPathVariable, testing_dir());
  auto message = error_of([] { make_platform("badversion", {}); });
  EXPECT_CONTAINS(message, "speaks plugin interface version " +
                                 std::to_string(FMWORK_PLUGIN_INTERFACE_VERSION + 100) +
                                 ", this driver speaks version " + std::to_string(FMWORK_PLUGIN_INTERFACE_VERSION));
  EXPECT_CONTAINS(message, "tried " + testing_dir() + "/libfmwork_platform_badversion.so");
}

TEST(PluginLoading, LibTorchVersionMismatch) {
  ScopedEnv path(kPluginPathVariable, testing_dir());
  auto message = error_of([] { make_platform("badtorch", {}); });
  EXPECT_CONTAINS(message, "was built with LibTorch 0.4.1, this driver runs LibTorch");
}

TEST(PluginLoading, IncompleteTable) {
  ScopedEnv path(kPluginPathVariable, testing_dir());
  auto message = error_of([] { make_platform("incomplete", {}); });
  EXPECT_CONTAINS(message, "has an incomplete plugin table");
}

TEST(PluginLoading, FirstFolderThatHasTheLibraryWins) {
  TempDir shadow, empty;
  test_support::write_file(shadow.file("libfmwork_platform_refdev.so"), "not an ELF file");
  {
    ScopedEnv path(kPluginPathVariable, empty.path() + ":" + shadow.path() + ":" + reference_dir());
    auto message = error_of([] { make_platform("refdev", {}); });
    EXPECT_CONTAINS(message, "cannot load " + shadow.file("libfmwork_platform_refdev.so"));
    // The search stops at the first folder that has the library, even a broken one.
    EXPECT_STARTS_WITH(message.substr(message.find("; tried ")), "; tried " + empty.file("libfmwork_platform_refdev.so") +
                                                                     ", " + shadow.file("libfmwork_platform_refdev.so"));
    EXPECT_NOT_CONTAINS(message, reference_dir() + "/");
  }
  ScopedEnv path(kPluginPathVariable, empty.path() + ":" + reference_dir());
  EXPECT_EQ(make_platform("refdev", {})->facts().name, "refdev");
}

// --- options ---

TEST(PluginOptions, UnknownOptionIsAUsageError) {
  ScopedEnv path(kPluginPathVariable, reference_dir());
  auto message = error_of([] { make_platform("refdev", options({{"colour", "blue"}})); });
  EXPECT_EQ(message,
            "--platform refdev: --platform:colour is not a refdev option; refdev accepts --platform:emulate "
            "(none, spyre) and --platform:event_log PATH");
  message = error_of([] { make_platform("refdev", options({{"emulate", "tpu"}})); });
  EXPECT_CONTAINS(message, "--platform:emulate tpu is not known; refdev emulates none or spyre");
}

TEST(PluginOptions, OptionsReachThePlugin) {
  TempDir dir;
  ScopedEnv path(kPluginPathVariable, reference_dir());
  {
    auto platform =
        make_platform("refdev", options({{"emulate", "spyre"}, {"event_log", dir.file("events.txt")}}));
    EXPECT_CONTAINS(platform->facts().description, "emulating Spyre's rules");
    EXPECT_CONTAINS(platform->facts().description, "timings mean nothing");
  }
  auto lines = lines_of(test_support::read_file(dir.file("events.txt")));
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.front(), "create emulate=spyre event_log=" + dir.file("events.txt"));
  EXPECT_EQ(lines.back(), "destroy syncs=0 runs=0");
}

TEST(PluginOptions, MinimalCPlugin) {
  ScopedEnv path(kPluginPathVariable, testing_dir());
  auto platform = make_platform("cpuminimal", options({{"note", "hello"}}));
  EXPECT_EQ(platform->facts().name, "cpuminimal");
  EXPECT_EQ(platform->facts().device, torch::Device(torch::kCPU));
  EXPECT_CONTAINS(platform->facts().description, "cpuminimal (note: hello)");
  EXPECT_CONTAINS(platform->facts().description, testing_dir() + "/libfmwork_platform_cpuminimal.so");
  platform->synchronize();
  // No memory_peaks in its table: no meter, and the facts say so.
  EXPECT_EQ(platform->meters().memory_peaks, nullptr);
  EXPECT_FALSE(platform->facts().has_memory_peaks);
  EXPECT_EQ(platform->meters().available_memory, nullptr);
  EXPECT_EQ(platform->meters().energy, nullptr);
  EXPECT_TRUE(platform->facts().compile_backends.empty());
  EXPECT_TRUE(refusals_of(*platform, command_line({"--platform", "cpuminimal", "--model_class", "M", "--model_name", "m.pt",
                                            "--input_sizes", "8,16", "--batch_sizes", "1,2", "--reps", "3"}))
                  .empty());
  auto message = error_of([] { make_platform("cpuminimal", options({{"notes", "x"}})); });
  EXPECT_EQ(message, "--platform cpuminimal: --platform:notes is not a cpuminimal option; it accepts "
                     "--platform:note TEXT");
}

// --- constraints ---

const std::vector<std::string> kBase = {"--platform", "spyre", "--model_class", "RobertaModel", "--model_name", "m"};

std::vector<std::string> with(std::vector<std::string> extra) {
  std::vector<std::string> words = kBase;
  words.insert(words.end(), extra.begin(), extra.end());
  return words;
}

TEST(PluginConstraints, SpyreRulesNameEveryMissingPieceAtOnce) {
  ScopedEnv path(kPluginPathVariable, reference_dir());
  auto platform = make_platform("refdev", options({{"emulate", "spyre"}}));
  auto refusals = refusals_of(*platform, command_line(with({"--input_sizes", "64,128,256", "--batch_sizes", "1,4", "--reps", "5"})));
  ASSERT_EQ(refusals.size(), 5u);
  EXPECT_EQ(refusals[0],
            "--platform refdev requires a single --input_sizes value or --isolate (got 3: 64,128,256): Spyre compiles the model "
            "for one input shape per run.");
  EXPECT_EQ(refusals[1],
            "--platform refdev requires a single --batch_sizes value or --isolate (got 2: 1,4): Spyre compiles the model for one "
            "batch shape per run.");
  EXPECT_EQ(refusals[2],
            "--platform refdev requires --torch.call:set_grad_enabled@ False (not given): torch_sendnn runs "
            "inference only, without autograd.");
  EXPECT_EQ(refusals[3], "--platform refdev requires --compile (not given): the model reaches Spyre only through "
                         "torch.compile.");
  EXPECT_EQ(refusals[4], "--platform refdev requires --compile:backend sendnn (not given): sendnn is Spyre's "
                         "torch.compile backend.");
}

TEST(PluginConstraints, SpyreRulesAcceptUpstreamsCommandLine) {
  ScopedEnv path(kPluginPathVariable, reference_dir());
  auto platform = make_platform("refdev", options({{"emulate", "spyre"}}));
  EXPECT_TRUE(refusals_of(*platform, command_line(with({"--input_sizes", "512", "--batch_sizes", "1", "--reps", "100",
                                             "--torch.call:set_grad_enabled@", "False", "--compile",
                                             "--compile:backend", "sendnn"})))
                  .empty());
  // A string given with @ is the same string.
  EXPECT_TRUE(refusals_of(*platform, command_line(with({"--input_sizes", "512", "--batch_sizes", "1", "--reps", "100",
                                             "--torch.call:set_grad_enabled@", "False", "--compile",
                                             "--compile:backend@", "'sendnn'"})))
                  .empty());
}

TEST(PluginConstraints, WrongValuesAreQuotedAsGiven) {
  ScopedEnv path(kPluginPathVariable, reference_dir());
  auto platform = make_platform("refdev", options({{"emulate", "spyre"}}));
  auto refusals = refusals_of(*platform, command_line(with({"--input_sizes", "512", "--batch_sizes", "1", "--reps", "3",
                                                     "--torch.call:set_grad_enabled", "False", "--compile",
                                                     "--compile:backend", "inductor"})));
  ASSERT_EQ(refusals.size(), 2u);
  EXPECT_CONTAINS(refusals[0], "requires --torch.call:set_grad_enabled@ False (got "
                                     "--torch.call:set_grad_enabled False)");
  EXPECT_CONTAINS(refusals[1], "requires --compile:backend sendnn (got --compile:backend inductor)");
  refusals = refusals_of(*platform, command_line(with({"--input_sizes", "512", "--batch_sizes", "1", "--reps", "3",
                                                "--torch.call:set_grad_enabled@", "True", "--compile",
                                                "--compile:backend", "sendnn"})));
  ASSERT_EQ(refusals.size(), 1u);
  EXPECT_CONTAINS(refusals[0], "(got --torch.call:set_grad_enabled@ True)");
}

TEST(PluginConstraints, NoRulesWithoutEmulation) {
  ScopedEnv path(kPluginPathVariable, reference_dir());
  auto platform = make_platform("refdev", {});
  EXPECT_TRUE(refusals_of(*platform, command_line(with({"--input_sizes", "8,16", "--batch_sizes", "1,2", "--reps", "3"})))
                  .empty());
}

// --- the reference device ---

TEST(ReferenceDevice, TensorsLiveOnPrivateUse1AndComputeAsOnCpu) {
  ScopedEnv path(kPluginPathVariable, reference_dir());
  auto platform = make_platform("refdev", {});
  ASSERT_EQ(platform->facts().device, kRefdev);
  EXPECT_EQ(platform->facts().device.str(), "refdev:0");

  torch::manual_seed(1);
  auto a = torch::randn({4, 16}), w = torch::randn({8, 16}), b = torch::randn({8});
  auto expected = torch::softmax(torch::layer_norm(torch::gelu(torch::linear(a, w, b)), {8}), -1);
  auto da = a.to(kRefdev), dw = w.to(kRefdev), db = b.to(kRefdev);
  EXPECT_EQ(da.device(), kRefdev);
  auto got = torch::softmax(torch::layer_norm(torch::gelu(torch::linear(da, dw, db)), {8}), -1);
  EXPECT_EQ(got.device(), kRefdev);
  EXPECT_TRUE(torch::allclose(got.cpu(), expected, 1e-6, 1e-6));

  // views, in-place updates, reductions and indexing
  auto t = torch::arange(24, torch::kFloat).to(kRefdev).view({2, 3, 4}).transpose(1, 2);
  t.mul_(2).add_(1);
  EXPECT_TRUE(torch::equal(t.cpu(), (torch::arange(24, torch::kFloat).view({2, 3, 4}).transpose(1, 2) * 2 + 1)));
  EXPECT_EQ(t.sum().item<float>(), 2 * 276.f + 24.f);
  auto ids = torch::tensor({3, 1}, torch::kLong).to(kRefdev);
  EXPECT_TRUE(torch::equal(torch::embedding(dw, ids).cpu(), torch::embedding(w, torch::tensor({3, 1}))));
}

TEST(ReferenceDevice, MemoryPeaksCountDeviceAllocations) {
  ScopedEnv path(kPluginPathVariable, reference_dir());
  auto platform = make_platform("refdev", {});
  EXPECT_TRUE(platform->facts().has_memory_peaks);
  MemoryPeakMeter* meter = platform->meters().memory_peaks.get();
  ASSERT_NE(meter, nullptr);
  meter->reset();
  auto before = meter->read();
  ASSERT_TRUE(before.has_value());
  {
    auto big = torch::empty({1024, 1024}, torch::TensorOptions().device(kRefdev));  // 4 MiB
    auto peaks = meter->read();
    EXPECT_GE(peaks->allocated_bytes - before->allocated_bytes, 4 << 20);
    EXPECT_EQ(peaks->reserved_bytes, peaks->allocated_bytes);
  }
  meter->reset();
  EXPECT_LT(meter->read()->allocated_bytes, 4 << 20);
}

// A TorchScript module built here, moved parameter by parameter (Module::to refuses PrivateUse1: its
// shallow-copy check does not know the device, pytorch issue 196975).
torch::jit::Module tiny_encoder() {
  torch::jit::Module m("TinyEncoder");
  torch::manual_seed(2);
  m.register_parameter("emb", torch::randn({50, 16}), false);
  m.register_parameter("w", torch::randn({16, 16}) * 0.1, false);
  m.register_parameter("ln_w", torch::ones({16}), false);
  m.register_parameter("ln_b", torch::zeros({16}), false);
  m.define(R"(
def forward(self, input_ids, attention_mask):
    x = torch.embedding(self.emb, input_ids)
    s = torch.matmul(x, x.transpose(-1, -2)) * 0.25
    s = s + (1.0 - attention_mask.to(x.dtype))[:, None, :] * -10000.0
    x = x + torch.matmul(torch.softmax(s, -1), x)
    x = torch.layer_norm(torch.gelu(torch.matmul(x, self.w)) + x, [16], self.ln_w, self.ln_b, 1e-12)
    return x, x[:, 0]
)");
  m.eval();
  return m;
}

void move_module(torch::jit::Module& m, const torch::Device& device) {
  for (auto sub : m.modules()) {
    for (const auto& p : sub.named_parameters(false)) sub.setattr(p.name, p.value.to(device));
    for (const auto& b : sub.named_buffers(false)) sub.setattr(b.name, b.value.to(device));
  }
}

TEST(ReferenceDevice, TorchScriptModelGivesTheCpuOutputs) {
  ScopedEnv path(kPluginPathVariable, reference_dir());
  auto platform = make_platform("refdev", {});
  auto cpu = tiny_encoder();
  auto dev = tiny_encoder();
  move_module(dev, platform->facts().device);
  auto ids = torch::randint(50, {2, 7}, torch::kLong);
  auto mask = torch::ones({2, 7}, torch::kLong);
  torch::NoGradGuard no_grad;
  auto expected = cpu.forward({ids, mask}).toTuple();
  for (int i = 0; i < 3; ++i) {  // the profiling executor optimises after the first runs
    auto got = dev.forward({ids.to(kRefdev), mask.to(kRefdev)}).toTuple();
    platform->synchronize();
    for (size_t k = 0; k < 2; ++k) {
      auto g = got->elements()[k].toTensor();
      EXPECT_EQ(g.device(), kRefdev);
      EXPECT_LT((g.cpu() - expected->elements()[k].toTensor()).abs().max().item<float>(), 1e-5);
    }
  }
}

TEST(ReferenceDevice, SynchronizeIsCountedWithTheDeviceWorkBeforeIt) {
  TempDir dir;
  ScopedEnv path(kPluginPathVariable, reference_dir());
  {
    auto platform = make_platform("refdev", options({{"event_log", dir.file("events.txt")}}));
    auto x = torch::ones({3, 3}).to(kRefdev);  // a copy: no operator runs on the device
    platform->synchronize();
    auto y = torch::matmul(x, x).relu();  // two operators run on the device
    platform->synchronize();
  }
  auto lines = lines_of(test_support::read_file(dir.file("events.txt")));
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_STARTS_WITH(lines[1], "sync 1 ops=0 t=");
  EXPECT_STARTS_WITH(lines[2], "sync 2 ops=");
  EXPECT_NOT_CONTAINS(lines[2], "ops=0 ");
  EXPECT_EQ(lines[3], "destroy syncs=2 runs=0");
}

// --- the compile hook ---

// Doubles the input ids as floats: enough to see which device the runner got and returned.
// Every fact set, none at its default, so that a wrapper that drops one shows it.
class DoublingModel : public Model {
 public:
  torch::IValue forward(const Batch& batch) override { return batch.input_ids.to(torch::kFloat) * 2; }
  ModelFacts facts() const override {
    ModelFacts f;
    f.description = "doubling model";
    f.dtype_name = "float32";
    f.tokens = {100, {0, 3}, 2};
    f.parameter_count = 7;
    f.weights_source = "random:seed=3";
    f.fed_inputs = {"input_ids"};
    f.output_names = {"doubled"};
    f.forward_flops = [](int64_t batch, int64_t input) { return 2.0 * static_cast<double>(batch * input); };
    f.activation_bytes = [](int64_t batch, int64_t input) { return static_cast<uint64_t>(batch * input * 4); };
    return f;
  }
  void eval() override {}
};

Batch batch_on(const torch::Device& device) {
  auto ids = torch::arange(6, torch::kLong).view({2, 3});
  return {ids.to(device), torch::ones({2, 3}, torch::kLong).to(device), torch::zeros({2, 3}, torch::kLong).to(device)};
}

CompileOptions compile_options(const std::string& backend, std::vector<std::pair<std::string, Value>> extra = {}) {
  CompileOptions o;
  o.backend = backend;
  std::vector<std::pair<std::string, Value>> raw = {{"backend", Value::of_string(backend)}};
  for (auto& e : extra) {
    if (e.first == "options") o.options = e.second;
    if (e.first == "mode") o.mode = e.second.text;
    raw.push_back(e);
  }
  o.raw = Value::of_dict(raw);
  return o;
}

TEST(PluginCompile, RunnerWrapsTheModelAndRunsOnTheDevice) {
  TempDir dir;
  ScopedEnv path(kPluginPathVariable, reference_dir());
  {
    auto platform = make_platform("refdev", options({{"event_log", dir.file("events.txt")}}));
    EXPECT_EQ(platform->facts().compile_backends, std::vector<std::string>{"refdev"});
    const ModelSource source{"/m/x.pt", "Doubler", Value::of_dict({{"vocab_size", Value::of_int(100)}})};
    auto compiled = platform->compile(
        std::make_unique<DoublingModel>(),
        compile_options("refdev", {{"options", Value::of_dict({{"refdev.label", Value::of_string("L1")}})}}), source);
    EXPECT_CONTAINS(compiled->facts().description, "doubling model\ncompiled by plugin refdev, backend refdev "
                                                   "(refdev eager runner, label L1)");
    test_support::expect_facts_carried(DoublingModel().facts(), compiled->facts(), 2, 3);
    EXPECT_EQ(compiled->facts().dtype_name, "float32");
    auto out = compiled->forward(batch_on(kRefdev)).toTensor();
    EXPECT_EQ(out.device(), kRefdev);
    EXPECT_TRUE(torch::equal(out.cpu(), torch::arange(6, torch::kFloat).view({2, 3}) * 2));
    platform->synchronize();

    // Inputs left on the CPU are refused by the runner.
    auto message = error_of([&] { compiled->forward(batch_on(torch::kCPU)); }, ErrorKind::runtime);
    EXPECT_CONTAINS(message, "--platform refdev: backend refdev: refdev runner: input_ids is on cpu, expected "
                                   "refdev:0");
  }
  auto text = test_support::read_file(dir.file("events.txt"));
  EXPECT_CONTAINS(text, "compile backend=refdev options={\"backend\":\"refdev\",\"options\":{\"refdev.label\":"
                              "\"L1\"}} model_path=/m/x.pt model_class=Doubler dtype=float32 torchscript=no\n"
                              "run 1 shape=2x3\nsync 1 ops=");
  EXPECT_CONTAINS(text, "destroy syncs=1 runs=1");
}

TEST(PluginCompile, RefusalsAreUsageErrors) {
  ScopedEnv path(kPluginPathVariable, reference_dir());
  auto platform = make_platform("refdev", {});
  auto message = error_of([&] {
    platform->compile(std::make_unique<DoublingModel>(), compile_options("refdev", {{"mode", Value::of_string("max-autotune")}}), {});
  });
  EXPECT_EQ(message, "--platform refdev: --compile:backend refdev: --compile:mode max-autotune is not supported by "
                     "the refdev backend; it accepts only mode default");
  message = error_of([&] {
    platform->compile(std::make_unique<DoublingModel>(), compile_options("refdev", {{"options", Value::of_dict({{"x", Value::of_int(1)}})}}), {});
  });
  EXPECT_CONTAINS(message, "--compile:options:x is not accepted by the refdev backend");
  message = error_of([&] { platform->compile(std::make_unique<DoublingModel>(), compile_options("sendnn"), {}); });
  EXPECT_EQ(message, "--platform refdev: --compile:backend sendnn is not one of this plugin's backends (refdev)");

  auto spyre = make_platform("refdev", options({{"emulate", "spyre"}}));
  EXPECT_EQ(spyre->facts().compile_backends, (std::vector<std::string>{"refdev", "sendnn"}));
  auto compiled = spyre->compile(std::make_unique<DoublingModel>(), compile_options("sendnn"), {});
  EXPECT_TRUE(torch::equal(compiled->forward(batch_on(kRefdev)).toTensor().cpu(),
                           torch::arange(6, torch::kFloat).view({2, 3}) * 2));
}

TEST(PluginCompile, TorchScriptModuleIsHandedOver) {
  TempDir dir;
  ScopedEnv path(kPluginPathVariable, reference_dir());
  class ScriptModel : public DoublingModel {
   public:
    torch::jit::Module* torchscript_module() override { return &module; }
    torch::jit::Module module = tiny_encoder();
  };
  {
    auto platform = make_platform("refdev", options({{"event_log", dir.file("events.txt")}}));
    platform->compile(std::make_unique<ScriptModel>(), compile_options("refdev"), {});
  }
  EXPECT_CONTAINS(test_support::read_file(dir.file("events.txt")), " torchscript=yes\n");
}

}  // namespace
}  // namespace fmwork
