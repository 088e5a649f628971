// Fuzz target: the log parser of `process` (log_records), then the whole command on the same log as its
// stdin, in each output format, as `process` runs on a log it is given. The HTML page must hold no markup
// from the log: a "<script" in it is a finding.
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

#include "fmwork/log/log_records.hpp"
#include "fmwork/report/process_command.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(fmwork::fuzz::as_text(data, size));
  fmwork::fuzz::refusal_allowed([&] { (void)fmwork::parse_log_text(text, "fuzz.log"); });
  for (const std::string format : {"json", "csv", "summary", "html"}) {
    fmwork::fuzz::refusal_allowed([&] {
      std::istringstream in(text);
      std::ostringstream out;
      const char* argv[] = {"process", "--path", "-", "--format", format.c_str()};
      std::ostringstream err;
      fmwork::run_process(5, argv, in, out, err);
      if (format == "html" && out.str().find("<script") != std::string::npos) {
        std::fprintf(stderr, "fuzz: markup from the log in the HTML page\n");
        std::abort();
      }
    });
  }
  return 0;
}
