// Fuzz target: the `@` literal (python_literal's parse_value), with a resolver that knows one name as the
// command line's does, and the value's repr and JSON written out as the driver writes them.
#include <optional>
#include <string_view>

#include "fmwork/base/python_literal.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fmwork::fuzz::refusal_allowed([&] {
    const auto resolve = [](std::string_view name) -> std::optional<fmwork::Value> {
      if (name == "args.batch_sizes") return fmwork::Value::of_list({fmwork::Value::of_int(1), fmwork::Value::of_int(4)});
      return std::nullopt;
    };
    const fmwork::Value v = fmwork::parse_value(fmwork::fuzz::as_text(data, size), "--compile:fuzz@", resolve);
    (void)fmwork::repr(v);
    (void)fmwork::value_to_json(v);
  });
  return 0;
}
