// Fuzz target: a safetensors file's header (hf/safetensors_header), the input being the whole file.
#include "fmwork/hf/safetensors_header.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fmwork::fuzz::refusal_allowed([&] {
    const auto header = fmwork::hf::parse_safetensors_header(data, size, "fuzz.safetensors");
    // What the reader then relies on: every range inside the file.
    for (const auto& e : header.entries)
      if (e.begin > e.end || header.data_start + e.end > size) __builtin_trap();
  });
  return 0;
}
