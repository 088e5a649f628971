// Byte sizes and aligned tables for people (see text_format.hpp).
#include "fmwork/base/text_format.hpp"

#include "fmwork/base/error.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
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

namespace {

std::string ascii_lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

size_t edit_distance(const std::string& a, const std::string& b) {
  const std::string x = a.substr(0, kMaxNameBytes), y = b.substr(0, kMaxNameBytes);
  std::vector<size_t> row(y.size() + 1);  // one row of the table: distances of x[0, i) to y[0, j)
  for (size_t j = 0; j <= y.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= x.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= y.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (x[i - 1] == y[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[y.size()];
}

std::optional<std::string> closest_option(const std::string& word, const std::vector<std::string>& names) {
  std::optional<std::string> best;
  if (word.size() > kMaxNameBytes) return best;  // no name is this long: a pasted value is no typo of one
  size_t best_distance = std::max<size_t>(2, word.size() / 3) + 1;
  const std::string lower_word = ascii_lower(word);  // SDPA is sdpa's: a case is no distance
  for (const std::string& name : names) {
    const size_t d = edit_distance(lower_word, ascii_lower(name));
    if (d < best_distance) best = name, best_distance = d;
  }
  return best;
}

std::optional<std::string> one_typo_from(const std::string& word, const std::vector<std::string>& names) {
  const std::string w = ascii_lower(word);
  for (const std::string& name : names) {
    const std::string n = ascii_lower(name);
    if (w.size() > kMaxNameBytes || n.size() > kMaxNameBytes) continue;  // edit_distance looks at 64 bytes
    if (edit_distance(w, n) <= 1) return name;
    if (w.size() != n.size()) continue;
    size_t first = 0;  // a swap: the words differ in exactly two neighbouring places, crosswise
    while (first < w.size() && w[first] == n[first]) ++first;
    if (first + 1 < w.size() && w[first] == n[first + 1] && w[first + 1] == n[first] &&
        w.compare(first + 2, std::string::npos, n, first + 2, std::string::npos) == 0)
      return name;
  }
  return std::nullopt;
}

std::string did_you_mean(const std::optional<std::string>& name) {
  return name ? "; did you mean " + *name + "?" : std::string();
}

std::string plural(size_t n, const std::string& word) { return std::to_string(n) + " " + word + (n == 1 ? "" : "s"); }

std::string joined(const std::vector<std::string>& items, const std::string& separator) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? separator : "") + items[i];
  return out;
}

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> pieces;
  for (;;) {
    const size_t at = text.find(separator);
    pieces.push_back(text.substr(0, at));
    if (at == std::string_view::npos) return pieces;
    text.remove_prefix(at + 1);
  }
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

std::string last_line(const std::string& text) {
  size_t end = text.size();
  while (end > 0) {
    const size_t begin = text.rfind('\n', end - 1);
    const size_t from = begin == std::string::npos ? 0 : begin + 1;
    std::string line = text.substr(from, end - from);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r')) line.pop_back();
    if (line.find_first_not_of(" \t") != std::string::npos) return line;
    if (begin == std::string::npos) break;
    end = begin;
  }
  return "";
}

bool starts_with(std::string_view text, std::string_view affix) { return text.substr(0, affix.size()) == affix; }

bool ends_with(std::string_view text, std::string_view affix) {
  return text.size() >= affix.size() && text.substr(text.size() - affix.size()) == affix;
}

std::optional<double> parse_decimal(std::string_view text) {
  if (text.empty() || text.size() > 40) return std::nullopt;
  size_t i = 0, digits = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i, ++digits;
  if (i < text.size() && text[i] == '.')
    for (++i; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]));) ++i, ++digits;
  if (digits == 0) return std::nullopt;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    if (++i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    const size_t start = i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
    if (i == start) return std::nullopt;
  }
  if (i != text.size()) return std::nullopt;
  const double value = std::strtod(std::string(text).c_str(), nullptr);  // only the form above reaches strtod
  return std::isfinite(value) ? std::optional<double>(value) : std::nullopt;
}

void refuse_control_characters(const std::vector<std::string>& words) {
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string& word = words[i];
    const auto bad = std::find_if(word.begin(), word.end(), [](char c) {
      const auto b = static_cast<unsigned char>(c);
      return b < 0x20 || b == 0x7f;
    });
    if (bad == word.end()) continue;
    std::string option;
    if (starts_with(word, "--")) option = word.substr(0, word.find('='));
    else if (i > 0 && starts_with(words[i - 1], "--")) option = words[i - 1].substr(0, words[i - 1].find('='));
    const std::string what = *bad == '\n' || *bad == '\r' ? "a line break" : "a control character";
    // The Error escapes the option's own control characters: an option name with a line break is named too.
    throw usage_error((option.empty() ? "'" + word + "'" : option) + ": the value contains " + what +
                      (what == "a line break" ? "" : " (" + escape_controls(std::string(1, *bad)) + ")") +
                      "; give it on one line, without control characters");
  }
}

}  // namespace fmwork
