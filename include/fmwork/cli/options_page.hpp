// docs/options.md's reference tables, written from the tables the parsers read (fixed_options, option_sets),
// so that the page cannot drift from the driver: tools/options_doc.cpp writes them into the page, and ctest's
// Docs.OptionsPageMatchesTheTables fails when the committed page differs.
#pragma once

#include <string>

namespace fmwork {

// The lines that open and close the generated part of a page. What lies outside them is written by hand.
extern const char* const kGeneratedBegin;
extern const char* const kGeneratedEnd;

// The generated part (without the marker lines): a Markdown table of the fixed options (name and value,
// required or not, upstream's or ours, help), then one table per sub-option set (key, value type, an
// example, help; aliases and the keys --model: ignores, with why). Text from the tables is escaped for
// Markdown table cells (`|`, `<`, `>`).
std::string options_reference_markdown();

// `page` with the text between its marker lines replaced by `generated`, a blank line before and after it. Throws a runtime Error when the
// page lacks a marker line, or holds them out of order.
std::string with_generated_part(const std::string& page, const std::string& generated);

}  // namespace fmwork
