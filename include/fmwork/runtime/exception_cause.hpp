// The one line that says why something failed, from an exception of LibTorch, the TorchScript interpreter
// or our own: what a FAIL line and a plugin's error message carry, the same whichever path the error took.
#pragma once

#include <exception>
#include <string>

namespace fmwork {

// The line of a message that says what went wrong. LibTorch's messages span lines; those of the
// TorchScript interpreter open with a generic sentence and a script traceback ("Traceback of
// TorchScript ..."), and end with the cause, which is returned; otherwise the first non-blank line.
// "unknown error" when the message has no text.
std::string message_cause(const std::string& message);

// message_cause of the exception's text; for a c10::Error, of its message without the C++ backtrace. A failed
// allocation (std::bad_alloc, or the CPU allocator's "can't allocate memory: you tried to allocate N bytes")
// reads "out of memory: an allocation of X.XX GiB failed (...); lower --batch_sizes or --input_sizes, or free
// memory" instead of the allocator's words.
std::string exception_cause(const std::exception& error);

}  // namespace fmwork
