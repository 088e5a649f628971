// The row every option table of the command line is made of: the driver's fixed options (fixed_options.hpp)
// and `driver serve`'s (serve_options.hpp) are rows of this type with how their value is read and stored
// added. What people read of an option (the usage and --help lines, docs/options.md's tables) and the names
// "did you mean" offers come from these rows, so that none of them can name an option the parser does not know.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace fmwork {

// How many words an option takes after its name.
enum class OptionWords {
  one,         // one (none for a flag: a row without a value name), the option given once: --format json
  two,         // exactly two, given once: --compare A B
  each,        // one an occurrence, any number of occurrences: --match dtype --match threads
  list,        // one or more, and the command's positional words too: --path a.log b.log, a.log
  positional,  // one positional word, no option: `driver run EXPERIMENT`; `name` names it in --help
};

// One option: its name and what stands for its value, an example and its help.
struct OptionRow {
  const char* name;        // without "--": "reps", "rates"
  const char* value_name;  // what stands for the value in a usage line: "N", "R[,R...]"; "" for a flag
  const char* example;     // a value it accepts: "20", "20,40,80"; "" for a flag
  const char* help;        // its --help line

  bool flag() const { return value_name[0] == '\0'; }
  std::string option() const { return std::string("--") + name; }                        // "--reps"
  std::string usage() const { return flag() ? option() : option() + " " + value_name; }  // "--reps N"
  std::string with_example() const { return flag() ? option() : option() + " " + example; }  // "--reps 20"
};

// A help line: `left` padded to `width` (or followed by two spaces when it is wider), then `help`, then "\n".
std::string option_help_line(std::string left, size_t width, const std::string& help);

// "unknown option WORD", with "; did you mean NAME?" where one of `names` is close (closest_option): the one
// start of every message about an option no table holds.
std::string unknown_option(const std::string& word, const std::vector<std::string>& names);

}  // namespace fmwork
