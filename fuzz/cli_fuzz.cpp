// Fuzz target: every command's command line through the one tokenizer (cli's parse_command_line): the first
// byte picks the command (sweep, serve, process, run, cache), argv is the rest split at NUL bytes, and for the
// commands that run the model the ARGS section is written from what it accepted.
#include <string>
#include <vector>

#include "fmwork/cli/args_section.hpp"
#include "fmwork/cli/cli.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const auto command = static_cast<fmwork::Command>(data[0] % 5);
  std::vector<std::string> words{"driver"};
  std::string word;
  for (const char c : fmwork::fuzz::as_text(data + 1, size - 1)) {
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
    const fmwork::CommandLine cl = fmwork::parse_command_line(static_cast<int>(words.size()), argv.data(), command);
    if (command == fmwork::Command::sweep || command == fmwork::Command::serve) (void)fmwork::format_args_section(cl);
  });
  return 0;
}
