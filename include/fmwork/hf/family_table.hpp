// The native families, one row each: the only list of them. The Family enum, the model_types config.json may
// name, the --model_class names that select each, the checkpoint prefix, the pooler rule and the shape facts
// the FLOPs count reads all come from FMWORK_NATIVE_FAMILIES; so do supported_model_types(), the loader's
// class list, its "did you mean" and refusals. The encoders' dispatch (src/encoders/families.cpp) is a switch
// over Family with no default, compiled with -Werror=switch: a row whose forward pass is not wired there
// fails to compile instead of running as another family.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

// One row a family: FAMILY(name, prefix, pooler, rotary, gated, after_pad, model types...).
//   name     the Family enumerator (and the family's name in messages and tests)
//   prefix   the base model's checkpoint prefix, stripped from weight names ("bert.")
//   pooler   whether the base model has a pooler (BertModel's pooler.dense; --model:add_pooling_layer)
//   rotary   rotary position embeddings in attention and no position table (ModernBERT, Qwen3)
//   gated    a gated feed-forward (gate and up, then down) rather than up then down
//   after_pad position ids start after the padding index (pad_token_id + 1 on, the pad's row zero; its config
//            class's pad_token_id is 1 and may not be null), as transformers' create_position_ids_from_input_ids
//   model types, in the order messages list them: {model_type, class stem} each; the stem followed by "Model"
//   is the --model_class that runs it, followed by "For..." or "LMHead..." a task head, refused.
// roberta covers xlm-roberta (same modules and names).
#define FMWORK_NATIVE_FAMILIES(FAMILY)                                                                          \
  FAMILY(bert, "bert.", true, false, false, false, {"bert", "Bert"})                                            \
  FAMILY(roberta, "roberta.", true, false, false, true, {"roberta", "Roberta"}, {"xlm-roberta", "XLMRoberta"})  \
  FAMILY(distilbert, "distilbert.", false, false, false, false, {"distilbert", "DistilBert"})                    \
  FAMILY(modernbert, "model.", false, true, true, false, {"modernbert", "ModernBert"})                           \
  FAMILY(qwen3, "model.", false, true, true, false, {"qwen3", "Qwen3"})

namespace fmwork::hf {

#define FMWORK_FAMILY_ENUMERATOR(name, ...) name,
enum class Family { FMWORK_NATIVE_FAMILIES(FMWORK_FAMILY_ENUMERATOR) };
#undef FMWORK_FAMILY_ENUMERATOR

// One model_type of a family and the class stem of its transformers classes.
struct ModelTypeName {
  const char* model_type = nullptr;  // nullptr: an unused place of FamilyRow::model_types
  const char* class_stem = nullptr;
};

// The most model_types one family has (a row with more does not compile).
inline constexpr size_t kMaxModelTypesPerFamily = 2;

// A row of FMWORK_NATIVE_FAMILIES (see there for the columns).
struct FamilyRow {
  Family family;
  const char* name;
  const char* weight_prefix;
  bool pooler, rotary, gated, after_pad;
  ModelTypeName model_types[kMaxModelTypesPerFamily];
};

#define FMWORK_FAMILY_ROW(name, prefix, pooler, rotary, gated, after_pad, ...) \
  FamilyRow{Family::name, #name, prefix, pooler, rotary, gated, after_pad, {__VA_ARGS__}},
// Every family, in Family's order: kFamilies[static_cast<size_t>(f)].family == f.
inline constexpr FamilyRow kFamilies[] = {FMWORK_NATIVE_FAMILIES(FMWORK_FAMILY_ROW)};
#undef FMWORK_FAMILY_ROW

// Model types no family runs natively (they run through --compile, from transformers' own class) whose config.json
// rule the checks made before loading need: the after_pad column of the families' rows, for types whose
// transformers class takes positions after the padding index too (max_input_size_of, config.hpp). A type
// without a row here or in FMWORK_NATIVE_FAMILIES has positions from 0. No row names a native model type.
struct CompiledModelTypeRow {
  const char* model_type;
  bool after_pad;
};
inline constexpr CompiledModelTypeRow kCompiledModelTypes[] = {{"camembert", true}, {"mpnet", true}};

// The row of `family`.
const FamilyRow& family_row(Family family);

// Whether the position ids of `model_type` start after the padding index: its family's after_pad, else its
// kCompiledModelTypes row's; false for a model_type neither table names.
bool positions_after_pad(const std::string& model_type);

// The family config.json's `model_type` names, or nothing for a model_type no row has.
std::optional<Family> family_of_model_type(const std::string& model_type);

// Every row's model types, in table order (the unused places left out).
const std::vector<ModelTypeName>& model_type_names();

// Every model_type of every row, in table order: "bert", "roberta", "xlm-roberta", ... (for messages and docs).
const std::vector<std::string>& supported_model_types();

// The base model class that runs `model_type` ("XLMRobertaModel" for "xlm-roberta"); empty for a model_type
// no row has.
std::string base_class_of(const std::string& model_type);

// Every row's base model classes, in table order: "BertModel", "RobertaModel", "XLMRobertaModel", ...
std::vector<std::string> native_base_classes();

}  // namespace fmwork::hf
