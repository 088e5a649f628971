// The family dispatch (encoders/families) against the family table: every model_type of every row is selected
// by its class and by AutoModel, refused under another row's class, loaded with random weights and run, with
// a pooler exactly when its row has one. A new row runs here as soon as tests/support has its tiny config.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "fmwork/base/error.hpp"
#include "fmwork/hf/family_table.hpp"
#include "fmwork/loaders/hf_model.hpp"
#include "support/test_support.hpp"

namespace {

using namespace fmwork::test_support::encoders;  // tiny_config, load, outputs; Batch, ErrorKind, TempDir
using fmwork::hf::FamilyRow;
using fmwork::hf::ModelTypeName;

// A class of another row than `row`, to be refused for a config of `row`.
std::string other_class(const FamilyRow& row) {
  for (const ModelTypeName& type : fmwork::hf::model_type_names())
    if (fmwork::hf::family_of_model_type(type.model_type) != row.family) return std::string(type.class_stem) + "Model";
  return "";
}

TEST(Families, EveryRowOfTheTableIsSelectedLoadedAndRun) {
  for (const FamilyRow& row : fmwork::hf::kFamilies)
    for (const ModelTypeName& type : row.model_types) {
      if (!type.model_type) continue;
      SCOPED_TRACE(type.model_type);
      const std::string cls = std::string(type.class_stem) + "Model";
      const nlohmann::json cfg = tiny_config(type.model_type);
      const fmwork::hf::EncoderConfig config = fmwork::hf::parse_config(cfg, "config.json");
      EXPECT_EQ(config.family, row.family);
      EXPECT_EQ(config.base_class(), cls);
      EXPECT_NO_THROW(fmwork::hf::check_model_class(cls, config));
      EXPECT_NE(error_of([&] { fmwork::hf::check_model_class(other_class(row), config); }, ErrorKind::usage)
                    .find("use --model_class " + cls + " (or AutoModel)"),
                std::string::npos);
      EXPECT_NE(error_of([&] { fmwork::hf::check_model_class(type.class_stem + std::string("ForMaskedLM"), config); },
                         ErrorKind::usage)
                    .find("use --model_class " + cls + " (or AutoModel)"),
                std::string::npos);
      TempDir dir;
      fmwork::test_support::write_file(dir.file("config.json"), cfg.dump());
      ModelOptions opt;
      opt.random_weights = true;
      for (const std::string& chosen : {cls, std::string("AutoModel")}) {
        auto model = load(dir.path(), chosen, opt);
        EXPECT_NE(model->facts().description.find("native encoder: " + cls), std::string::npos)
            << model->facts().description;
        Inputs in = tiny_inputs(cfg.value("pad_token_id", 0), false);
        auto [hidden, pooled] = outputs(model->forward(Batch{in.ids, in.mask, in.types}));
        EXPECT_EQ(hidden.size(0), in.ids.size(0));
        EXPECT_TRUE(at::isfinite(hidden).all().item<bool>());
        EXPECT_EQ(pooled.defined(), row.pooler);
      }
    }
}

}  // namespace
