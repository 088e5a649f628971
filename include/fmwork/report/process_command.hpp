// The `process` command: reads driver logs (log_records) and writes them in the format asked for
// (formats, html_report). No LibTorch here.
#pragma once

#include <istream>
#include <ostream>

namespace fmwork {

// The `process` command: argv[0] is the program. Reads the logs (a path "-" is `in`), writes the
// chosen format to `out`, or with --out FILE to FILE (FILE.tmp written, then renamed; a failure is a
// runtime Error naming --out). --help writes the usage to `out`. Throws Error: usage (bad options) or
// runtime (unreadable file, malformed line); main() prints "error: <message>" and exits with its code.
void run_process(int argc, const char* const* argv, std::istream& in, std::ostream& out);

}  // namespace fmwork
