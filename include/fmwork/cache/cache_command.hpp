// The `driver --cache` subcommand: what the artifact cache (artifact_cache.hpp) holds, as a person reads it.
#pragma once

#include <optional>
#include <string>

namespace fmwork {

// `driver --cache list|report|clear [--cache_dir DIR]`, its words as the one option table read them (cli/).
struct CacheArgs {
  std::string command;                   // list, report or clear
  std::optional<std::string> cache_dir;  // --cache_dir DIR
};

// `driver --cache`: the text to print (ending in a newline). The cache is DIR, else default_cache_root().
//   list:   one line per entry: short key, kind, size, build seconds, last use, key fields (hashes short);
//   report: a table (aligned columns: key, kind, size, build s, created, last used, one column per field
//           name) and a totals line (entries, total size);
//   clear:  "removed N entries from DIR".
// The command line's rows (cli/) refuse a line without a command, or with another word, before this; a runtime
// Error for one here.
std::string run_cache_command(const CacheArgs& args);

}  // namespace fmwork
