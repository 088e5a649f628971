// CLI11's parse errors in our words, for the programs whose options CLI11 reads (process, driver run): its
// "--format: At Most 1 required but received 2" becomes "--format is given 2 times; give it once".
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace fmwork {

// The message of a CLI11 parse error (its what()) told as one line naming the option and what would be
// right: an option given too often or with too many or too few values; a value missing ("--format needs a
// value: one of json, csv"), given to a flag, out of range or not converted. Other messages (an unknown
// option, a value not among the choices: already in those words) are returned as they are.
std::string parse_error_text(const std::string& cli11_message);

// The one line for a CLI11 parse error of `app` (its what(): `cli11_message`), whose words after the program's
// name were `words`: parse_error_text's, and for a word that looks like an option and is none of `app`'s
// names, "unknown option --resum; did you mean --resume?" (closest_option over them; nothing after it when none
// is close) in place of CLI11's "The following argument was not expected: --resum"; a stray word that is no
// option: "unexpected argument: x". Other errors with such a word beside them get "; did you mean ...?" at their
// end. The caller adds where help is ("(see process --help)").
std::string parse_error_line(const CLI::App& app, const std::string& cli11_message, const std::vector<std::string>& words);

// A CLI11 check that the value is one of `names`, read by read_choice (base/option_values.hpp): a value that is
// none throws its usage Error, "--format expects one of json, csv, summary, html; got 'xml'; did you mean
// html?", out of CLI11's parse. Described as CLI::IsMember is ("{json,csv,summary,html}"), so --help is the same.
CLI::Validator choice_of(const std::string& option, const std::vector<std::string>& names);

}  // namespace fmwork
