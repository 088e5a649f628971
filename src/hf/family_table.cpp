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

}  // namespace

const FamilyRow& family_row(Family family) { return kFamilies[static_cast<size_t>(family)]; }

std::optional<Family> family_of_model_type(const std::string& model_type) {
  for (const FamilyRow& row : kFamilies)
    for (const ModelTypeName& type : row.model_types)
      if (type.model_type && model_type == type.model_type) return row.family;
  return std::nullopt;
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
