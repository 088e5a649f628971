// TorchScript models written by make_model (Module::define + save), loaded and run through load_model.
#include "fmwork/loaders/torchscript_model.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "fmwork/base/error.hpp"
#include "fmwork/model/inputs.hpp"
#include "fmwork/loaders/model_loader.hpp"
#include "support/test_support.hpp"

namespace fmwork {
namespace {

using fmwork::TempDir;
using fmwork::test_support::expect_error;

std::string make(const TempDir& dir, const std::string& name, std::vector<std::string> extra = {}) {
  return fmwork::test_support::make_small_torchscript(dir, name, std::move(extra));
}

LoadRequest request(const std::string& path, ModelOptions options = {}) {
  return LoadRequest{path, "BertModel", options, torch::kCPU};
}

Batch batch(int64_t b, int64_t l) { return InputGenerator(TokenFacts{50, {0}}, 1).make(b, l, torch::kCPU); }

TEST(TorchScriptModel, RunsEveryOutputKind) {
  TempDir dir;
  for (std::string kind : {"tensor", "tuple", "list", "dict"}) {
    auto model = load_model(request(make(dir, kind, {"--output", kind})));
    auto out = model->forward(batch(2, 5));
    torch::Tensor hidden = out.isTensor() ? out.toTensor()
                           : out.isTuple() ? out.toTuple()->elements()[0].toTensor()
                           : out.isList()  ? out.toList().get(0).toTensor()
                                           : out.toGenericDict().at("last_hidden_state").toTensor();
    EXPECT_EQ(hidden.sizes(), (std::vector<int64_t>{2, 5, 16})) << kind;
  }
}

TEST(TorchScriptModel, FeedsInputsByNameInSchemaOrder) {
  TempDir dir;
  auto path = make(dir, "reordered", {"--inputs", "input_ids,token_type_ids,attention_mask"});
  auto model = load_model(request(path));
  EXPECT_NE(model->facts().description.find("inputs fed: input_ids, token_type_ids, attention_mask"), std::string::npos)
      << model->facts().description;
  Batch b = batch(2, 6);
  b.attention_mask.index_put_({0, torch::indexing::Slice(3)}, 0);  // masking must reach the right argument
  auto module = torch::jit::load(path);
  auto expected = module.forward({b.input_ids, b.token_type_ids, b.attention_mask}).toTensor();
  EXPECT_TRUE(torch::allclose(model->forward(b).toTensor(), expected));
  auto wrong = module.forward({b.input_ids, b.attention_mask, b.token_type_ids}).toTensor();
  EXPECT_FALSE(torch::allclose(wrong, expected));
}

TEST(TorchScriptModel, FeedsASubsetOfInputs) {
  TempDir dir;
  auto model = load_model(request(make(dir, "ids-only", {"--inputs", "input_ids"})));
  EXPECT_NE(model->facts().description.find("inputs fed: input_ids\n"), std::string::npos) << model->facts().description;
  EXPECT_EQ(model->forward(batch(1, 4)).toTensor().size(1), 4);
}

// Arguments after the fed ones keep their defaults: forward(input_ids, attention_mask, scale=3.0,
// position_ids=None) is fed two tensors and runs with scale 3 and no position ids.
TEST(TorchScriptModel, ArgumentsAfterTheFedOnesKeepTheirDefaults) {
  TempDir dir;
  torch::jit::Module m("Defaults");
  m.define(R"(
def forward(self, input_ids, attention_mask, scale: float = 3.0, position_ids: Optional[Tensor] = None):
    out = input_ids.float() * scale
    if position_ids is not None:
        out = out + 1000.0
    return out
)");
  const std::string path = dir.file("defaults/model.pt");
  std::filesystem::create_directories(dir.file("defaults"));
  m.save(path);
  ModelOptions o;
  o.vocab_size = 50;
  auto model = load_model(request(path, o));
  EXPECT_NE(model->facts().description.find("inputs fed: input_ids, attention_mask\n"), std::string::npos) << model->facts().description;
  Batch b = batch(2, 3);
  for (int i = 0; i < 2; ++i)  // twice: the kept stack is refilled
    EXPECT_TRUE(torch::equal(model->forward(b).toTensor(), b.input_ids.to(torch::kFloat) * 3.0));
}

TEST(TorchScriptModel, RefusesASignatureItCannotFeedQuotingTheSchema) {
  TempDir dir;
  auto path = make(dir, "unfeedable", {"--kind", "unfeedable"});
  Error e = expect_error([&] { load_model(request(path)); });
  EXPECT_EQ(e.kind(), ErrorKind::usage);
  EXPECT_NE(std::string(e.what()).find("cannot feed forward: argument 'x'"), std::string::npos) << e.what();
  EXPECT_NE(std::string(e.what()).find("schema: forward("), std::string::npos) << e.what();
}

TEST(TorchScriptModel, VocabularyFromConfigOrOption) {
  TempDir dir;
  auto with_config = load_model(request(make(dir, "cfg")));
  EXPECT_EQ(with_config->facts().tokens.vocab_size, 50);
  // config.json names pad 0, cls 101, sep 102; ids outside the 50-token vocabulary are dropped.
  EXPECT_EQ(with_config->facts().tokens.special_ids, std::vector<int64_t>{0});

  auto path = make(dir, "bare", {"--no_config"});
  Error e = expect_error([&] { load_model(request(path)); });
  EXPECT_EQ(e.kind(), ErrorKind::usage);
  EXPECT_NE(std::string(e.what()).find("--model:vocab_size@ N"), std::string::npos) << e.what();
  ModelOptions options;
  options.vocab_size = 40;
  EXPECT_EQ(load_model(request(path, options))->facts().tokens.vocab_size, 40);
}

TEST(TorchScriptModel, CastsToTheRequestedDtype) {
  TempDir dir;
  ModelOptions options;
  options.dtype = "bfloat16";
  auto model = load_model(request(make(dir, "bf16"), options));
  EXPECT_EQ(model->facts().dtype_name, "bfloat16");
  EXPECT_EQ(model->forward(batch(1, 4)).toTensor().scalar_type(), torch::kBFloat16);
}

TEST(TorchScriptModel, BadPathsAndFiles) {
  TempDir dir;
  Error missing = expect_error([&] { load_model(request(dir.file("nope.pt"))); });
  EXPECT_EQ(missing.kind(), ErrorKind::usage);
  EXPECT_NE(std::string(missing.what()).find("nope.pt does not exist"), std::string::npos) << missing.what();

  fmwork::test_support::write_file(dir.file("config.json"), "{\"vocab_size\": 10}");
  fmwork::test_support::write_file(dir.file("garbage.pt"), "this is not a zip archive");
  Error garbage = expect_error([&] { load_model(request(dir.file("garbage.pt"))); });
  EXPECT_EQ(garbage.kind(), ErrorKind::usage);
  EXPECT_NE(std::string(garbage.what()).find("garbage.pt: not a TorchScript archive (torch.jit.save writes a zip; "),
            std::string::npos)
      << garbage.what();
}

TEST(TorchScriptModel, RefusesHuggingFaceOnlyOptions) {
  TempDir dir;
  ModelOptions options;
  options.attn_implementation = "sdpa";
  Error e = expect_error([&] { load_model(request(make(dir, "m"), options)); });
  EXPECT_NE(std::string(e.what()).find("--model:attn_implementation applies to Hugging Face model folders"),
            std::string::npos)
      << e.what();
  ModelOptions epilogue;
  epilogue.gelu_epilogue = true;
  e = expect_error([&] { load_model(request(make(dir, "m2"), epilogue)); });
  EXPECT_NE(std::string(e.what()).find("--model:gelu_epilogue applies to Hugging Face model folders"), std::string::npos)
      << e.what();
}

}  // namespace
}  // namespace fmwork
