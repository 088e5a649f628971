// Tests of a row added to the one option table (extra_option.hpp): a new option is one row. The rows added
// here are no option of the driver's; --help, docs/options.md, "did you mean", the tokenizer and the args JSON
// show them through the code that shows the real rows, with no word of theirs written anywhere else.
#include "fmwork/cli/extra_option.hpp"
#include "fmwork/cli/options.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "fmwork/base/error.hpp"
#include "fmwork/cli/cli.hpp"
#include "fmwork/cli/options_page.hpp"
#include "fmwork/cli/usage.hpp"

namespace fmwork {
namespace {

std::string g_marks_read;  // what the test row's reader was given

void read_marks(OptionGroups&, const std::string&, const std::string& text) { g_marks_read = text; }
std::optional<Value> marks_value(const FixedArgs&) {
  return g_marks_read.empty() ? Value::none() : Value::of_string(g_marks_read);
}

const Option kMarks{{"tally_marks", "N", "3", "a row only this test adds: its reader keeps the value"},
                    kSweepOnly, kNoCommand, Origin::ours, read_marks, marks_value};
const Option kPace{{"serve_pace", "P", "slow", "a serve row only this test adds"},
                   kServeOnly, kServeOnly, Origin::ours, read_marks};

std::vector<std::string> row_sweep_line(std::vector<std::string> extra) {
  std::vector<std::string> words = {"driver", "--platform", "cpu", "--model_name", "m", "--model_class", "BertModel",
                                    "--input_sizes", "16", "--batch_sizes", "2", "--reps", "2"};
  words.insert(words.end(), extra.begin(), extra.end());
  return words;
}

CommandLine row_parse(const std::vector<std::string>& words, Command command) {
  std::vector<const char*> argv;
  for (const std::string& word : words) argv.push_back(word.c_str());
  return parse_command_line(static_cast<int>(argv.size()), argv.data(), command);
}

std::string row_error(const std::vector<std::string>& words, Command command = Command::sweep) {
  try {
    row_parse(words, command);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(ExtraOption, ARowAddedIsInHelpDocsDidYouMeanAndTheTokenizer) {
  g_marks_read.clear();
  {
    ExtraOption added(kMarks);
    const std::string help = driver_usage({});
    EXPECT_NE(help.find("[--tally_marks N]"), std::string::npos) << help;
    EXPECT_NE(help.find("  --tally_marks VALUE   a row only this test adds: its reader keeps the value\n"),
              std::string::npos) << help;
    EXPECT_NE(options_reference_markdown().find(
                  "| `--tally_marks N` | `--tally_marks 3` |  | ours | a row only this test adds: its reader keeps the value |"),
              std::string::npos);
    EXPECT_EQ(row_error(row_sweep_line({"--tally_mark", "3"})).rfind("unknown option --tally_mark; did you mean --tally_marks?", 0), 0u)
        << row_error(row_sweep_line({"--tally_mark", "3"}));
    EXPECT_EQ(row_error(row_sweep_line({"--tally_marks"})).rfind("--tally_marks needs a value, like --tally_marks 3", 0), 0u);
    EXPECT_EQ(row_error({"driver", "--tally_marks", "3"}, Command::serve),
              "--tally_marks is the sweep's; driver serve runs load levels (driver serve --help)");
    const CommandLine line = row_parse(row_sweep_line({"--tally_marks=4"}), Command::sweep);
    EXPECT_EQ(g_marks_read, "4");
    EXPECT_NE(std::find(line.arg_words.begin(), line.arg_words.end(), "--tally_marks 4"), line.arg_words.end());
    const auto fields = args_json_fields(line.args);
    EXPECT_NE(std::find(fields.begin(), fields.end(), std::pair<std::string, std::string>{"tally_marks", "4"}),
              fields.end());
    EXPECT_THROW(ExtraOption{kPace}, Error);  // one at a time
  }
  EXPECT_EQ(find_option("tally_marks"), nullptr);
  EXPECT_EQ(driver_usage({}).find("tally_marks"), std::string::npos);
  EXPECT_EQ(row_error(row_sweep_line({"--tally_marks", "3"})).rfind("unknown option --tally_marks", 0), 0u);
}

TEST(ExtraOption, AServeRowIsInServesHelpAndDocsAndRequiredWhereItSaysSo) {
  ExtraOption added(kPace);
  EXPECT_NE(serve_usage().find("  --serve_pace P"), std::string::npos) << serve_usage();
  EXPECT_EQ(driver_usage({}).find("serve_pace"), std::string::npos);
  EXPECT_NE(options_reference_markdown().find("| `--serve_pace P` | `--serve_pace slow` | a serve row only this test adds |"),
            std::string::npos);
  EXPECT_EQ(row_error({"driver", "--platform", "cpu", "--model_name", "m", "--model_class", "B", "--rates", "5"},
                     Command::serve),
            "missing required option --serve_pace");
  EXPECT_EQ(row_error({"driver", "--serve_pac", "x"}, Command::serve).rfind("unknown option --serve_pac; did you mean --serve_pace?", 0),
            0u);
}

// A row of process's: in process's --help (laid out as the others) and its did-you-mean, read by the one tokenizer.
TEST(ExtraOption, AProcessRowIsInProcessHelpAndDidYouMean) {
  const Option tally{{"tally-marks", "N", "3", "a process row only this test adds"}, only(Command::process), kNoCommand,
                     Origin::ours, read_marks};
  ExtraOption added(tally);
  EXPECT_NE(command_usage(Command::process).find("\n  --tally-marks N" + std::string(13, ' ') + "a process row only this test adds\n"),
            std::string::npos) << command_usage(Command::process);
  EXPECT_EQ(row_error({"process", "--tally-mark", "3"}, Command::process),
            "unknown option --tally-mark; did you mean --tally-marks? (see process --help)");
  row_parse({"process", "--tally-marks", "4", "a.log"}, Command::process);
  EXPECT_EQ(g_marks_read, "4");
  EXPECT_EQ(driver_usage({}).find("tally-marks"), std::string::npos);
}

TEST(ExtraOption, ANameTheTableHasIsRefused) {
  Option twice = kMarks;
  twice.name = "reps";
  const size_t rows = options().size();
  EXPECT_THROW(ExtraOption{twice}, Error);
  EXPECT_EQ(options().size(), rows);
}

// A row of driver --cache's is in its synopsis (its --help's usage line, the refusal of --cache among a sweep's
// options) and in the message for a line without a command: both come from the rows, none is written by hand.
TEST(ExtraOption, ACacheRowIsInTheCacheSynopsisAndItsMessage) {
  EXPECT_EQ(command_synopsis(Command::cache), "list|report|clear [--cache_dir DIR]");
  EXPECT_EQ(row_error({"driver"}, Command::cache), "--cache: expected list, report or clear, then optionally --cache_dir DIR");
  const Option older{{"older-than", "DAYS", "30", "a cache row only this test adds"}, only(Command::cache), kNoCommand,
                     Origin::ours, read_marks};
  ExtraOption added(older);
  EXPECT_EQ(command_synopsis(Command::cache), "list|report|clear [--cache_dir DIR] [--older-than DAYS]");
  EXPECT_EQ(row_error({"driver"}, Command::cache),
            "--cache: expected list, report or clear, then optionally --cache_dir DIR, --older-than DAYS");
  EXPECT_EQ(row_error({"driver", "--platform", "cpu", "--cache", "list"}),
            "--cache is a sub-command and comes first: driver --cache list|report|clear [--cache_dir DIR] "
            "[--older-than DAYS]");
  row_parse({"driver", "list", "--older-than", "7"}, Command::cache);
  EXPECT_EQ(g_marks_read, "7");
}

}  // namespace
}  // namespace fmwork
