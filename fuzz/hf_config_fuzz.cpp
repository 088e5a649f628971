// Fuzz target: config.json (hf/config), read through json_input as load_config reads it, then validated, and
// the summary the driver prints written.
#include "fmwork/hf/config.hpp"
#include "fmwork/base/json_input.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fmwork::fuzz::refusal_allowed([&] {
    const auto json = fmwork::parse_json(fmwork::fuzz::as_text(data, size), "config.json");
    const fmwork::hf::EncoderConfig c = fmwork::hf::parse_config(json, "config.json");
    (void)c.summary();
    (void)c.max_input_size();
    (void)c.head_dim();
  });
  return 0;
}
