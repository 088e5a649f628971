// `process`: driver logs into upstream's JSON, CSV, a summary table or an HTML page. See docs/log-lines.md
// and docs/report.md.
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <exception>
#include <iostream>
#include <new>

#include "fmwork/base/error.hpp"
#include "fmwork/base/whole_lines.hpp"
#include "fmwork/log/log_format.hpp"
#include "fmwork/report/process_command.hpp"

int main(int argc, char** argv) {
  // `process ... | head -1` is reading what it wants: a write into a pipe with no reader is a failed write,
  // not a death by SIGPIPE (rc 141), and ends quietly with status 0 below.
  std::signal(SIGPIPE, SIG_IGN);
  try {
    fmwork::run_process(argc, argv, std::cin, std::cout, std::cerr);
    errno = 0;
    if (!std::cout.flush()) {
      fmwork::note_write_error(std::cout);  // the reason (a full disk), before anything else sets errno
      if (fmwork::reader_gone(STDOUT_FILENO)) return 0;
    }
    fmwork::flush_or_throw(std::cout, "the output to standard output");
    return 0;
  } catch (const fmwork::Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return e.exit_code();
  } catch (const std::bad_alloc&) {
    std::cerr << "error: out of memory while reading the logs or writing the output (ulimit -v?); give fewer "
                 "logs, or --format csv or json, which are written log by log\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "error: " << fmwork::escape_controls(e.what()) << "\n";
    return 1;
  }
}
