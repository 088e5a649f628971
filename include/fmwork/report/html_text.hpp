// Text from logs put into an HTML or SVG page (process --format html). Everything a log says is untrusted:
// it goes through html_escape() so that it can only ever be text, never markup. No LibTorch here.
#pragma once

#include <string>
#include <string_view>

namespace fmwork {

// `text` as the content of an element or a quoted attribute value: & < > " ' written as character
// references; bytes that are not valid UTF-8 and control characters other than tab, newline and carriage
// return become U+FFFD (they are parse errors in HTML and not allowed at all in XML, which an inline SVG
// may be read as). The result is valid UTF-8 holding no markup.
std::string html_escape(std::string_view text);

// `value` with `decimals` digits after the point ("%.*f"), or "n/a" when it is not finite (the page never
// shows "nan" or "inf" as a number).
std::string html_fixed(double value, int decimals);

}  // namespace fmwork
