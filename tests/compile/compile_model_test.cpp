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
  EXPECT_NE(aot_eager.find("torchscript, inductor"), std::string::npos) << aot_eager;
  // Not "needs --platform cuda": no platform of this driver captures CUDA graphs yet.
  const std::string graphs = message(true, "cudagraphs");
  EXPECT_NE(graphs.find("capture CUDA graphs, which this driver does not do yet; use --compile:backend inductor"),
            std::string::npos) << graphs;
}

}  // namespace
}  // namespace fmwork
