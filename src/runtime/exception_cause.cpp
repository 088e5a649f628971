// The cause of a failure in one line (see exception_cause.hpp).
#include "fmwork/runtime/exception_cause.hpp"

#include <c10/util/Exception.h>

#include <vector>

#include "fmwork/base/error.hpp"

namespace fmwork {

std::string message_cause(const std::string& message) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start <= message.size()) {
    size_t end = message.find('\n', start);
    if (end == std::string::npos) end = message.size();
    std::string line = message.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();  // CRLF line ends
    if (line.find_first_not_of(" \t\r") != std::string::npos) lines.push_back(line);
    start = end + 1;
  }
  if (lines.empty()) return "unknown error";
  const bool script_traceback = message.find("Traceback of TorchScript") != std::string::npos;
  return escape_controls(script_traceback ? lines.back() : lines.front());  // no \r or escape sequence either
}

std::string exception_cause(const std::exception& error) {
  if (const auto* torch_error = dynamic_cast<const c10::Error*>(&error))
    return message_cause(torch_error->what_without_backtrace());
  return message_cause(error.what());
}

}  // namespace fmwork
