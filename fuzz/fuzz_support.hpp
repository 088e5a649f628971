// What every fuzz target shares: the input as text, and the one outcome allowed besides success.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <string_view>

#include "fmwork/base/error.hpp"

namespace fmwork::fuzz {

inline std::string_view as_text(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Runs `parse` on hostile input. An fmwork::Error is the parser refusing it, as it should, and its message
// must be one non-empty line. Anything else escapes and crashes the fuzzer: a foreign exception
// (nlohmann's, std::out_of_range, bad_alloc) leaving a parser is a finding, as is a sanitizer report.
template <typename F>
void refusal_allowed(F&& parse) {
  try {
    parse();
  } catch (const Error& e) {
    const std::string_view m = e.what();
    if (m.empty() || m.find('\n') != std::string_view::npos) {
      std::fprintf(stderr, "fuzz: an Error message that is not one line: [%s]\n", e.what());
      std::abort();
    }
  }
}

}  // namespace fmwork::fuzz
