// What the values of an FMWORK line may be, one set of rules for both sides: numbers as Python's float()
// reads them, timestamps, keys and tokens, and the checks of key=value fields against their table
// (log_fields.hpp). The writers (log_format.cpp) apply them to refuse a line that could not be read back,
// the parsers (log_parse.cpp) to read one; kept apart from both so that neither owns the other's rules.
// Private to src/log/: no type of log_format.hpp here, so both may include it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fmwork/base/error.hpp"
#include "fmwork/log/log_fields.hpp"

namespace fmwork::log_rules {

constexpr std::string_view kPrefix = "FMWORK ";
constexpr int64_t kNanosPerSecond = 1000000000;

// A line's key=value fields in line order (Fields::items).
using FieldItems = std::vector<std::pair<std::string, std::string>>;

// Python's str.strip() whitespace, ASCII part: \t \n \v \f \r, \x1c-\x1f and space.
bool is_py_space(char c);
// What no token holds: ASCII controls, space and DEL.
bool is_control_or_space(char c);
// 'text', for messages.
std::string quote(std::string_view s);
// The line split on single spaces, as upstream splits (two spaces give an empty part).
std::vector<std::string_view> split_spaces(std::string_view s);
// An optional '-' and digits that fit int64_t; nullopt otherwise.
std::optional<int64_t> to_int(std::string_view s);
// What Python's float() accepts in practice: a decimal number with optional sign, fraction and exponent,
// or inf / infinity / nan in any case; overflow gives inf, underflow 0, as in Python.
std::optional<double> to_double(std::string_view s);
// '%.*f' % value, any magnitude.
std::string printf_double(double value, int decimals);
// "<digits>.<9 digits>" as nanoseconds, the seconds part possibly empty as upstream writes times under one
// second; nullopt when malformed or past int64_t.
std::optional<int64_t> to_timestamp(std::string_view s);
// "[-]<digits>.<9 digits>"
bool is_duration(std::string_view s);
// [A-Za-z0-9_.-]+
bool is_key(std::string_view key);
// `text` with each "FMWORK" written "\x46MWORK" (escape_controls' notation for 'F'): free text (a section's
// line, FAIL's error) that quotes a file's strings then holds nothing `process`, upstream's script or a
// `grep "FMWORK RES"` takes for a line of the log. Applying it twice changes nothing.
std::string without_record_words(std::string text);

// The runtime Error "FMWORK <word> <what>".
Error line_error(std::string_view word, const std::string& what);
// A field's integer (at least `min_value`) or number; a runtime Error naming the line's word and `name`.
// A number is finite (nan and inf refused: JSON has no such numbers), and with non_negative at least 0
// (a latency, a throughput, setup seconds), with fraction from 0 to 1 (a share of the time busy).
enum class NumberRange { any, non_negative, fraction };
int64_t field_int(std::string_view word, std::string_view name, std::string_view text, int64_t min_value);
double field_double(std::string_view word, std::string_view name, std::string_view text,
                    NumberRange range = NumberRange::any);
// The field that runs to the end of the line (FAIL's error=), or nullptr.
const FieldSpec* to_end_field(const LineSpec& spec);
// Whether `value` is one of `choices` ("pass|fail").
bool is_choice(std::string_view choices, std::string_view value);
// Typed checks shared by parse and format, in the order of their errors: the key fields (input, batch),
// then each field's type in line order, then the other required fields. Throws line_error's Error. The
// reader takes a word outside a field's open_choices (a newer writer's); the writer refuses it.
enum class Side { writer, reader };
void check_fields(const LineSpec& spec, const FieldItems& items, Side side);

}  // namespace fmwork::log_rules
