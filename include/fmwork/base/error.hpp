// The one error type of fmwork: a message that tells the user what to do, and whether the mistake was in
// the command line (usage, exit 2) or happened while running (runtime, exit 1). Thrown anywhere, caught
// once in each executable's main().
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace fmwork {

// The text with its control characters written out (newline as \n, tab as \t, carriage return as \r,
// the others as \xHH), so that it cannot span lines or move the cursor on a terminal: what every Error's
// message and every error line goes through. Other bytes (UTF-8 included) are kept; applying it twice
// changes nothing.
inline std::string escape_controls(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto b = static_cast<unsigned char>(c);
    if (b >= 0x20 && b != 0x7f) {
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else {
      const char* hex = "0123456789abcdef";
      out += "\\x";
      out += hex[b >> 4];
      out += hex[b & 0xf];
    }
  }
  return out;
}

// Free text from outside made one line rather than escaped, where it is the whole message and is read, not
// quoted (a plugin's error, a FAIL line's cause): each control character becomes a space, trailing spaces go.
inline std::string one_line(std::string text) {
  for (char& c : text)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

// A value the user gave, for a message: at most `max` characters of it (then "..."), control characters
// written out as escape_controls() does. For untrusted text that may be long (a file's content, a nested value).
inline std::string excerpt(std::string_view text, size_t max = 80) {
  if (text.size() <= max) return escape_controls(text);
  size_t cut = max;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xc0) == 0x80) --cut;  // not inside a UTF-8 character
  return escape_controls(text.substr(0, cut)) + "...";
}

enum class ErrorKind { usage, runtime };

class Error : public std::runtime_error {
 public:
  // The message is kept on one line (escape_controls): a value quoted in it cannot forge lines of output.
  Error(ErrorKind kind, const std::string& message) : std::runtime_error(escape_controls(message)), kind_(kind) {}

  ErrorKind kind() const { return kind_; }
  // 2 for usage errors, 1 for failures at run time: what main() returns.
  int exit_code() const { return kind_ == ErrorKind::usage ? 2 : 1; }

 private:
  ErrorKind kind_;
};

// Message factories. The message is one line: it names the option or file and says what would be right.
inline Error usage_error(const std::string& message) { return Error(ErrorKind::usage, message); }
inline Error runtime_error(const std::string& message) { return Error(ErrorKind::runtime, message); }

// Prefixes context to an error thrown by a lower layer, keeping its kind:
// "config.json: " + "hidden_size must be positive".
inline Error with_context(const std::string& context, const Error& inner) {
  return Error(inner.kind(), context + ": " + inner.what());
}

}  // namespace fmwork
