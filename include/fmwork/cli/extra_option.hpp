// A row added to the one option table (options.hpp) for a while: how a test shows that a new option is one row,
// with no word of it written elsewhere. The row is appended to options() itself, so --help, docs/options.md,
// "did you mean", the tokenizer and the args JSON read it through the code paths that read the real rows.
#pragma once

namespace fmwork {

struct Option;  // options.hpp; not included: options.cpp, which defines ExtraOption beside the table, includes this

// While it lives, `row` is the last row of options(); destroying it removes the row. One at a time, on one
// thread, and none of the table's rows pointed to across its life (the table may move when it grows): for
// tests. Throws a runtime Error when another is alive or `row`'s name is a row's already.
class ExtraOption {
 public:
  explicit ExtraOption(const Option& row);
  ~ExtraOption();
  ExtraOption(const ExtraOption&) = delete;
  ExtraOption& operator=(const ExtraOption&) = delete;
};

}  // namespace fmwork
