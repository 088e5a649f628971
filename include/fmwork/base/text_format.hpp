// Text for people, written one way everywhere: byte sizes ("1.5 GiB") and tables of aligned columns (the
// cache report, process's summary and comparison). Not for the FMWORK lines, whose numbers log_format.hpp
// writes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fmwork {

// The unit a byte size is written in; automatic: the largest of KiB, MiB, GiB, TiB that the size reaches,
// and whole bytes ("512 B", no decimals) under 1 KiB.
enum class ByteUnit { automatic, KiB, MiB, GiB };

// `bytes` in `unit` (powers of 1024) with `decimals` decimals: bytes_text(3 << 29, 1) is "1.5 GiB",
// bytes_text(3 << 29, 2, ByteUnit::GiB) "1.50 GiB", bytes_text(700 << 20, 0, ByteUnit::MiB) "700 MiB".
std::string bytes_text(uint64_t bytes, int decimals, ByteUnit unit = ByteUnit::automatic);

// "1 log", "3 logs": a count with its noun, an s added unless it is one.
std::string plural(size_t n, const std::string& word);

// The items separated by `separator`: joined({"a", "b"}) is "a, b"; "" for none.
std::string joined(const std::vector<std::string>& items, const std::string& separator = ", ");

// Every piece of `text` between `separator`s, empty ones kept: split("", ',') is {""}, split("a,", ',') is
// {"a", ""}. The pieces view `text`, which must outlive them.
std::vector<std::string_view> split(std::string_view text, char separator);

// A tensor shape as people read it: "[2, 128, 384]"; "[]" for a scalar.
std::string shape_text(const std::vector<int64_t>& shape);

// The last line of `text` that holds more than spaces, tabs and carriage returns, without them at its end;
// "" when there is none. What a child process's stderr says last is usually why it failed.
std::string last_line(const std::string& text);

// Whether `text` begins (ends) with `affix`.
bool starts_with(std::string_view text, std::string_view affix);
bool ends_with(std::string_view text, std::string_view affix);

// How aligned_table lays out its rows.
struct TableLayout {
  std::vector<bool> right;             // per column: aligned right (numbers); columns past its end: left
  std::vector<size_t> min_width;       // per column: at least this wide; columns past its end: 0
  std::string margin;                  // written before each line
  bool trim = true;                    // trailing spaces of each line dropped
  bool first_row_sets_width = true;    // false: the first row (a header) is laid out, not measured
};

// The rows as lines ("\n"-ended), cells separated by two spaces, each column as wide as its widest cell
// (in screen columns: a UTF-8 character counts one); a left-aligned last column is not padded. A row shorter than the first has empty cells; cells
// past the first row's count are left out. Nothing is cut: a cell wider than its column (an unmeasured
// header) pushes the rest of its line right.
std::string aligned_table(const std::vector<std::vector<std::string>>& rows, const TableLayout& layout = {});

// The screen columns `text` takes: its bytes less UTF-8 continuation bytes.
size_t display_width(const std::string& text);

// The longest name "did you mean" compares: option names, keys and choices are short.
inline constexpr size_t kMaxNameBytes = 64;

// The edit distance (Levenshtein: insertions, deletions, substitutions) between two words, each cut to its
// first 64 bytes: option names are short, and a pasted paragraph must not cost a table of its size squared.
size_t edit_distance(const std::string& a, const std::string& b);

// The name of `names` closest to a misspelt `word` ("--formt" -> "--format", "SDPA" -> "sdpa"), for "did you
// mean ...?": the one with the smallest edit_distance, case ignored, the first in `names` on a tie; nullopt when even that one is more than
// max(2, word.size() / 3) edits away (nothing close enough to be the word meant), and for a word longer than
// kMaxNameBytes (a pasted value, no misspelt name).
std::optional<std::string> closest_option(const std::string& word, const std::vector<std::string>& names);

// The first name of `names` one typo from `word`: equal but for case, or one letter missing, extra or wrong,
// or two neighbouring letters swapped (BertModle -> BertModel, cup -> cpu); nullopt when none is. Stricter
// than closest_option, for names whose real neighbours lie close together: AlbertModel and DebertaModel are
// classes of their own, two edits from BertModel and RobertaModel, and must not be "corrected".
std::optional<std::string> one_typo_from(const std::string& word, const std::vector<std::string>& names);

// "; did you mean NAME?" for a name found by closest_option or one_typo_from, "" for nullopt: the one
// spelling of the hint every "unknown ..." message appends.
std::string did_you_mean(const std::optional<std::string>& name);

// Refuses a command line whose words hold a control character (a line break, CR, tab, ESC, DEL): every value
// given is echoed into the log (FMWORK ARG, the args JSON, META and SERVE fields), where a line break would
// write a line of its own that `process` reads as a record. A usage Error naming the option the word belongs
// to (the word itself when it starts with "--", cut at '='; else the "--" word before it; else the word):
// "--model_name: the value contains a line break; give it on one line". The one check every command's parser
// (driver, driver serve, driver run, process, driver --cache) applies to its words before reading them.
void refuse_control_characters(const std::vector<std::string>& words);

// A decimal number as people type it: digits with at most one '.', then an optional exponent (e or E, an optional
// sign, digits): "20", "2.5", ".5", "1e3". The whole text or nullopt: no sign in front, no hex ("0x10" is not 16),
// no inf or nan, no spaces, at most 40 characters. The one reader of the serving options' numbers.
std::optional<double> parse_decimal(std::string_view text);

}  // namespace fmwork
