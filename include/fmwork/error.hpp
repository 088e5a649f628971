// The one error type of fmwork: a message that tells the user what to do, and whether the mistake was in
// the command line (usage, exit 2) or happened while running (runtime, exit 1). Thrown anywhere, caught
// once in each executable's main().
#pragma once

#include <stdexcept>
#include <string>

namespace fmwork {

enum class ErrorKind { usage, runtime };

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}

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
