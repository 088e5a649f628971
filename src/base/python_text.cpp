// Python's text rules (see python_text.hpp): UTF-8 decoding, repr() of str and float, json.dumps.
#include "fmwork/base/python_text.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "fmwork/base/error.hpp"

namespace fmwork {

std::u32string decode_utf8(std::string_view text, BadBytes bad) {
  std::u32string out;
  out.reserve(text.size());
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  size_t i = 0;
  while (i < n) {
    const unsigned char b = s[i];
    if (b < 0x80) {
      out.push_back(b);
      ++i;
      continue;
    }
    size_t len = 0;
    char32_t cp = 0, min = 0;
    if (b >= 0xc2 && b <= 0xdf) {
      len = 2, cp = b & 0x1f, min = 0x80;
    } else if (b >= 0xe0 && b <= 0xef) {
      len = 3, cp = b & 0x0f, min = 0x800;
    } else if (b >= 0xf0 && b <= 0xf4) {
      len = 4, cp = b & 0x07, min = 0x10000;
    }
    bool ok = len != 0 && i + len <= n;
    for (size_t k = 1; ok && k < len; ++k) {
      if ((s[i + k] & 0xc0) != 0x80) ok = false;
      else cp = (cp << 6) | (s[i + k] & 0x3f);
    }
    if (ok && (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))) ok = false;
    if (ok) {
      out.push_back(cp);
      i += len;
    } else {
      out.push_back(bad == BadBytes::surrogateescape ? 0xdc00 + b : 0xfffd);
      ++i;
    }
  }
  return out;
}

void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xc0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xe0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else {
    out.push_back(static_cast<char>(0xf0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  }
}

namespace {

// Python's str.isprintable() for one code point: false for the control, format, separator (but the space),
// surrogate and private-use characters. Unassigned code points (which Python also escapes) are not known
// here and are written as they are.
bool py_printable(char32_t c) {
  if (c < 0x20 || c == 0x7f) return false;
  if (c < 0x7f) return true;
  if (c <= 0xa0 || c == 0xad) return false;
  static const std::pair<char32_t, char32_t> kNot[] = {
      {0x600, 0x605},     {0x61c, 0x61c},     {0x6dd, 0x6dd},     {0x70f, 0x70f},   {0x890, 0x891},
      {0x8e2, 0x8e2},     {0x1680, 0x1680},   {0x180e, 0x180e},   {0x2000, 0x200f}, {0x2028, 0x202f},
      {0x205f, 0x2064},   {0x2066, 0x206f},   {0x3000, 0x3000},   {0xd800, 0xf8ff}, {0xfeff, 0xfeff},
      {0xfff9, 0xfffb},   {0xfffe, 0xffff},   {0x110bd, 0x110bd}, {0x110cd, 0x110cd},
      {0x13430, 0x1343f}, {0x1bca0, 0x1bca3}, {0x1d173, 0x1d17a}, {0xe0001, 0xe0001},
      {0xe0020, 0xe007f}, {0xf0000, 0x10ffff}};
  for (const auto& [lo, hi] : kNot)
    if (c >= lo && c <= hi) return false;
  return true;
}

}  // namespace

std::string python_str_repr(std::string_view text) {
  const std::u32string cps = decode_utf8(text, BadBytes::surrogateescape);
  const bool has_single = std::find(cps.begin(), cps.end(), U'\'') != cps.end();
  const bool has_double = std::find(cps.begin(), cps.end(), U'"') != cps.end();
  const char32_t quote = has_single && !has_double ? U'"' : U'\'';
  std::string out(1, static_cast<char>(quote));
  char buf[16];
  for (char32_t c : cps) {
    if (c == quote || c == U'\\') {
      out.push_back('\\');
      out.push_back(static_cast<char>(c));
    } else if (c == U'\t') {
      out += "\\t";
    } else if (c == U'\n') {
      out += "\\n";
    } else if (c == U'\r') {
      out += "\\r";
    } else if (py_printable(c)) {
      append_utf8(out, c);
    } else {
      if (c <= 0xff) std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned>(c));
      else if (c <= 0xffff) std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
      else std::snprintf(buf, sizeof buf, "\\U%08x", static_cast<unsigned>(c));
      out += buf;
    }
  }
  out.push_back(static_cast<char>(quote));
  return out;
}

// Fixed or scientific as Python's float_repr_style 'short' decides.
std::string python_float_repr(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d < 0 ? "-inf" : "inf";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
  std::string sci(buf, res.ptr);
  std::string sign;
  if (!sci.empty() && sci[0] == '-') {
    sign = "-";
    sci.erase(0, 1);
  }
  const size_t e_at = sci.find('e');
  std::string mantissa = sci.substr(0, e_at);
  const int exponent = std::atoi(sci.c_str() + e_at + 1);
  std::string digits;
  for (char c : mantissa)
    if (c != '.') digits.push_back(c);
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();

  if (exponent < -4 || exponent >= 16) {
    std::string out = sign + digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    char exp_buf[16];
    std::snprintf(exp_buf, sizeof exp_buf, "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
    return out + exp_buf;
  }
  const int point = exponent + 1;  // digits before the decimal point
  if (point <= 0) return sign + "0." + std::string(static_cast<size_t>(-point), '0') + digits;
  if (static_cast<size_t>(point) >= digits.size())
    return sign + digits + std::string(static_cast<size_t>(point) - digits.size(), '0') + ".0";
  return sign + digits.substr(0, static_cast<size_t>(point)) + "." + digits.substr(static_cast<size_t>(point));
}

namespace {

void append_u_escape(std::string& out, char32_t code) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(code & 0xffff));
  out += buf;
}

void append_json_string(std::string& out, std::string_view s, BadBytes bad) {
  out += '"';
  for (char32_t c : decode_utf8(s, bad)) {
    switch (c) {
      case U'"': out += "\\\""; break;
      case U'\\': out += "\\\\"; break;
      case U'\n': out += "\\n"; break;
      case U'\r': out += "\\r"; break;
      case U'\t': out += "\\t"; break;
      case U'\b': out += "\\b"; break;
      case U'\f': out += "\\f"; break;
      default:
        if (c >= 0x20 && c < 0x7f) {
          out += static_cast<char>(c);
        } else if (c >= 0x10000) {  // a UTF-16 surrogate pair, as ensure_ascii writes it
          append_u_escape(out, 0xd800 + ((c - 0x10000) >> 10));
          append_u_escape(out, 0xdc00 + ((c - 0x10000) & 0x3ff));
        } else {
          append_u_escape(out, c);
        }
    }
  }
  out += '"';
}

void append_json_float(std::string& out, double d) {
  if (std::isnan(d)) out += "NaN";
  else if (std::isinf(d)) out += d > 0 ? "Infinity" : "-Infinity";
  else out += python_float_repr(d);
}

void dump_json(std::string& out, const nlohmann::ordered_json& v, int level, BadBytes bad) {
  using Type = nlohmann::json::value_t;
  const bool array = v.type() == Type::array;
  switch (v.type()) {
    case Type::null: out += "null"; return;
    case Type::boolean: out += v.get<bool>() ? "true" : "false"; return;
    case Type::number_integer: out += std::to_string(v.get<int64_t>()); return;
    case Type::number_unsigned: out += std::to_string(v.get<uint64_t>()); return;
    case Type::number_float: append_json_float(out, v.get<double>()); return;
    case Type::string: append_json_string(out, v.get_ref<const std::string&>(), bad); return;
    case Type::array:
    case Type::object: break;
    default: throw runtime_error("cannot write this JSON value as Python's json.dumps would");
  }
  if (v.empty()) {
    out += array ? "[]" : "{}";
    return;
  }
  const std::string indent(static_cast<size_t>(4 * (level + 1)), ' ');
  out += array ? "[\n" : "{\n";
  bool first = true;
  for (auto it = v.begin(); it != v.end(); ++it) {
    if (!first) out += ",\n";
    first = false;
    out += indent;
    if (!array) {
      append_json_string(out, it.key(), bad);
      out += ": ";
    }
    dump_json(out, *it, level + 1, bad);
  }
  out += "\n" + std::string(static_cast<size_t>(4 * level), ' ') + (array ? "]" : "}");
}

}  // namespace

std::string python_json_dumps(const nlohmann::ordered_json& value, BadBytes bad, int level) {
  std::string out;
  dump_json(out, value, level, bad);
  return out;
}

}  // namespace fmwork
