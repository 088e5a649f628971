// Fuzz target: the log parser of `process` (log_records), then the whole command on the same log as its
// stdin, in each output format, as `process` runs on a log it is given. The HTML page must hold no markup
// from the log: a "<script" in it is a finding, and so is the log fed in pieces reading otherwise than whole.
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string_view>
#include <string>

#include "fmwork/log/log_records.hpp"
#include "fmwork/report/process_command.hpp"
#include "fuzz_support.hpp"

namespace {

// What a read of a log came to, for comparing two: its refusal, or the line numbers and notes it keeps.
template <typename F>
std::string outcome(F&& read) {
  std::string out;
  fmwork::fuzz::refusal_allowed([&] {
    try {
      const fmwork::ParsedLog log = read();
      out = std::to_string(log.fmwork_lines) + " lines, opts " + std::to_string(log.opts.size()) + ", RES at";
      for (const fmwork::CombinationRecord& r : log.results)
        out += " " + std::to_string(r.line) + "/" + std::to_string(r.rep_durations.size());
      for (size_t line : log.failure_lines) out += " FAIL " + std::to_string(line);
      for (const std::string& note : log.notes) out += " " + note;
    } catch (const fmwork::Error& e) {
      out = std::string("refused: ") + e.what();
      throw;
    }
  });
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(fmwork::fuzz::as_text(data, size));
  const std::string whole = outcome([&] { return fmwork::parse_log_text(text, "fuzz.log"); });
  const std::string pieces = outcome([&] {
    fmwork::LogStreamParser parser("fuzz.log");
    const size_t step = 1 + size % 13;  // "\r" | "\n" falls between two pieces at some sizes
    for (size_t at = 0; at < text.size(); at += step) parser.feed(std::string_view(text).substr(at, step));
    return parser.finish();
  });
  if (whole != pieces) {
    std::fprintf(stderr, "fuzz: the log in pieces reads otherwise than whole:\n%s\n%s\n", whole.c_str(), pieces.c_str());
    std::abort();
  }
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
