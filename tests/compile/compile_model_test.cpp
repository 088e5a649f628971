// --compile on the cpu platform: the torchscript backend (freeze + optimize_for_inference) against eager,
// and the refusals of what this build cannot compile.
#include "fmwork/compile/compile_model.hpp"

#include <gtest/gtest.h>

#include "fmwork/base/error.hpp"
#include "fmwork/model/inputs.hpp"
#include "fmwork/loaders/model_loader.hpp"
#include "fmwork/platform/platform_registry.hpp"
#include "support/test_support.hpp"

namespace fmwork {
namespace {

using fmwork::test_support::expect_error;
using fmwork::TempDir;

LoadRequest request(const std::string& path) { return LoadRequest{path, "BertModel", {}, torch::kCPU}; }

Batch batch(int64_t b, int64_t l) { return InputGenerator(TokenFacts{50, {0}}, 1).make(b, l, torch::kCPU); }

TEST(Compile, TorchscriptBackendMatchesEager) {
  TempDir dir;
  auto path = fmwork::test_support::make_small_torchscript(dir, "m");
  auto platform = make_platform("cpu", {});
  auto eager = load_model(request(path));
  eager->eval();
  auto compiled = load_model(request(path));
  compiled->eval();
  Compiled result = compile_model(std::move(compiled), CompileRequest{true, true, {}, {}}, *platform);
  compiled = std::move(result.model);
  ASSERT_FALSE(result.notes.empty());
  EXPECT_NE(result.notes.back().find("torchscript"), std::string::npos);
  torch::NoGradGuard no_grad;
  Batch b = batch(2, 8);
  EXPECT_TRUE(torch::allclose(compiled->forward(b).toTensor(), eager->forward(b).toTensor(), 1e-5, 1e-5));
}

TEST(Compile, RefusesWhatItCannotDo) {
  TempDir dir;
  auto path = fmwork::test_support::make_small_torchscript(dir, "m");
  auto platform = make_platform("cpu", {});
  auto message = [&](bool eval, const std::string& backend) {
    CompileOptions options;
    if (!backend.empty()) {
      options.backend = backend;
      options.raw = Value::of_dict({{"backend", Value::of_string(backend)}});
    }
    return std::string(expect_error([&] {
                         compile_model(load_model(request(path)),
                                       CompileRequest{true, eval, options, ModelSource{path, "BertModel"}}, *platform);
                       }).what());
  };
  EXPECT_NE(message(false, "").find("needs eval mode: add --eval"), std::string::npos);
  auto inductor = message(true, "inductor");
  EXPECT_NE(inductor.find("--compile:backend inductor: " + path + " is not a Hugging Face model folder"),
            std::string::npos)
      << inductor;
  EXPECT_NE(inductor.find("--compile:backend torchscript"), std::string::npos) << inductor;
  auto aot_eager = message(true, "aot_eager");
  EXPECT_NE(aot_eager.find("--compile:backend aot_eager: not available here"), std::string::npos) << aot_eager;
  EXPECT_NE(aot_eager.find("torchscript, inductor, cudagraphs"), std::string::npos) << aot_eager;
  const std::string graphs = message(true, "cudagraphs");
  EXPECT_EQ(graphs.rfind("--compile:backend cudagraphs captures CUDA graphs, which need --platform cuda (this run: "
                         "--platform cpu)", 0), 0u) << graphs;
}

// CUDA graphs off cuda: one refusal, one wording, made before the model is loaded (the driver calls it
// first), whichever backend the graphs were to go around.
TEST(Compile, CudaGraphsAreRefusedOffCudaBeforeLoading) {
  auto cpu = make_platform("cpu", {});
  CompileOptions mode;
  mode.mode = "reduce-overhead";
  const std::string m = expect_error([&] { check_compile_request(true, mode, *cpu); }).what();
  EXPECT_EQ(m.rfind("--compile:mode reduce-overhead captures CUDA graphs, which need --platform cuda", 0), 0u) << m;
  EXPECT_NO_THROW(check_compile_request(false, mode, *cpu)) << "without --compile nothing is compiled";
  mode.disable = true;
  EXPECT_NO_THROW(check_compile_request(true, mode, *cpu));
  CompileOptions plain;
  EXPECT_NO_THROW(check_compile_request(true, plain, *cpu));
  EXPECT_FALSE(wants_cuda_graphs(true, plain));
}

}  // namespace
}  // namespace fmwork
