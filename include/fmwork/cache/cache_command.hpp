// The `driver --cache` subcommand: what the artifact cache (artifact_cache.hpp) holds, as a person reads it.
#pragma once

#include <string>
#include <vector>

namespace fmwork {

// `driver --cache list|report|clear [--cache_dir DIR]`: `args` are the words after --cache; returns the
// text to print (ending in a newline). The cache is DIR, else default_cache_root().
//   list:   one line per entry: short key, kind, size, build seconds, last use, key fields (hashes short);
//   report: a table (aligned columns: key, kind, size, build s, created, last used, one column per field
//           name) and a totals line (entries, total size);
//   clear:  "removed N entries from DIR".
// A usage Error for anything else, naming the three sub-commands.
std::string run_cache_command(const std::vector<std::string>& args);

}  // namespace fmwork
