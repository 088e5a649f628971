// Every FMWORK line the driver writes and `process` reads, defined once: a record type, its writer and
// its parser. Upstream's lines (ARG, SETUP, REP, RES) keep upstream's exact layout; ours (META, STAT,
// FAIL, MEM) are `FMWORK <WORD> key=value ...` lines upstream's tools ignore.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace fmwork {

// A point in time as integer nanoseconds; written "seconds.nanoseconds" with exactly 9 digits.
using Nanos = int64_t;
std::string format_timestamp(Nanos t);        // 1108911088153850 -> "1108911.088153850"
std::string format_duration_seconds(Nanos dt);  // 3702621 -> "0.003702621"

// The banner upstream prints: "\n" + 80 '-' + "\n" + title + "\n" + 80 '-' + "\n\n".
std::string banner(const std::string& title);

// FMWORK ARG <text>: one option as typed ("--reps 100", "--compile").
struct ArgLine { std::string text; };
// FMWORK SETUP 1.234567: seconds from the start of loading to the model being ready.
struct SetupLine { double seconds = 0; };
// FMWORK REP <rep> <reps> <t0> <t1> <dt>
struct RepLine { int64_t rep = 0, reps = 0; Nanos t0 = 0, t1 = 0; };
// FMWORK RES <t_first> <t_last> <model_name> <model_class> <input> <batch> <latency_ms %.3f> <thp %.1f>
struct ResLine {
  Nanos t_first = 0, t_last = 0;
  std::string model_name, model_class;
  int64_t input = 0, batch = 0;
  double latency_ms = 0, throughput = 0;
};

// Our extension lines: an ordered list of key=value fields. Values hold no spaces, except the last field
// of a FAIL line (`error=`), which runs to the end of the line.
struct Fields {
  std::vector<std::pair<std::string, std::string>> items;
  const std::string* find(std::string_view key) const;  // nullptr when absent
};
// FMWORK META key=value ...: run metadata (versions, device, threads, dtype, seed, ...).
struct MetaLine { Fields fields; };
// FMWORK STAT input=I batch=B reps=N dropped=D mean_ms= stddev_ms= min_ms= p50_ms= p90_ms= p99_ms= max_ms=
struct StatLine { Fields fields; };
// FMWORK MEM input=I batch=B allocated_peak_bytes= reserved_peak_bytes=
struct MemLine { Fields fields; };
// FMWORK FAIL input=I batch=B error=<free text to the end of the line>
struct FailLine { Fields fields; };

using LogLine = std::variant<ArgLine, SetupLine, RepLine, ResLine, MetaLine, StatLine, MemLine, FailLine>;

// The line's text without the trailing newline.
std::string format_line(const LogLine& line);

// Parses one line (a trailing "\n" or "\r\n" is ignored). Lines that do not start with "FMWORK " and
// FMWORK lines of words we do not read (EXP, ENV, ...) give nullopt. A line of a known word that is
// malformed throws a runtime Error saying which field is wrong; callers add file and line number.
std::optional<LogLine> parse_line(std::string_view line);

}  // namespace fmwork
