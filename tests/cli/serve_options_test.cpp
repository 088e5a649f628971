// Tests of driver serve's option table: every option refuses a value that would write a log line of its own.
#include "fmwork/cli/cli.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "fmwork/base/error.hpp"
#include "fmwork/workload/arrivals.hpp"

namespace fmwork {
namespace {

// The usage Error's message for serve's words ("" when they are taken).
// serve's words, after the model options it needs (--model_name unless the words give it), read by the one
// tokenizer as serve's.
std::string serve_error(std::vector<std::string> words) {
  std::vector<std::string> line = {"driver", "--platform", "cpu", "--model_class", "BertModel"};
  if (std::find(words.begin(), words.end(), "--model_name") == words.end()) line.insert(line.end(), {"--model_name", "m"});
  line.insert(line.end(), words.begin(), words.end());
  std::vector<const char*> argv;
  for (const std::string& word : line) argv.push_back(word.c_str());
  try {
    parse_command_line(static_cast<int>(argv.size()), argv.data(), Command::serve);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage) << e.what();
    return e.what();
  }
  return "";
}

// serve's words are echoed into the log as FMWORK ARG lines: a line break in one would forge a line.
TEST(ServeOptions, EveryOptionRefusesALineBreak) {
  for (const Option* row : options_of(Command::serve)) {
    const Option& option = *row;
    const std::string name = std::string("--") + option.name;
    const std::string value = std::string(option.example) + "\nFMWORK RES 1.000000000 2.000000000 m c 1 1 1.000 1.0";
    for (const std::vector<std::string>& words :
         {std::vector<std::string>{name, value}, std::vector<std::string>{name + "=" + value}}) {
      EXPECT_EQ(serve_error(words),
                name + ": the value contains a line break; give it on one line, without control characters")
          << fmt::format("{} in {} word(s)", name, words.size());
    }
  }
  // The sweep's words that serve hands on are checked as well, before any is read.
  EXPECT_EQ(serve_error({"--rates", "20", "--model_name", "m\r"}),
            "--model_name: the value contains a line break; give it on one line, without control characters");
}

// Rates are decimal numbers ("0x10" was read as 16), checked by the one range check; a level whose rate and
// minimums make it last past kMaxLevelSeconds is refused with the rate that would fit.
TEST(ServeOptions, RatesAreStrictDecimalsAndALevelMustEndWithinTheBound) {
  EXPECT_EQ(serve_error({"--rates", "20,40.5,1e3"}), "");
  for (const char* bad : {"0x10", "inf", "nan", "+5", "20,0x10", "1e", " 5"}) {
    EXPECT_EQ(serve_error({"--rates", bad}).rfind("--rates expects comma-separated arrival rates", 0), 0u)
        << fmt::format("--rates {}: {}", bad, serve_error({"--rates", bad}));
  }
  EXPECT_EQ(serve_error({"--rates", "0"}), "--rates 0: a rate must be a number of queries a second above 0 and at most 1e+06");
  // No rate runs twice: the same rate listed again is a typo, refused before anything runs.
  EXPECT_EQ(serve_error({"--rates", "10,20,10.0"}), "--rates lists 10 twice; give each rate once");
  // No --min_queries fits a rate this low: the advice is the rate alone (it said "or a lower --min_queries").
  EXPECT_EQ(serve_error({"--rates", "20,0.0001"}),
            "--rates 0.0001: a level at 0.0001 queries/s takes about 1000001 s to hold --min_queries 100, past the "
            "3600 s a level may last; give a rate of at least 0.02779 queries/s");
  EXPECT_EQ(serve_error({"--rates", "0.01"}),
            "--rates 0.01: a level at 0.01 queries/s takes about 10001 s to hold --min_queries 100, past the 3600 s a "
            "level may last; give a rate of at least 0.02779 queries/s, or --min_queries 35 or fewer");
  EXPECT_EQ(serve_error({"--rates", "0.01", "--min_queries", "35"}), "") << "the minimum the message gives fits";
  EXPECT_EQ(serve_error({"--rates", "0.02779"}), "") << "the rate the message gives fits";
  EXPECT_EQ(serve_error({"--rates", "0.01", "--min_queries", "30"}), "");
  EXPECT_EQ(serve_error({"--rates", "20", "--warmup_s", "3000", "--duration_s", "1000"}),
            "--warmup_s 3000 and --duration_s 1000 make every level last at least 4000 s, past the 3600 s a level may "
            "last; give them at most 3600 s together");
  EXPECT_EQ(serve_error({"--latency_bound", "p99:50", "--search_start", "0x20"}),
            "--search_start expects a decimal rate like 20; got '0x20'");
  EXPECT_EQ(serve_error({"--latency_bound", "p99:50", "--search_start", "0.001"}).rfind("--search_start 0.001: a level", 0),
            0u);
}

// Defect: --price_per_hour 1e-300 was taken and written price_per_hour=0.0000: a price is from the log's 0.0001.
TEST(ServeOptions, APriceIsFromOneTenThousandthToAMillion) {
  const std::vector<std::string> bound = {"--rates", "20", "--latency_bound", "p99:50", "--price_per_hour"};
  const auto with = [&](const std::string& price) {
    std::vector<std::string> words = bound;
    words.push_back(price);
    return serve_error(words);
  };
  for (const char* good : {"3.20", "0.0001", "1000000"}) EXPECT_EQ(with(good), "") << good;
  for (const char* bad : {"1e-300", "0.00009", "0", "1000001", "-1"})
    EXPECT_EQ(with(bad), fmt::format("--price_per_hour expects a price from 0.0001 to 1000000 (USD an hour), like 3.20; "
                                     "got '{}'", bad));
}

// Defects: a --rates list whose later level would schedule more queries than a level may hold ran its first
// levels and was refused at the later one; the same for --search_start named --rates, at run time.
TEST(ServeOptions, EveryLevelsQueryCountIsCheckedBeforeAnyRuns) {
  EXPECT_EQ(serve_error({"--rates", "10,900000"}),
            "--rates 900000: warm-up and the minimum duration would schedule about 5400100 queries, more than the "
            "2000000 a level may hold; give a rate of at most 299900 queries/s, or a shorter --warmup_s or --duration_s");
  EXPECT_EQ(serve_error({"--rates", "299900"}), "") << "the rate the message gives fits";
  EXPECT_EQ(serve_error({"--latency_bound", "p99:50", "--search_start", "500000", "--duration_s", "10"})
                .rfind("--search_start 500000: warm-up and the minimum duration would schedule about 5500100 queries", 0),
            0u);
  EXPECT_EQ(serve_error({"--latency_bound", "p99:50", "--search_start", "2e6"}),
            "--search_start 2000000: a rate must be a number of queries a second above 0 and at most 1e+06");
  EXPECT_DOUBLE_EQ(highest_level_rate(1, 5, 100), (2'000'000 * 0.9 - 100) / 6.0);
  EXPECT_DOUBLE_EQ(highest_level_rate(0, 0.001, 100), kMaxArrivalRate);
}

// Defect: a misspelt serve option reached the sweep's parser, which knows only its own names: "--rate 20" was
// "unknown option --rate; the fixed options are ..." with no word of --rates.
TEST(ServeOptions, AMisspeltOptionIsRefusedWithTheServeOptionMeant) {
  const std::string tail = "; driver serve --help lists serve's options and the model's";
  EXPECT_EQ(serve_error({"--rate", "20"}), "unknown option --rate; did you mean --rates?" + tail);
  EXPECT_EQ(serve_error({"--rates", "20", "--latency-bound", "p99:50"}),
            "unknown option --latency-bound; did you mean --latency_bound?" + tail);
  EXPECT_EQ(serve_error({"--rates", "20", "--max_wait=2"}), "unknown option --max_wait; did you mean --max_wait_ms?" + tail);
  EXPECT_EQ(serve_error({"--rates", "20", "--model_nme", "m"}),
            "unknown option --model_nme; did you mean --model_name?" + tail);
  EXPECT_EQ(serve_error({"--rates", "20", "--zzzzzzzzzz"}), "unknown option --zzzzzzzzzz" + tail);
  // The sweep's options and sub-options pass, their values whatever they look like.
  EXPECT_EQ(serve_error({"--rates", "20", "--model_name", "m", "--eval", "--model:x", "--rate", "--seed=3"}), "");
}

}  // namespace
}  // namespace fmwork
