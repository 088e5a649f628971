// The `process` command: reads driver logs (log_records) and writes them in the format asked for
// (formats, html_report). No LibTorch here.
#pragma once

#include <istream>
#include <ostream>

namespace fmwork {

// The `process` command: argv[0] is the program. Reads the logs (a path "-" is `in`; process_io), writes the
// chosen format to `out`, or with --out FILE to FILE as write_output_file does (a regular file replaced
// whole or left untouched, a FIFO or a device written as a stream, anything else refused). json, csv and
// summary of --path logs are written log by log (every log read once to check it first: a bad one leaves no
// output), the others whole. When `out` fails (its reader gone), reading stops and it returns: main()
// tells how it ended. --help writes the usage to `out`; notes ("note: ..." lines: a log's cut last line
// left out, a plan.json that is not a campaign's passed over) and "skipped: ..." lines (a *.log under a
// folder that is no driver log) go to `err`. Throws Error: usage (bad options, an option that does nothing
// in the mode chosen, an --out that is a file it reads) or runtime (an unreadable file, a malformed line,
// a file with no FMWORK line, a failed write, logs skipped: after the output of the others);
// main() prints "error: <message>" and exits with its code.
void run_process(int argc, const char* const* argv, std::istream& in, std::ostream& out, std::ostream& err);

}  // namespace fmwork
