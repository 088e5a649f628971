// The fields of our key=value log lines as data (see log_fields.hpp).
#include "fmwork/log/log_fields.hpp"

#include <algorithm>

#include "fmwork/base/text_format.hpp"

namespace fmwork {

const FieldSpec* LineSpec::find(std::string_view key) const {
  for (const FieldSpec& f : fields) {
    if (f.key == key) return &f;
  }
  if (by_suffix && ends_with(key, by_suffix->key)) return &*by_suffix;
  return nullptr;
}

namespace {

std::vector<const FieldSpec*> columns(const LineSpec& spec, ReportColumn FieldSpec::*column) {
  std::vector<const FieldSpec*> out;
  for (const FieldSpec& f : spec.fields) {
    if (!(f.*column).header.empty()) out.push_back(&f);
  }
  std::stable_sort(out.begin(), out.end(),
                   [column](const FieldSpec* a, const FieldSpec* b) { return (a->*column).rank < (b->*column).rank; });
  return out;
}

}  // namespace

std::vector<const FieldSpec*> LineSpec::csv_columns() const { return columns(*this, &FieldSpec::csv); }
std::vector<const FieldSpec*> LineSpec::summary_columns() const { return columns(*this, &FieldSpec::summary); }

}  // namespace fmwork
