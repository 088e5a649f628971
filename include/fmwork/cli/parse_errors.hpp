// CLI11's parse errors in our words, for the programs whose options CLI11 reads (process, driver run): its
// "--format: At Most 1 required but received 2" becomes "--format is given 2 times; give it once".
#pragma once

#include <string>

namespace fmwork {

// The message of a CLI11 parse error (its what()) told as one line naming the option and what would be
// right: an option given too often or with too many or too few values; a value missing ("--format needs a
// value: one of json, csv"), given to a flag, out of range or not converted. Other messages (an unknown
// option, a value not among the choices: already in those words) are returned as they are.
std::string parse_error_text(const std::string& cli11_message);

}  // namespace fmwork
