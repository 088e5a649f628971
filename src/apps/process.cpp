// `process`: driver logs into upstream's JSON, CSV, a summary table or an HTML page. See docs/log-lines.md
// and docs/report.md.
#include <exception>
#include <iostream>

#include "fmwork/base/error.hpp"
#include "fmwork/log/log_format.hpp"
#include "fmwork/report/process_command.hpp"

int main(int argc, char** argv) {
  try {
    fmwork::run_process(argc, argv, std::cin, std::cout, std::cerr);
    fmwork::flush_or_throw(std::cout, "the output to standard output");
    return 0;
  } catch (const fmwork::Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return e.exit_code();
  } catch (const std::exception& e) {
    std::cerr << "error: " << fmwork::escape_controls(e.what()) << "\n";
    return 1;
  }
}
