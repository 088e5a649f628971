// The family table (hf/family_table): rows in Family's order, names no two rows share, and the lists and
// messages read from it. The lists are spelt out here as users see them today: a row changes them on purpose.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fmwork/base/error.hpp"
#include "fmwork/hf/config.hpp"
#include "fmwork/hf/family_table.hpp"

namespace {

using fmwork::hf::Family;
using fmwork::hf::FamilyRow;
using fmwork::hf::kFamilies;
using fmwork::hf::ModelTypeName;

TEST(FamilyTable, RowsAreInFamilyOrderAndNoTwoShareAName) {
  std::set<std::string> names, types, stems;
  for (const FamilyRow& row : kFamilies) {
    EXPECT_EQ(&fmwork::hf::family_row(row.family), &row) << row.name;
    EXPECT_TRUE(names.insert(row.name).second) << row.name;
    for (const ModelTypeName& type : row.model_types) {
      if (!type.model_type) continue;
      EXPECT_TRUE(types.insert(type.model_type).second) << type.model_type;
      EXPECT_TRUE(stems.insert(type.class_stem).second) << type.class_stem;
      EXPECT_EQ(fmwork::hf::family_of_model_type(type.model_type), row.family) << type.model_type;
    }
  }
  // A class is matched to its family by its stem's prefix: no stem may begin another (nor Auto's).
  stems.insert("Auto");
  for (const std::string& a : stems)
    for (const std::string& b : stems)
      if (a != b) EXPECT_NE(b.rfind(a, 0), 0u) << a << " begins " << b;
  EXPECT_EQ(fmwork::hf::family_of_model_type("camembert"), std::nullopt);
  EXPECT_EQ(fmwork::hf::base_class_of("camembert"), "");
}

TEST(FamilyTable, ListsAndFactsComeFromTheRows) {
  const std::vector<std::string> types = {"bert", "roberta", "xlm-roberta", "distilbert", "modernbert", "qwen3"};
  EXPECT_EQ(fmwork::hf::supported_model_types(), types);
  const std::vector<std::string> classes = {"BertModel",       "RobertaModel",    "XLMRobertaModel",
                                            "DistilBertModel", "ModernBertModel", "Qwen3Model"};
  EXPECT_EQ(fmwork::hf::native_base_classes(), classes);
  for (size_t i = 0; i < types.size(); ++i) EXPECT_EQ(fmwork::hf::base_class_of(types[i]), classes[i]);
  std::vector<std::string> pooled, rotary, gated, after_pad;
  for (const FamilyRow& row : kFamilies) {
    if (row.pooler) pooled.push_back(row.name);
    if (row.rotary) rotary.push_back(row.name);
    if (row.gated) gated.push_back(row.name);
    if (row.after_pad) after_pad.push_back(row.name);
  }
  EXPECT_EQ(pooled, (std::vector<std::string>{"bert", "roberta"}));
  EXPECT_EQ(rotary, (std::vector<std::string>{"modernbert", "qwen3"}));
  EXPECT_EQ(gated, rotary);
  EXPECT_EQ(after_pad, (std::vector<std::string>{"roberta"}));  // xlm-roberta too: one row
  EXPECT_EQ(std::string(fmwork::hf::family_row(Family::roberta).weight_prefix), "roberta.");
  EXPECT_EQ(std::string(fmwork::hf::family_row(Family::qwen3).weight_prefix), "model.");
}

TEST(FamilyTable, AModelTypeOfNoRowIsRefusedWithTheTablesList) {
  try {
    fmwork::hf::parse_config(nlohmann::json{{"model_type", "camembert"}}, "m/config.json");
    FAIL() << "camembert parsed";
  } catch (const fmwork::Error& e) {
    EXPECT_EQ(e.kind(), fmwork::ErrorKind::usage);
    EXPECT_EQ(std::string(e.what()),
              "m/config.json: model_type \"camembert\" is not supported by the native encoder (supported: bert, "
              "roberta, xlm-roberta, distilbert, modernbert, qwen3)");
  }
}

// Where positions start, for the checks made before loading: a family's after_pad for its model types, the
// compiled model types' table for camembert and mpnet (their config.json's longest input leaves pad_token_id + 1
// out, 514 - 2 = 512), positions from 0 for a type neither table names.
TEST(FamilyTable, PositionsAfterPadComeFromTheFamiliesAndTheCompiledTypes) {
  std::vector<std::string> after_pad;
  for (const std::string& type : {"bert", "roberta", "xlm-roberta", "qwen3", "camembert", "mpnet", "electra", ""})
    if (fmwork::hf::positions_after_pad(type)) after_pad.push_back(type);
  EXPECT_EQ(after_pad, (std::vector<std::string>{"roberta", "xlm-roberta", "camembert", "mpnet"}));
  for (const auto& compiled : fmwork::hf::kCompiledModelTypes) EXPECT_EQ(fmwork::hf::base_class_of(compiled.model_type), "");
  const auto longest = [](const std::string& type, int64_t pad) {
    return fmwork::hf::max_input_size_of(
        nlohmann::json{{"model_type", type}, {"max_position_embeddings", 514}, {"pad_token_id", pad}}, "m/config.json");
  };
  EXPECT_EQ(longest("camembert", 1), 512);
  EXPECT_EQ(longest("mpnet", 3), 510);
  EXPECT_EQ(longest("electra", 1), 514);
  try {
    longest("mpnet", 513);
    FAIL() << "no positions left, accepted";
  } catch (const fmwork::Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "m/config.json: max_position_embeddings (514) leaves no positions after pad_token_id (513) + 1");
  }
}

}  // namespace
