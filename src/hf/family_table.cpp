// The lists and look-ups read from the family table. See include/fmwork/hf/family_table.hpp.
#include "fmwork/hf/family_table.hpp"

#include <iterator>

namespace fmwork::hf {
namespace {

constexpr bool rows_in_enum_order() {
  for (size_t i = 0; i < std::size(kFamilies); ++i)
    if (static_cast<size_t>(kFamilies[i].family) != i || !kFamilies[i].model_types[0].model_type) return false;
  return true;
}
static_assert(rows_in_enum_order(), "family_row() indexes kFamilies by Family; every row names a model_type");

constexpr bool same(const char* a, const char* b) {
  while (*a && *a == *b) ++a, ++b;
  return *a == *b;
}

constexpr bool compiled_types_are_not_native() {
  for (const CompiledModelTypeRow& compiled : kCompiledModelTypes)
    for (const FamilyRow& row : kFamilies)
      for (const ModelTypeName& type : row.model_types)
        if (type.model_type && same(type.model_type, compiled.model_type)) return false;
  return true;
}
static_assert(compiled_types_are_not_native(), "a model_type is a family's or in kCompiledModelTypes, not both");

}  // namespace

const FamilyRow& family_row(Family family) { return kFamilies[static_cast<size_t>(family)]; }

std::optional<Family> family_of_model_type(const std::string& model_type) {
  for (const FamilyRow& row : kFamilies)
    for (const ModelTypeName& type : row.model_types)
      if (type.model_type && model_type == type.model_type) return row.family;
  return std::nullopt;
}

bool positions_after_pad(const std::string& model_type) {
  if (const std::optional<Family> family = family_of_model_type(model_type)) return family_row(*family).after_pad;
  for (const CompiledModelTypeRow& row : kCompiledModelTypes)
    if (model_type == row.model_type) return row.after_pad;
  return false;
}

const std::vector<ModelTypeName>& model_type_names() {
  static const std::vector<ModelTypeName> names = [] {
    std::vector<ModelTypeName> out;
    for (const FamilyRow& row : kFamilies)
      for (const ModelTypeName& type : row.model_types)
        if (type.model_type) out.push_back(type);
    return out;
  }();
  return names;
}

const std::vector<std::string>& supported_model_types() {
  static const std::vector<std::string> types = [] {
    std::vector<std::string> out;
    for (const ModelTypeName& type : model_type_names()) out.push_back(type.model_type);
    return out;
  }();
  return types;
}

std::string base_class_of(const std::string& model_type) {
  for (const ModelTypeName& type : model_type_names())
    if (model_type == type.model_type) return std::string(type.class_stem) + "Model";
  return "";
}

std::vector<std::string> native_base_classes() {
  std::vector<std::string> out;
  for (const ModelTypeName& type : model_type_names()) out.push_back(std::string(type.class_stem) + "Model");
  return out;
}

}  // namespace fmwork::hf
