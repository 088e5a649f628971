// The cause of a failure in one line (see exception_cause.hpp).
#include "fmwork/runtime/exception_cause.hpp"

#include <c10/util/Exception.h>

#include <new>
#include <optional>
#include <regex>
#include <vector>

#include <fmt/format.h>

#include "fmwork/base/error.hpp"
#include "fmwork/base/text_format.hpp"

namespace fmwork {

std::string message_cause(const std::string& message) {
  std::vector<std::string> lines;
  for (std::string_view piece : split(message, '\n')) {
    std::string line(piece);
    if (!line.empty() && line.back() == '\r') line.pop_back();  // CRLF line ends
    if (line.find_first_not_of(" \t\r") != std::string::npos) lines.push_back(line);
  }
  if (lines.empty()) return "unknown error";
  const bool script_traceback = message.find("Traceback of TorchScript") != std::string::npos;
  std::string line = script_traceback ? lines.back() : lines.front();
  // Caffe2-style checks prefix "[enforce fail at <source>:<line>] . ": where in LibTorch, not what went wrong.
  static const std::regex enforce(R"(^\[enforce fail at [^\]]*\]\s*\.?\s*)");
  line = std::regex_replace(line, enforce, "");
  // An embedding lookup past its table: the ids fed are larger than the model's vocabulary.
  if (line.find("index out of range in self") != std::string::npos)
    line = "an input id is past the model's embedding table (is --model:vocab_size, or the vocab_size beside the "
           "file, larger than the model's vocabulary?)";
  return escape_controls(line);  // no \r or escape sequence either
}

namespace {

// LibTorch's CPU allocator says "DefaultCPUAllocator: can't allocate memory: you tried to allocate N bytes.
// Error code 12 ...": the allocator's words, not the user's. The size is what a user can act on.
std::optional<std::string> allocation_failure(const std::string& cause) {
  static const std::regex pattern(R"(can't allocate memory: you tried to allocate ([0-9]+) bytes)");
  std::smatch m;
  if (!std::regex_search(cause, m, pattern)) return std::nullopt;
  const double bytes = std::stod(m[1].str());
  return fmt::format("out of memory: an allocation of {:.2f} GiB failed (the host's memory, a cgroup limit or "
                     "ulimit -v); lower --batch_sizes or --input_sizes, or free memory",
                     bytes / (1024.0 * 1024.0 * 1024.0));
}

}  // namespace

std::string exception_cause(const std::exception& error) {
  std::string cause;
  if (const auto* torch_error = dynamic_cast<const c10::Error*>(&error))
    cause = message_cause(torch_error->what_without_backtrace());
  else if (dynamic_cast<const std::bad_alloc*>(&error))
    return "out of memory: an allocation failed (the host's memory, a cgroup limit or ulimit -v); lower "
           "--batch_sizes or --input_sizes, or free memory";
  else
    cause = message_cause(error.what());
  if (const auto oom = allocation_failure(cause)) return *oom;
  return cause;
}

}  // namespace fmwork
