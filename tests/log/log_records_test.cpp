// Tests of log_records: what belongs to each RES line of a log.
#include "fmwork/log/log_records.hpp"

#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "fmwork/base/error.hpp"
#include "fmwork/log/log_format.hpp"
#include "support/process_fixtures.hpp"

namespace fmwork {
namespace {

using namespace process_fixtures;

// ---- reading logs ----

TEST(LogRecords, OptsAreEveryArgOfTheFileLikeUpstream) {
  // Upstream's records share one opts list, printed after the whole file is read.
  const std::string log =
      "FMWORK ARG --a 1\n"
      "FMWORK RES 1.000000000 2.000000000 m c 1 1 1.000 1000.0\n"
      "FMWORK ARG --b 2\n";
  ParsedLog parsed;
  std::istringstream in(log);
  parsed = parse_log(in, "-");
  ASSERT_EQ(parsed.results.size(), 1u);
  EXPECT_EQ(parsed.results[0].opts, (std::vector<std::string>{"--a 1", "--b 2"}));
}

// A full disk cuts a log mid-line: the cut last line (no newline, does not parse) is left out with a note,
// the combinations before it are kept; the same line with its newline is a malformed line, an Error.
TEST(LogRecords, ACutLastLineIsLeftOutWithANote) {
  const std::string res = "FMWORK RES 1.000000000 2.000000000 m c 8 1 1.000 1000.0\n";
  const ParsedLog log = parse_log_text("FMWORK ARG --a 1\n" + res + "FMWORK REP 29 30 1795490538.289988147 17", "x.log");
  EXPECT_EQ(log.results.size(), 1u);
  EXPECT_EQ(log.fmwork_lines, 2u);
  ASSERT_EQ(log.notes.size(), 1u);
  EXPECT_EQ(log.notes[0], "x.log:3: the last line is cut short (no newline at its end; FMWORK REP line has 6 fields, "
                          "expected 7): left out, the lines before it are read");
  EXPECT_THROW(parse_log_text(res + "FMWORK REP 29 30 1795490538.289988147 17\n", "x.log"), Error);
  EXPECT_TRUE(parse_log_text(res, "x.log").notes.empty());
  EXPECT_EQ(parse_log_text("no driver here\n", "x.log").fmwork_lines, 0u);
}

TEST(LogRecords, StatAndMemBelongToTheirResult) {
  const std::string log =
      // STAT and MEM after their RES (our driver's order)
      "FMWORK REP 1 2 1.000000000 1.500000000 0.500000000\n"
      "FMWORK REP 2 2 1.500000000 1.600000000 0.100000000\n"
      "FMWORK RES 1.000000000 1.600000000 m c 8 1 100.000 10.0\n"
      "FMWORK STAT input=8 batch=1 reps=2 dropped=1\n"
      "FMWORK MEM input=8 batch=1 allocated_peak_bytes=5\n"
      // STAT before its RES
      "FMWORK STAT input=8 batch=2 reps=2 dropped=1 p50_ms=9\n"
      "FMWORK RES 2.000000000 3.000000000 m c 8 2 9.000 222.2\n"
      // a STAT of another size does not attach to the RES before it
      "FMWORK STAT input=16 batch=2 reps=2 dropped=1\n"
      "FMWORK RES 4.000000000 5.000000000 m c 16 2 9.000 222.2\n"
      "FMWORK RES 6.000000000 7.000000000 m c 32 2 9.000 222.2\n"
      "FMWORK FAIL input=64 batch=2 error=boom\n";
  std::istringstream in(log);
  ParsedLog parsed = parse_log(in, "x.log");
  ASSERT_EQ(parsed.results.size(), 4u);
  ASSERT_TRUE(parsed.results[0].stat && parsed.results[0].mem);
  EXPECT_EQ(parsed.results[0].rep_durations, (std::vector<Nanos>{500000000, 100000000}));
  EXPECT_EQ(parsed.results[0].line, 3u);
  EXPECT_EQ(parsed.results[0].timestamp, "1.000000000");
  ASSERT_TRUE(parsed.results[1].stat);
  EXPECT_EQ(*parsed.results[1].stat->fields.find("p50_ms"), "9");
  EXPECT_FALSE(parsed.results[1].mem);
  EXPECT_TRUE(parsed.results[1].rep_durations.empty());
  ASSERT_TRUE(parsed.results[2].stat);
  EXPECT_EQ(*parsed.results[2].stat->fields.find("input"), "16");
  EXPECT_FALSE(parsed.results[3].stat);
  ASSERT_EQ(parsed.failures.size(), 1u);
  EXPECT_EQ(parsed.failure_lines, (std::vector<size_t>{11}));
  EXPECT_EQ(*parsed.failures[0].fields.find("error"), "boom");
}

TEST(LogRecords, SetupAndPrecisionAreTheLastBeforeEachResult) {
  const std::string log =
      "FMWORK RES 1.000000000 2.000000000 m c 1 1 1.000 1000.0\n"
      "FMWORK SETUP 1.5\n"
      "FMWORK META dtype=float16\n"
      "FMWORK RES 1.000000000 2.000000000 m c 1 1 1.000 1000.0\n"
      "FMWORK SETUP 2.5\n"
      "FMWORK META driver=0.1.0\n"
      "FMWORK RES 1.000000000 2.000000000 m c 1 1 1.000 1000.0\n";
  std::istringstream in(log);
  ParsedLog parsed = parse_log(in, "-");
  ASSERT_EQ(parsed.results.size(), 3u);
  EXPECT_FALSE(parsed.results[0].setup_seconds);
  EXPECT_FALSE(parsed.results[0].precision);
  EXPECT_EQ(parsed.results[1].setup_seconds, 1.5);
  EXPECT_EQ(parsed.results[1].precision, "float16");
  EXPECT_EQ(parsed.results[2].setup_seconds, 2.5);
  EXPECT_EQ(parsed.results[2].precision, "float16");
  EXPECT_EQ(engine_name(parsed), "fmwork-cpp/embed");
}

}  // namespace
}  // namespace fmwork
