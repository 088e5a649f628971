// The parser of what follows an `@` sub-option: the Python-literal forms upstream's eval() accepts in
// practice, into a Value.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "fmwork/base/python_value.hpp"

namespace fmwork {

// Resolves a name such as `args.batch_sizes` to a value; returns nullopt when the name is unknown.
using NameResolver = std::function<std::optional<Value>(std::string_view name)>;

// Parses what the user wrote after an `@` option, as Python's eval would for these forms:
// None, True, False; integers (also negative, and 1_000); floats (1e-05, 2.50, -0.5, inf via float('inf')
// not supported); strings in single or double quotes with the usual escapes; lists, tuples (incl. `(1,)`
// and `()`), dicts with string keys; dtype names `torch.float16` (and `torch.half`, `torch.bfloat16`, ...);
// names the resolver knows (`args.batch_sizes`). Throws a usage Error that quotes `text`, says where it
// stopped and lists the accepted forms. `option` (e.g. "--compile:dynamic@") prefixes the message.
Value parse_value(std::string_view text, const std::string& option, const NameResolver& resolve = {});

}  // namespace fmwork
