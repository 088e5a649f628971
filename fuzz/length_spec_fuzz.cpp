// Fuzz target: the length distributions of --input_lengths (workload/lengths). The input up to its first NUL
// byte is an option value (one naming a file is skipped: the fuzzer opens no paths), the rest a file of
// lengths' text. Whatever parses must draw lengths within its bounds.
#include <string_view>

#include "fmwork/workload/lengths.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = fmwork::fuzz::as_text(data, size);
  const size_t cut = text.find('\0');
  const std::string_view spec_text = text.substr(0, cut);
  fmwork::fuzz::refusal_allowed([&] {
    if (spec_text.substr(0, 5) == "file:") return;
    const fmwork::LengthSpec spec = fmwork::parse_length_spec(spec_text, "--input_lengths");
    fmwork::LengthSampler sampler(spec, size);
    for (int i = 0; i < 16; ++i) {
      const int64_t length = sampler.next();
      if (length < spec.min || length > spec.max || length < 1) __builtin_trap();
    }
  });
  if (cut == std::string_view::npos) return 0;
  fmwork::fuzz::refusal_allowed([&] {
    for (const int64_t length : fmwork::lengths_from_text(text.substr(cut + 1), "lengths.txt", "--input_lengths"))
      if (length < 1 || length > fmwork::kMaxRequestLength) __builtin_trap();
  });
  return 0;
}
