// Byte sizes and aligned tables for people (see text_format.hpp).
#include "fmwork/base/text_format.hpp"

#include <algorithm>
#include <iterator>

#include <fmt/format.h>

namespace fmwork {

std::string bytes_text(uint64_t bytes, int decimals, ByteUnit unit) {
  static const char* const kUnits[] = {"KiB", "MiB", "GiB", "TiB"};
  if (unit == ByteUnit::automatic && bytes < 1024) return fmt::format("{} B", bytes);
  double value = static_cast<double>(bytes) / 1024;
  size_t u = 0;
  if (unit == ByteUnit::automatic) {
    for (; value >= 1024 && u + 1 < std::size(kUnits); ++u) value /= 1024;
  } else {
    for (; u < static_cast<size_t>(unit) - static_cast<size_t>(ByteUnit::KiB); ++u) value /= 1024;
  }
  return fmt::format("{:.{}f} {}", value, std::max(decimals, 0), kUnits[u]);
}

size_t display_width(const std::string& text) {
  return static_cast<size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xc0) != 0x80;
  }));
}

std::string aligned_table(const std::vector<std::vector<std::string>>& rows, const TableLayout& layout) {
  if (rows.empty()) return "";
  const size_t columns = rows.front().size();
  std::vector<size_t> width(columns, 0);
  for (size_t c = 0; c < columns && c < layout.min_width.size(); ++c) width[c] = layout.min_width[c];
  for (size_t r = layout.first_row_sets_width ? 0 : 1; r < rows.size(); ++r)
    for (size_t c = 0; c < columns && c < rows[r].size(); ++c) width[c] = std::max(width[c], display_width(rows[r][c]));
  std::string out;
  for (const auto& row : rows) {
    std::string line = layout.margin;
    for (size_t c = 0; c < columns; ++c) {
      const std::string cell = c < row.size() ? row[c] : "";
      const std::string pad(width[c] - std::min(width[c], display_width(cell)), ' ');
      const bool right = c < layout.right.size() && layout.right[c];
      const bool last = c + 1 == columns;  // a left-aligned last column is not padded: nothing follows it
      line += (c > 0 ? "  " : "") + (right ? pad + cell : last ? cell : cell + pad);
    }
    if (layout.trim) line.erase(line.find_last_not_of(' ') + 1);
    out += line + "\n";
  }
  return out;
}

}  // namespace fmwork
