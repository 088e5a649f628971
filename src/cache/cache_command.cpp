// `driver --cache list|report|clear` (cache_command.hpp): the command's words and the text it prints.
#include "fmwork/cache/cache_command.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <ctime>

#include <fmt/format.h>
#include <sys/stat.h>

#include "fmwork/base/error.hpp"
#include "fmwork/base/text_format.hpp"
#include "fmwork/cache/artifact_cache.hpp"

namespace fmwork {

namespace {

std::string format_time(int64_t unix_seconds) {
  const std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  char buf[32];
  if (!::localtime_r(&t, &tm) || !std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M", &tm)) return "?";
  return buf;
}

// Hashes (long hex values) shortened to 12 digits, as the keys are: enough to tell entries apart.
std::string compact_value(const std::string& v) {
  const bool hex = v.size() > 16 && std::all_of(v.begin(), v.end(), [](char c) {
    return std::isxdigit(static_cast<unsigned char>(c));
  });
  return hex ? v.substr(0, 12) : v;
}

// The damaged entries under the listing: "no entries" beside a damaged one hid it (and the disk it takes).
std::string damaged_text(const std::vector<DamagedEntry>& damaged) {
  std::string out;
  for (const auto& d : damaged)
    out += fmt::format("{}  {}  damaged: {} (removed by the next run that needs it, or driver --cache clear)\n",
                       d.key.substr(0, 12), d.kind, d.why);
  return out;
}

std::string list_text(const std::vector<CacheEntry>& entries, const std::vector<DamagedEntry>& damaged,
                      const std::string& root) {
  if (entries.empty()) return (damaged.empty() ? "no entries in " : "no intact entries in ") + root + "\n" +
                              damaged_text(damaged);
  std::string out;
  for (const auto& e : entries) {
    std::string fields;
    for (const auto& [k, v] : e.fields) fields += (fields.empty() ? "" : " ") + k + "=" + compact_value(v);
    out += fmt::format("{}  {}  {:>10}  built in {:.1f} s  used {}  {}\n", e.key.substr(0, 12), e.kind,
                       bytes_text(e.size_bytes, 1), e.build_seconds, format_time(e.last_used_unix), fields);
  }
  return out + damaged_text(damaged);
}

std::string report_text(const std::vector<CacheEntry>& entries, const std::vector<DamagedEntry>& damaged,
                        const std::string& root) {
  std::vector<std::string> names;  // one column per key field name, over all entries
  for (const auto& e : entries)
    for (const auto& f : e.fields)
      if (std::find(names.begin(), names.end(), f.first) == names.end()) names.push_back(f.first);
  std::sort(names.begin(), names.end());
  std::vector<std::vector<std::string>> rows{{"key", "kind", "size", "build s", "created", "last used"}};
  rows[0].insert(rows[0].end(), names.begin(), names.end());
  uint64_t total = 0;
  for (const auto& e : entries) {
    rows.push_back({e.key.substr(0, 12), e.kind, bytes_text(e.size_bytes, 1), fmt::format("{:.1f}", e.build_seconds),
                    format_time(e.created_unix), format_time(e.last_used_unix)});
    for (const auto& n : names) rows.back().push_back(e.fields.count(n) ? compact_value(e.fields.at(n)) : "-");
    total += e.size_bytes;
  }
  TableLayout layout;
  layout.right = {false, false, true, true};  // size and build s
  return "cache: " + root + "\n" + aligned_table(rows, layout) +
         fmt::format("total: {} {}, {}{}\n", entries.size(), entries.size() == 1 ? "entry" : "entries",
                     bytes_text(total, 1), damaged.empty() ? "" : fmt::format("; {} damaged", damaged.size())) +
         damaged_text(damaged);
}

}  // namespace

std::string run_cache_command(const CacheArgs& args) {
  const std::string& command = args.command;
  // The command line's rows (cli/options.cpp) refuse any other word, and a line without one, before here.
  if (command != "list" && command != "report" && command != "clear")
    throw runtime_error("run_cache_command: '" + excerpt(command) + "' is no cache command; the command line refuses it");
  std::string dir = args.cache_dir.value_or("");
  if (dir.empty()) {
    try {
      dir = default_cache_root();
    } catch (const Error& e) {  // here, and only here, --cache_dir is an option
      throw usage_error(std::string(e.what()) + ", or pass --cache_dir DIR");
    }
  }
  // A root that is a file (FMWORK_CACHE set to one) listed as "no entries in FILE": it is named instead.
  struct stat st {};
  if (::stat(dir.c_str(), &st) == 0 && !S_ISDIR(st.st_mode))
    throw usage_error("--cache " + command + ": " + dir + " (" +
                      (args.cache_dir ? "--cache_dir" : "from FMWORK_CACHE, XDG_CACHE_HOME or HOME") +
                      ") is not a folder; the cache is a folder: name one with --cache_dir or FMWORK_CACHE");
  ArtifactCache cache(dir);
  if (command == "clear") return fmt::format("removed {} entries from {}\n", cache.clear(), cache.root());
  const std::vector<CacheEntry> entries = cache.list();
  const std::vector<DamagedEntry> damaged = cache.damaged();
  return command == "list" ? list_text(entries, damaged, cache.root()) : report_text(entries, damaged, cache.root());
}

}  // namespace fmwork
