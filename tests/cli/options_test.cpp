// Tests of the one option table (options.hpp): what each command's help, docs/options.md, "did you mean", the
// refusal of another command's option and the required options say all come from its rows, so that any row,
// one added included, is in each of them without a word written elsewhere.
#include "fmwork/cli/options.hpp"

#include <gtest/gtest.h>

#include <cctype>
#include <string>
#include <vector>

#include "fmwork/base/error.hpp"
#include "fmwork/cli/cli.hpp"
#include "fmwork/cli/options_page.hpp"
#include "fmwork/cli/usage.hpp"
#include "fmwork/log/log_schema.hpp"

namespace fmwork {
namespace {

// The usage Error's message for `words` read as `command`'s ("" when taken).
std::string error_of(Command command, std::vector<std::string> words) {
  words.insert(words.begin(), "driver");
  std::vector<const char*> argv;
  for (const std::string& word : words) argv.push_back(word.c_str());
  try {
    parse_command_line(static_cast<int>(argv.size()), argv.data(), command);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage) << e.what();
    return e.what();
  }
  return "";
}

const char* name_of(Command command) { return command == Command::sweep ? "sweep" : "serve"; }

// Each row a command takes is in that command's --help and in docs/options.md, and a misspelling of it (its last
// letter left out) is answered with its name.
TEST(Options, EveryRowIsInItsCommandsHelpDocsAndDidYouMean) {
  const std::string page = options_reference_markdown();
  for (const Command command : {Command::sweep, Command::serve}) {
    const std::string help = command == Command::sweep ? driver_usage({}) : serve_usage();
    for (const Option* option : options_of(command)) {
      SCOPED_TRACE(std::string(name_of(command)) + " " + option->name);
      EXPECT_NE(help.find(option->option()), std::string::npos);
      EXPECT_NE(page.find("`" + option->usage() + "`"), std::string::npos);
      const std::string misspelt = option->option().substr(0, option->option().size() - 1);
      EXPECT_EQ(error_of(command, {misspelt}).rfind("unknown option " + misspelt + "; did you mean " + option->option() + "?", 0),
                0u)
          << error_of(command, {misspelt});
    }
  }
}

// A row one command does not take is refused there, saying whose it is, before any value is read; a row no
// command takes would be dead, and the required options are the rows' own.
// --match's help lists the keys that must agree within a pair by hand (a row's help is a literal): each key the
// schema marks compared must be in it, so a key marked later is not missing from process --help.
TEST(Options, MatchHelpNamesEveryComparedKey) {
  const Option* match = find_option("match", Command::process);
  ASSERT_NE(match, nullptr);
  const std::string help = match->help;
  const auto word_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  const auto names = [&](std::string_view key) {  // as a word, not inside another: "model" in "model_name"
    for (size_t at = help.find(key); at != std::string::npos; at = help.find(key, at + 1))
      if ((at == 0 || !word_char(help[at - 1])) && (at + key.size() == help.size() || !word_char(help[at + key.size()])))
        return true;
    return false;
  };
  for (const std::string_view key : compared_keys()) EXPECT_TRUE(names(key)) << key << " is not in: " << help;
}

TEST(Options, AnotherCommandsOptionIsRefusedSayingWhoseItIs) {
  for (const Option& option : options()) {
    SCOPED_TRACE(option.name);
    EXPECT_NE(option.commands.bits, 0u);
    if (!option.takes(Command::sweep) && !option.takes(Command::serve)) continue;  // process's: its own test
    for (const Command command : {Command::sweep, Command::serve}) {
      EXPECT_TRUE(!option.required_by(command) || option.takes(command));
      if (option.takes(command)) continue;
      const Command owner = command == Command::sweep ? Command::serve : Command::sweep;
      EXPECT_EQ(error_of(command, {option.option() + "=x"}),
                option.option() + " is " + command_text(owner).whose + "; " + command_text(command).does + " (" +
                    command_text(command).line + " --help)");
    }
  }
  EXPECT_EQ(error_of(Command::serve, {"--reps", "3"}),
            "--reps is the sweep's; driver serve runs load levels (driver serve --help)");
  EXPECT_EQ(error_of(Command::sweep, {"--rates", "20"}),
            "--rates is driver serve's; the sweep runs batch x input combinations (driver --help)");
  EXPECT_EQ(error_of(Command::serve, {"--rates", "20"}), "missing required options --platform, --model_class, --model_name");
}

// A word of 100,000 characters is answered with an excerpt in one short line, whichever command reads it.
TEST(Options, AHugeWordIsExcerptedInEveryCommandsMessage) {
  const std::string huge(100000, 'a');
  for (const Command command : {Command::sweep, Command::serve, Command::process, Command::run, Command::cache}) {
    SCOPED_TRACE(command_text(command).line);
    for (const std::string& word : {"--" + huge, "--" + huge + "=1"}) {
      const std::string message = error_of(command, {word});
      EXPECT_FALSE(message.empty());
      EXPECT_LT(message.size(), 1000u) << message.substr(0, 300);
      EXPECT_EQ(message.find('\n'), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace fmwork
