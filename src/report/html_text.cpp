// Escaping for the HTML report: decode as a browser would (bad bytes replaced), then write references.
#include "fmwork/report/html_text.hpp"

#include <cmath>
#include <cstdio>

#include "fmwork/base/python_text.hpp"

namespace fmwork {

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char32_t c : decode_utf8(text, BadBytes::replace)) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: {
        // Bad bytes and encoded surrogates are already U+FFFD (decode_utf8's replace policy).
        const bool control = (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f;
        append_utf8(out, control ? char32_t{0xfffd} : c);
      }
    }
  }
  return out;
}

std::string html_fixed(double value, int decimals) {
  if (!std::isfinite(value)) return "n/a";
  char buf[512];
  const int n = std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  // Past the buffer only for magnitudes near 1e308 with many decimals: the exponent form says as much.
  if (n < 0 || static_cast<size_t>(n) >= sizeof buf) std::snprintf(buf, sizeof buf, "%.6e", value);
  return buf;
}

}  // namespace fmwork
