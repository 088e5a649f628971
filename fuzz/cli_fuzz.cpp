// Fuzz target: the driver's command line (cli's parse_command_line), argv split from the input at NUL bytes,
// and the ARGS section written from what it accepted.
#include <string>
#include <vector>

#include "fmwork/cli/args_section.hpp"
#include "fmwork/cli/cli.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string> words{"driver"};
  std::string word;
  for (const char c : fmwork::fuzz::as_text(data, size)) {
    if (c == '\0') {
      words.push_back(word);
      word.clear();
    } else {
      word += c;
    }
  }
  words.push_back(word);
  std::vector<const char*> argv;
  for (const auto& w : words) argv.push_back(w.c_str());
  argv.push_back(nullptr);
  fmwork::fuzz::refusal_allowed([&] {
    const fmwork::CommandLine cl = fmwork::parse_command_line(static_cast<int>(words.size()), argv.data());
    (void)fmwork::format_args_section(cl);
  });
  return 0;
}
