// Python's text rules, written once: how Python decodes UTF-8 bytes, what repr() writes for a str and a
// float, and json.dumps(value, indent=4). The args echo (cli), repr() of values (value) and upstream's
// JSON (process) all write through these, so the three agree byte for byte with Python and each other.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace fmwork {

// What becomes of a byte that is not part of valid UTF-8 (truncated, overlong, an encoded surrogate):
// - surrogateescape: the lone surrogate U+DC00+byte, as Python decodes command-line bytes (sys.argv);
// - replace: U+FFFD, as Python's open(errors="replace") reads a file.
enum class BadBytes { surrogateescape, replace };

// The code points of `text`.
std::u32string decode_utf8(std::string_view text, BadBytes bad);

// Appends the UTF-8 encoding of one code point (surrogates included, as Python's surrogatepass would).
void append_utf8(std::string& out, char32_t code_point);

// Python's repr() of a str (the text decoded with surrogateescape): quotes chosen as Python chooses them,
// \t \n \r \\ and the quote escaped, unprintable code points as \xXX, \uXXXX or \UXXXXXXXX.
std::string python_str_repr(std::string_view text);

// Python's repr() of a float: the shortest text that reads back equal, fixed notation when the decimal
// exponent is in [-4, 16), else 1e-05 / 1.5e+16; "nan", "inf", "-inf".
std::string python_float_repr(double value);

// json.dumps(value, indent=4) of Python, byte for byte: ", " / ": " separators with newlines, "{}" and
// "[]" when empty, ASCII only (\uXXXX escapes; strings decoded with `bad`), floats as repr() writes them
// (NaN, Infinity, -Infinity as Python's json writes those). No trailing newline. `level` > 0 writes the value
// as it is written that many levels deep (its inner lines indented 4 * level more): an element of a list
// written one by one.
std::string python_json_dumps(const nlohmann::ordered_json& value, BadBytes bad, int level = 0);

}  // namespace fmwork
