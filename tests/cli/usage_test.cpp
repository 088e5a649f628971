// Tests of `driver --help` (usage.hpp): every fixed option, subcommand, sub-option set and table key is in
// it, laid out as the tables say. That each example runs: DriverTest.EveryHelpExampleRuns.
#include "fmwork/cli/usage.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "fmwork/base/error.hpp"
#include "fmwork/cli/fixed_options.hpp"
#include "fmwork/cli/options.hpp"
#include "fmwork/cli/option_sets.hpp"
#include "fmwork/cli/sub_options.hpp"
#include "support/text_lines.hpp"

namespace fmwork {
namespace {

using test_support::line_starting;

// Every row of the fixed options' table has its help line (marked required when it is) and its place in the
// usage lines, bracketed when optional; every sub-option set has its summary line.
TEST(Usage, NamesEveryFixedOptionAndSet) {
  const std::string usage = driver_usage({});
  const std::string usage_lines = usage.substr(0, usage.find("\n\n"));
  for (const Option* row : options_of(Command::sweep)) {
    const Option& option = *row;
    SCOPED_TRACE(option.name);
    const bool flag = option.flag();
    const std::string line = line_starting(usage, std::string("  --") + option.name + (flag ? " " : " VALUE "));
    ASSERT_NE(line, "");
    EXPECT_NE(line.find(option.help), std::string::npos) << line;
    EXPECT_EQ(line.size() >= 11 && line.compare(line.size() - 11, 11, " (required)") == 0, option.required_by(Command::sweep)) << line;
    const std::string shown = std::string("--") + option.name + (flag ? "" : std::string(" ") + option.value_name);
    EXPECT_NE(usage_lines.find(option.required_by(Command::sweep) ? " " + shown + " " : "[" + shown + "]"), std::string::npos)
        << usage_lines;
  }
  for (const auto& set : kSubOptionSets) EXPECT_NE(line_starting(usage, "  --" + set + ":"), "") << set;
}

// The usage lines, written from the table, are the ones written by hand before it.
TEST(Usage, UsageLinesOfTheFixedOptions) {
  EXPECT_EQ(driver_usage({}).substr(0, driver_usage({}).find("\n\n") + 1),
            "usage: driver --platform P --model_class C [--model_root R] --model_name N [--compile] [--eval]\n"
            "              --input_sizes I[,I...] --batch_sizes B[,B...] --reps N [--seed S]\n"
            "              [--save_outputs DIR] [--check_outputs DIR] [--profile DIR] [--isolate]\n"
            "              [--isolate_timeout S] [--warmup N] [--input_lengths SPEC] [--batching MODE]\n"
            "              [--sort_window N] [--quiet] [--SET:key[@] VALUE ...]\n");
}

TEST(Usage, NamesEverySubcommandWithItsSummary) {
  const std::vector<SubcommandDoc> subcommands = {{"run", "EXPERIMENT --out ROOT", "runs a campaign"},
                                                  {"--cache", "list|report|clear", "lists the cache"}};
  const std::string usage = driver_usage(subcommands);
  EXPECT_NE(usage.find("[--SET:key[@] VALUE ...]\n"
                       "       driver run EXPERIMENT --out ROOT\n"
                       "       driver --cache list|report|clear\n\n"),
            std::string::npos)
      << usage;
  EXPECT_NE(usage.find("\nsubcommands:\n"
                       "  run                   runs a campaign\n"
                       "  --cache               lists the cache\n\n"
                       "fixed options:\n"),
            std::string::npos)
      << usage;
  EXPECT_EQ(driver_usage({}).find("subcommands:"), std::string::npos);
  EXPECT_EQ(subcommand_usage(subcommands[1]), "usage: driver --cache list|report|clear\n\nlists the cache\n");
}

// The message of refuse_misspelt_subcommand for `words`, "" when it lets them through.
std::string misspelt_subcommand_error(const std::vector<std::string>& words) {
  const std::vector<SubcommandDoc> subcommands = {{"run", "", ""}, {"serve", "", ""}, {"--cache", "", ""}};
  try {
    refuse_misspelt_subcommand(words, subcommands);
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), 2) << e.what();
    return e.what();
  }
  return "";
}

// Defect: "driver serv ..." was read as a sweep with a stray word ("unexpected argument 'serv'; options are
// written --NAME VALUE ..."), and "driver --cach list" as an unknown fixed option, neither naming the
// subcommand meant.
TEST(Usage, AMisspeltSubcommandIsRefusedWithTheOneMeant) {
  EXPECT_EQ(misspelt_subcommand_error({"serv", "--rates", "20"}),
            "unknown subcommand 'serv'; did you mean serve? (driver --help lists the subcommands)");
  EXPECT_EQ(misspelt_subcommand_error({"rn", "exp.json"}),
            "unknown subcommand 'rn'; did you mean run? (driver --help lists the subcommands)");
  EXPECT_EQ(misspelt_subcommand_error({"--cach", "list"}),
            "unknown option --cach; did you mean --cache? (driver --help lists the subcommands)");
  for (const std::vector<std::string>& fine :
       {std::vector<std::string>{"serve"}, {"--platform", "cpu"}, {"--reps=5"}, {"--model:x", "1"}, {"--help"},
        {"--version"}, {"--hlp"}, {"--rep", "2"}, {"model.pt"}, {}})
    EXPECT_EQ(misspelt_subcommand_error(fine), "") << (fine.empty() ? "" : fine[0]);
}

// Examples are whole command lines of at most 100 characters a line, each continued line ending in " \\".
TEST(Usage, ExamplesAreWrappedCommandLines) {
  const std::string usage = driver_usage({});
  const size_t at = usage.find("\nexamples:\n");
  ASSERT_NE(at, std::string::npos);
  size_t commands = 0;
  bool continued = false;
  std::istringstream lines(usage.substr(at + 11));
  for (std::string line; std::getline(lines, line);) {
    SCOPED_TRACE(line);
    EXPECT_LE(line.size(), 100u);
    EXPECT_EQ(line.rfind(continued ? "         --" : "  driver ", 0), 0u);
    commands += continued ? 0 : 1;
    continued = line.size() >= 2 && line.compare(line.size() - 2, 2, " \\") == 0;
  }
  EXPECT_FALSE(continued);
  EXPECT_GE(commands, 2u);
}

// The help's sub-option summaries, as they were before option_sets' tables wrote them.
TEST(Usage, SubOptionSummaries) {
  const std::string usage = driver_usage({});
  EXPECT_NE(usage.find(
                "  --compile:KEY       torch.compile options: backend, mode, dynamic, fullgraph, disable, options:KEY\n"
                "  --model:KEY         model loading: torch_dtype, attn_implementation, add_pooling_layer, vocab_size, ...\n"
                "  --torch.call:NAME   call torch.NAME(VALUE) at start-up, in name order, e.g. "
                "--torch.call:set_grad_enabled@ False\n"
                "  --torch.set:PATH    set torch.PATH = VALUE after the calls, e.g. --torch.set:backends.cudnn.benchmark@ True\n"
                "  --platform:KEY      options handed to a device plugin\n"
                "  --check_outputs:KEY the output checks: atol@, rtol@, cosine@, cpu@ (tolerances: defaults by dtype)\n"),
            std::string::npos)
      << usage;
}

// Every key of option_sets' tables is in the help, with its example, help line and aliases; so is every
// key --model: ignores. With EveryTableKeyIsAcceptedAndTyped (option_sets_test), help and parser agree.
TEST(Usage, ShowsEveryTableKey) {
  const std::string usage = driver_usage({});
  for (const auto& doc : option_set_docs()) {
    EXPECT_NE(usage.find("  --" + doc.set + ":KEY"), std::string::npos) << doc.set;
    for (const auto& key : doc.keys) {
      const size_t at = usage.find("\n  " + key.example + " ");
      ASSERT_NE(at, std::string::npos) << key.example;
      const std::string line = usage.substr(at + 1, usage.find('\n', at + 1) - at - 1);
      EXPECT_NE(line.find(key.help), std::string::npos) << line;
      for (const auto& alias : key.aliases) EXPECT_NE(line.find("--" + doc.set + ":" + alias), std::string::npos) << line;
    }
  }
  const std::string ignored_from = usage.substr(usage.find("--model: accepts and ignores"));
  for (const auto& key : ignored_model_keys()) {
    const size_t at = ignored_from.find(" " + key.key);
    ASSERT_NE(at, std::string::npos) << key.key;
    EXPECT_NE(std::string(",\n").find(ignored_from.at(at + 1 + key.key.size())), std::string::npos) << key.key;
  }
  for (const auto& set : kSubOptionSets) EXPECT_NE(usage.find("\n  --" + set + ":"), std::string::npos) << set;
}

}  // namespace
}  // namespace fmwork
