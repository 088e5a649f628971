// The cuda platform on a GPU (src/platform/cuda/cuda_device.cpp, the cuda branch of
// src/platform/platform_registry.cpp). Every test here needs a CUDA GPU and a CUDA build of LibTorch: on a CPU
// machine each one skips, saying so (or fails under FMWORK_REQUIRE_CUDA=1); on the GPU machine
// (scripts/gpu-check.sh, scripts/test.sh) they run.
#include <gtest/gtest.h>
#include <torch/cuda.h>
#include <torch/torch.h>
#ifdef FMWORK_WITH_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>
#endif

#include <chrono>
#include <cstdlib>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "fmwork/base/error.hpp"
#include "fmwork/compile/compile_model.hpp"
#include "fmwork/encoders/attention.hpp"
#include "fmwork/encoders/varlen_attention.hpp"
#include "fmwork/loaders/model_loader.hpp"
#include "fmwork/log/log_format.hpp"
#include "fmwork/model/inputs.hpp"
#include "fmwork/platform/platform_registry.hpp"
#include "fmwork/sweep/device_energy.hpp"
#include "fmwork/sweep/gemm_probe.hpp"
#include "fmwork/sweep/sweep.hpp"
#include "support/model_fixtures.hpp"
#include "support/test_support.hpp"

namespace fmwork {
namespace {

// Without a device each test skips, saying so; under FMWORK_REQUIRE_CUDA=1 (scripts/gpu-check.sh on the GPU
// machine) it fails instead, so that a check that ran no GPU test cannot read as passed.
bool cuda_required() {
  const char* value = std::getenv("FMWORK_REQUIRE_CUDA");
  return value && std::string(value) == "1";
}
#define FMWORK_NEEDS_GPU()                                                                                 \
  if (!torch::cuda::is_available()) {                                                                      \
    if (cuda_required())                                                                                   \
      FAIL() << "FMWORK_REQUIRE_CUDA=1 and LibTorch sees no CUDA device (a CPU build, no GPU or no driver)"; \
    GTEST_SKIP() << "needs a CUDA GPU and a CUDA build of LibTorch; this machine or build has none (the GPU " \
                    "machine runs it)";                                                                    \
  }

TEST(CudaPlatform, DescribesTheDeviceSynchronisesAndReportsMemoryPeaks) {
  FMWORK_NEEDS_GPU();
  auto cuda = make_platform("cuda", {});
  EXPECT_EQ(cuda->facts().device, torch::Device(torch::kCUDA, 0));
  EXPECT_NE(cuda->facts().description.find(" SMs, "), std::string::npos) << cuda->facts().description;
  ASSERT_TRUE(cuda->facts().has_memory_peaks && cuda->facts().has_available_memory);
  MemoryPeakMeter& meter = *cuda->meters().memory_peaks;
  meter.reset();
  {
    auto big = torch::empty({64 << 20}, torch::TensorOptions().dtype(torch::kUInt8).device(cuda->facts().device));
    big.fill_(1);
    cuda->synchronize();
  }
  auto peaks = meter.read();
  ASSERT_TRUE(peaks.has_value());
  EXPECT_GE(peaks->allocated_bytes, int64_t{64} << 20);
  EXPECT_GE(peaks->reserved_bytes, peaks->allocated_bytes);
  meter.reset();
  EXPECT_LT(meter.read()->allocated_bytes, int64_t{64} << 20);  // the tensor is gone
}

TEST(CudaPlatform, AnIndexPastTheLastDeviceIsRefusedNamingTheDevices) {
  FMWORK_NEEDS_GPU();
  const int count = static_cast<int>(torch::cuda::device_count());
  try {
    make_platform("cuda:" + std::to_string(count), {});
    ADD_FAILURE() << "cuda:" << count << " was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    EXPECT_NE(std::string(e.what()).find("there are " + std::to_string(count) + " CUDA devices (indices 0 to " +
                                         std::to_string(count - 1) + ")"),
              std::string::npos)
        << e.what();
  }
}

#ifdef FMWORK_WITH_CUDA
namespace enc = fmwork::test_support::encoders;

// A tiny BERT folder in `dir`, loaded on `device` with `attn` attention.
std::unique_ptr<Model> tiny_bert(const TempDir& dir, const torch::Device& device, const std::string& attn = "sdpa") {
  const nlohmann::json cfg = enc::tiny_config("bert");
  enc::write_folder(dir.path(), cfg, enc::tiny_weights(cfg, true, 5));
  ModelOptions options;
  options.attn_implementation = attn;
  return load_model(LoadRequest{dir.path(), "BertModel", options, device});
}

at::Tensor hidden(const torch::IValue& v) { return enc::outputs(v).first.to(at::kCPU).to(at::kFloat); }

// Defect 1: the device was never made current, and each admission flipped to the index and back to device
// 0. The platform makes its device current once; measuring its memory leaves it current.
TEST(CudaPlatform, ThePlatformsDeviceIsCurrentAndStaysSo) {
  FMWORK_NEEDS_GPU();
  const int last = static_cast<int>(torch::cuda::device_count()) - 1;
  auto cuda = make_platform("cuda:" + std::to_string(last), {});
  EXPECT_EQ(c10::cuda::current_device(), last);
  EXPECT_TRUE(c10::cuda::hasPrimaryContext(static_cast<c10::DeviceIndex>(last)));
  ASSERT_TRUE(cuda->meters().available_memory->read().has_value());
  EXPECT_EQ(c10::cuda::current_device(), last);
  auto back = make_platform("cuda", {});
  EXPECT_EQ(c10::cuda::current_device(), 0);
}

// Defect 2: Qwen3's grouped heads with padding (a mask) and in float32 take a kernel that computes what the
// CPU does; unpadded bfloat16 passes no mask (flash / cuDNN with native GQA).
TEST(CudaPlatform, GroupedHeadsWithAndWithoutMaskMatchTheCpu) {
  FMWORK_NEEDS_GPU();
  TempDir dir;
  const nlohmann::json cfg = nlohmann::json::parse(R"({"model_type": "qwen3", "hidden_size": 32, "num_hidden_layers": 2,
    "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 8, "intermediate_size": 40, "vocab_size": 99,
    "max_position_embeddings": 64, "rope_theta": 300.0, "pad_token_id": 0})");
  enc::write_folder(dir.path(), cfg, enc::tiny_weights(cfg, false, 3));
  ModelOptions options;
  options.attn_implementation = "sdpa";
  auto cpu = load_model(LoadRequest{dir.path(), "Qwen3Model", options, torch::kCPU});
  auto gpu = load_model(LoadRequest{dir.path(), "Qwen3Model", options, torch::Device(torch::kCUDA, 0)});
  const enc::Inputs in = enc::tiny_inputs(0, false);
  const auto cuda = [](const at::Tensor& t) { return t.to(torch::Device(torch::kCUDA, 0)); };
  const at::Tensor want = hidden(cpu->forward(Batch{in.ids, in.mask, at::Tensor()}));
  const at::Tensor got = hidden(gpu->forward(Batch{cuda(in.ids), cuda(in.mask), at::Tensor()}));
  EXPECT_LT(enc::max_diff(got.narrow(1, 0, 6), want.narrow(1, 0, 6)), 1e-4) << "padded, float32";
  Batch unpadded{cuda(in.ids), cuda(at::ones_like(in.mask)), at::Tensor(), /*padded=*/false};
  const at::Tensor plain_cpu = hidden(cpu->forward(Batch{in.ids, at::ones_like(in.mask), at::Tensor()}));
  EXPECT_LT(enc::max_diff(hidden(gpu->forward(unpadded)), plain_cpu), 1e-4) << "unpadded, float32";
}

// A call whose shape follows the requests skips cuDNN's attention (it builds a graph per shape;
// varying_shape_sdpa in attention.hpp). With cuDNN the only kernel left on, such a call finds none and throws,
// and the switch is back on after the throw; with the others on, the result is the CPU's within bfloat16's
// rounding and the switch as it was.
TEST(CudaPlatform, AttentionOfVaryingShapeSkipsCudnnAndRestoresTheSwitch) {
  FMWORK_NEEDS_GPU();
  auto& ctx = at::globalContext();
  struct Restore {  // the four kernels' switches as they were, however the test ends
    bool flash = at::globalContext().userEnabledFlashSDP();
    bool efficient = at::globalContext().userEnabledMemEfficientSDP();
    bool math = at::globalContext().userEnabledMathSDP(), cudnn = at::globalContext().userEnabledCuDNNSDP();
    ~Restore() {
      auto& c = at::globalContext();
      c.setSDPUseFlash(flash), c.setSDPUseMemEfficient(efficient), c.setSDPUseMath(math), c.setSDPUseCuDNN(cudnn);
    }
  } restore;
  torch::manual_seed(5);
  auto q = torch::randn({3, 4, 40, 64}), k = torch::randn({3, 4, 40, 64}), v = torch::randn({3, 4, 40, 64});
  auto allowed = torch::ones({3, 1, 1, 40}, torch::kBool);
  allowed[2].narrow(2, 30, 10).fill_(false);
  const auto bf16 = [](const at::Tensor& t) { return t.to(torch::Device(torch::kCUDA, 0)).to(torch::kBFloat16); };
  const auto cuda_mask = allowed.to(torch::Device(torch::kCUDA, 0));
  ctx.setSDPUseFlash(false), ctx.setSDPUseMemEfficient(false), ctx.setSDPUseMath(false), ctx.setSDPUseCuDNN(true);
  EXPECT_ANY_THROW(fmwork::hf::varying_shape_sdpa(bf16(q), bf16(k), bf16(v), cuda_mask, true, 0.0, false,
                                                  std::nullopt, false))
      << "cuDNN took a call whose shape varies";
  EXPECT_TRUE(ctx.userEnabledCuDNNSDP()) << "the switch stayed off after the throw";
  ctx.setSDPUseMemEfficient(true), ctx.setSDPUseMath(true);
  const at::Tensor got =
      fmwork::hf::varying_shape_sdpa(bf16(q), bf16(k), bf16(v), cuda_mask, true, 0.0, false, std::nullopt, false);
  EXPECT_TRUE(ctx.userEnabledCuDNNSDP());
  const at::Tensor want = at::scaled_dot_product_attention(q, k, v, allowed);
  EXPECT_LT((got.to(torch::kCPU).to(torch::kFloat) - want).abs().max().item<double>(), 3e-2);
}

// Packed sequences on CUDA (--batching unpadded) go through one variable-length kernel call: flash in
// bfloat16, memory-efficient in float32 (no window there). Each sequence's context is what SDPA gives that
// sequence alone (float32, the pattern's mask from make_attention_mask), with q, k and v strided as a fused
// QKV GEMM leaves them: BERT's plain attention, ModernBERT's bidirectional window, Qwen3's causal attention
// with grouped heads and its causal window. (A refusal here would mean per_sequence runs instead.)
TEST(CudaPlatform, VarlenAttentionMatchesEachSequenceAlone) {
  FMWORK_NEEDS_GPU();
  const auto gpu = torch::TensorOptions().dtype(torch::kBFloat16).device(torch::kCUDA, 0);
  const std::vector<int64_t> lengths = {9, 3, 1, 64, 17};
  const int64_t N = 94, h = 4, d = 32;
  std::vector<int32_t> cu = {0};
  for (const int64_t length : lengths) cu.push_back(cu.back() + static_cast<int32_t>(length));
  const at::Tensor cu_seqlens = torch::tensor(cu, torch::kInt).to(gpu.device());
  const double scale = 1.0 / std::sqrt(static_cast<double>(d));
  const std::vector<std::pair<hf::AttentionPattern, int64_t>> cases = {  // pattern, key/value heads
      {{false, std::nullopt}, 4}, {{false, 4}, 4}, {{false, 0}, 4}, {{true, std::nullopt}, 2}, {{true, 5}, 2}};
  torch::manual_seed(3);
  std::vector<std::tuple<torch::ScalarType, hf::AttentionPattern, int64_t>> runs;
  for (const auto dtype : {torch::kBFloat16, torch::kFloat})
    for (const auto& [pattern, kv] : cases)
      if (dtype != torch::kFloat || !pattern.window) runs.emplace_back(dtype, pattern, kv);  // float32: no window
  for (const auto& [dtype, pattern, kv] : runs) {
    const std::string what = std::string(pattern.causal ? "causal" : "bidirectional") + " window " +
                             (pattern.window ? std::to_string(*pattern.window) : "none") + ", " + std::to_string(kv) +
                             " kv heads, " +
                             c10::toString(dtype);
    const at::Tensor qkv = torch::randn({N, h + 2 * kv, d}, gpu.dtype(dtype));  // one GEMM's output: strided parts
    const at::Tensor q = qkv.narrow(1, 0, h), k = qkv.narrow(1, h, kv), v = qkv.narrow(1, h + kv, kv);
    ASSERT_TRUE(hf::varlen_attention_applies(gpu.device(), dtype, d, pattern)) << what;
    const std::optional<std::string> refused = hf::varlen_attention_refusal(gpu.device(), dtype, h, kv, d, pattern.causal);
    ASSERT_FALSE(refused) << what << ": " << *refused;
    const at::Tensor got = hf::varlen_attention(q, k, v, cu_seqlens, 64, scale, pattern);
    ASSERT_TRUE(got.defined()) << what;
    ASSERT_EQ(got.sizes(), (std::vector<int64_t>{1, N, h * d})) << what;
    for (size_t i = 0; i < lengths.size(); ++i) {
      const auto alone = [&](const at::Tensor& t) {  // [1, heads, length, d] in float32, kv heads repeated
        return t.narrow(0, cu[i], lengths[i]).transpose(0, 1).unsqueeze(0).to(torch::kFloat).repeat_interleave(
            h / t.size(1), 1);
      };
      const hf::AttentionMask mask = hf::make_attention_mask(at::Tensor(), lengths[i], pattern,
                                                             gpu.dtype(torch::kFloat), hf::AttentionImpl::sdpa);
      std::optional<at::Tensor> allowed;
      if (mask.allowed.defined()) allowed = mask.allowed;
      const at::Tensor want = at::scaled_dot_product_attention(alone(q), alone(k), alone(v), allowed, 0.0,
                                                               mask.causal_only, scale)
                                  .squeeze(0).transpose(0, 1).reshape({lengths[i], h * d});
      const at::Tensor mine = got[0].narrow(0, cu[i], lengths[i]).to(torch::kFloat);
      EXPECT_LT((mine - want).abs().max().item<double>(), dtype == torch::kFloat ? 1e-4 : 2e-2)
          << what << ": sequence " << i << " of length " << lengths[i];
    }
  }
}

// Defect 3: MEM parts the weights from the combination's own peak, and the reserved peak is each
// combination's (the larger first combination's cache is handed back before the second's reset).
TEST(CudaPlatform, MemSplitsWeightsFromActivationsAndReservedIsPerCombination) {
  FMWORK_NEEDS_GPU();
  TempDir dir;
  auto cuda = make_platform("cuda", {});
  auto model = tiny_bert(dir, cuda->facts().device);
  InputGenerator inputs(model->facts().tokens, 0);
  const SweepPlan plan = test_support::sweep_of({256, 1}, {32}, 2);  // the tiny BERT has 40 positions
  std::ostringstream out;
  ASSERT_EQ(run_sweep(plan, *model, *cuda, inputs, out), 0) << out.str();
  std::vector<std::map<std::string, int64_t>> mems;
  std::istringstream lines(out.str());
  std::string line;
  while (std::getline(lines, line)) {
    const auto parsed = parse_line(line);
    if (!parsed) continue;
    if (const auto* mem = std::get_if<MemLine>(&*parsed)) {
      std::map<std::string, int64_t> m;
      for (const char* key : {"allocated_peak_bytes", "reserved_peak_bytes", "weights_bytes", "activation_peak_bytes"})
        if (const auto* v = mem->fields.find(key)) m[key] = std::stoll(*v);
      mems.push_back(m);
    }
  }
  ASSERT_EQ(mems.size(), 2u) << out.str();
  for (auto& m : mems) {
    ASSERT_EQ(m.size(), 4u) << out.str();
    EXPECT_GT(m["weights_bytes"], 0);
    EXPECT_EQ(m["activation_peak_bytes"], m["allocated_peak_bytes"] - m["weights_bytes"]);
  }
  EXPECT_LT(mems[1]["reserved_peak_bytes"], mems[0]["reserved_peak_bytes"]) << out.str();
  EXPECT_LT(mems[1]["activation_peak_bytes"], mems[0]["activation_peak_bytes"]) << out.str();
}

// Defects 4 and 5: the GPU's architecture and the matmul precision are in the keys; the eager weights leave
// the device when a package replaces them.
TEST(CudaPlatform, KeysHoldTheArchitectureAndWeightsLeaveTheDevice) {
  FMWORK_NEEDS_GPU();
  auto cuda = make_platform("cuda", {});
  EXPECT_TRUE(std::regex_match(cuda->facts().architecture, std::regex(R"(sm_[0-9]+ cuda=[0-9]+\.[0-9]+)")))
      << cuda->facts().architecture;
  const auto fields = gemm_cache_fields(at::kFloat, *cuda, runtime_info());
  EXPECT_EQ(fields.at("arch"), cuda->facts().architecture);
  EXPECT_NE(fields.at("matmul").find("cublas_tf32="), std::string::npos);
  TempDir dir;
  auto model = tiny_bert(dir, cuda->facts().device);
  cuda->synchronize();
  const int64_t before = c10::cuda::CUDACachingAllocator::getDeviceStats(0).allocated_bytes[0].current;
  model->leave_device();
  const int64_t after = c10::cuda::CUDACachingAllocator::getDeviceStats(0).allocated_bytes[0].current;
  EXPECT_LT(after, before);
  EXPECT_GT(model->facts().parameter_count, 0) << "the facts still answer";
}

// CUDA graphs: the replay of a captured forward gives what the eager model gives, for each new batch copied
// into the static buffers; the COMPILE facts say cudagraphs.
TEST(CudaPlatform, CudaGraphsReplayWhatEagerComputes) {
  FMWORK_NEEDS_GPU();
  auto cuda = make_platform("cuda", {});
  TempDir dir;
  auto eager = tiny_bert(dir, cuda->facts().device);
  CompileOptions options;
  options.backend = "cudagraphs";
  options.raw = Value::of_dict({{"backend", Value::of_string("cudagraphs")}});
  Compiled graphs = compile_model(tiny_bert(dir, cuda->facts().device), CompileRequest{true, true, options, {}}, *cuda);
  // Before the capture admission counts the graph's pool and static inputs over the eager forward; after it
  // the pool is held already (the estimate then says what more the shape needs).
  const uint64_t before_capture = graphs.model->facts().activation_bytes(2, 16);
  EXPECT_GT(before_capture, eager->facts().activation_bytes(2, 16));
  test_support::expect_facts_carried(eager->facts(), graphs.model->facts(), 2, 16);
  const std::optional<CompileFacts> facts = graphs.model->prepare(2, 16);
  ASSERT_TRUE(facts.has_value());
  EXPECT_EQ(facts->backend, "cudagraphs");
  InputGenerator inputs(eager->facts().tokens, 7);
  for (int i = 0; i < 3; ++i) {
    const Batch b = inputs.make(2, 16, cuda->facts().device);
    const Batch& fed = graphs.model->stage(b);
    EXPECT_NE(fed.input_ids.data_ptr(), b.input_ids.data_ptr()) << "copied into the graph's buffers";
    const at::Tensor replayed = hidden(graphs.model->forward(fed));
    cuda->synchronize();
    EXPECT_LT(enc::max_diff(replayed, hidden(eager->forward(b))), 1e-5) << "batch " << i;
  }
  EXPECT_LT(graphs.model->facts().activation_bytes(2, 16), before_capture) << "the captured pool is counted as held";
}

// Energy: NVML's counter is read (Volta and newer) and grows while the GPU works.
TEST(CudaPlatform, EnergyCounterGrowsWithWork) {
  FMWORK_NEEDS_GPU();
  auto cuda = make_platform("cuda", {});
  ASSERT_TRUE(cuda->facts().has_energy) << "no NVML energy counter (libnvidia-ml.so.1, a Volta or newer GPU)";
  EnergyMeter& meter = *cuda->meters().energy;
  const std::optional<double> e0 = meter.joules();
  ASSERT_TRUE(e0.has_value());
  auto a = torch::randn({4096, 4096}, torch::TensorOptions().device(cuda->facts().device));
  const auto t0 = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(500)) {
    a = torch::mm(a, a).div_(4096);
    cuda->synchronize();
  }
  const std::optional<double> e1 = meter.joules();
  ASSERT_TRUE(e1.has_value());
  EXPECT_GT(*e1, *e0);
}

// The power range NVML gives (the enforced limit, the draw read when the platform opened, before any work), and
// the energy window over real work: at least a second and ten counter steps, its mean power inside that range.
TEST(CudaPlatform, EnergyWindowOverRealWorkIsInsideThePowerRange) {
  FMWORK_NEEDS_GPU();
  auto cuda = make_platform("cuda", {});
  const PowerRange range = cuda->facts().power_range;
  ASSERT_TRUE(range.limit_watts && range.idle_watts) << "NVML gives no enforced power limit or power draw";
  EXPECT_GT(*range.limit_watts, *range.idle_watts);
  auto a = torch::randn({4096, 4096}, torch::TensorOptions().device(cuda->facts().device));
  const std::optional<DeviceEnergy> energy = measure_device_energy(*cuda, [&] {
    a = torch::mm(a, a).div_(4096);
    cuda->synchronize();
  });
  ASSERT_TRUE(energy.has_value());
  ASSERT_TRUE(energy->window.has_value()) << energy->why_not;
  EXPECT_GE(energy->window->seconds, 1.0);
  EXPECT_GE(energy->window->updates, 10);
  EXPECT_LE(energy->window->watts(), *range.limit_watts * 1.05);
}

// Defect 6: a device-side assert poisons the context; the platform names it as unrecoverable. It kills the
// process's CUDA for good, so it runs alone (scripts/gpu-check.sh, step sticky: FMWORK_CUDA_POISON_TEST=1).
TEST(CudaPoison, ADeviceSideAssertIsUnrecoverable) {
  if (std::getenv("FMWORK_CUDA_POISON_TEST") == nullptr)
    GTEST_SKIP() << "poisons this process's CUDA context: run alone with FMWORK_CUDA_POISON_TEST=1";
  FMWORK_NEEDS_GPU();
  auto cuda = make_platform("cuda", {});
  std::string failure;
  try {
    auto table = torch::zeros({4, 4}, torch::TensorOptions().device(cuda->facts().device));
    auto index = torch::full({2}, 1000, torch::TensorOptions().dtype(torch::kLong).device(cuda->facts().device));
    auto picked = at::embedding(table, index);  // an index past the table: the kernel's assert
    cuda->synchronize();
  } catch (const std::exception& e) {
    failure = e.what();
  }
  ASSERT_FALSE(failure.empty()) << "the out-of-range index raised nothing";
  const std::optional<std::string> fatal = cuda->unrecoverable_error(failure);
  ASSERT_TRUE(fatal.has_value()) << failure;
  EXPECT_EQ(fatal->rfind("cuda:0: ", 0), 0u) << *fatal;
  EXPECT_NE(fatal->find("cannot recover"), std::string::npos) << *fatal;
}
#endif

}  // namespace
}  // namespace fmwork
