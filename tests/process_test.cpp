#include "fmwork/process.hpp"

#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "fmwork/error.hpp"
#include "fmwork/log_format.hpp"
#include "process_fixtures.hpp"

namespace fmwork {
namespace {

using namespace process_fixtures;

// ---- reading logs ----

TEST(Process, StdinAndSeveralFilesInOrder) {
  TempDir dir;
  const std::string a = dir.write("a.log", kUpstreamLog);
  const std::string expected = "[\n" + upstream_record_1("\"run-42\"", "0.757057369", "2.5") + ",\n" +
                               upstream_record_2("\"run-42\"", "0.5", "2.5") + ",\n" + kOurRecord + "\n]\n";
  // --path twice, a positional path, and "-" for stdin all read in the order given.
  EXPECT_EQ(run({"--path", a, "-", "--metadata_id", "run-42"}, kOurLog), expected);
  EXPECT_EQ(run({"--metadata_id", "run-42", a, "--path", "-"}, kOurLog), expected);
  EXPECT_EQ(run({"--path", "-", "--metadata_id", "run-42"}, kOurLog), "[\n" + kOurRecord + "\n]\n");
}

TEST(Process, OptsAreEveryArgOfTheFileLikeUpstream) {
  // Upstream's records share one opts list, printed after the whole file is read.
  const std::string log =
      "FMWORK ARG --a 1\n"
      "FMWORK RES 1.000000000 2.000000000 m c 1 1 1.000 1000.0\n"
      "FMWORK ARG --b 2\n";
  ParsedLog parsed;
  std::istringstream in(log);
  parsed = parse_log(in, "-");
  ASSERT_EQ(parsed.runs.size(), 1u);
  EXPECT_EQ(parsed.runs[0].opts, (std::vector<std::string>{"--a 1", "--b 2"}));
}

TEST(Process, UniversalNewlinesAndTrailingSpaces) {
  const std::string log =
      "FMWORK ARG --a 1  \r\n"
      "progress 50%\rFMWORK ARG --b 2\r"
      "FMWORK RES 1.000000000 2.000000000 m c 1 1 0.00001 1e16 \r\n";
  const std::string out = run({"-", "--upstream"}, log);
  EXPECT_EQ(out,
            "[\n"
            "    {\n"
            "        \"timestamp\": \"1.000000000\",\n"
            "        \"metadata_id\": null,\n"
            "        \"engine\": \"fmwork/embed/tf\",\n"
            "        \"model\": \"m\",\n"
            "        \"precision\": null,\n"
            "        \"input\": 1,\n"
            "        \"output\": 1,\n"
            "        \"batch\": 1,\n"
            "        \"tp\": 1,\n"
            "        \"opts\": [\n"
            "            \"--a 1\",\n"
            "            \"--b 2\"\n"
            "        ],\n"
            "        \"warmup\": null,\n"
            "        \"setup\": null,\n"
            "        \"ttft\": null,\n"
            "        \"itl\": 1e-05,\n"
            "        \"thp\": 1e+16\n"
            "    }\n"
            "]\n");
}

// ---- records ----

TEST(Process, StatAndMemBelongToTheirResult) {
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
  ASSERT_EQ(parsed.runs.size(), 4u);
  ASSERT_TRUE(parsed.runs[0].stat && parsed.runs[0].mem);
  EXPECT_EQ(parsed.runs[0].rep_durations, (std::vector<Nanos>{500000000, 100000000}));
  EXPECT_EQ(parsed.runs[0].line, 3u);
  EXPECT_EQ(parsed.runs[0].timestamp, "1.000000000");
  ASSERT_TRUE(parsed.runs[1].stat);
  EXPECT_EQ(*parsed.runs[1].stat->fields.find("p50_ms"), "9");
  EXPECT_FALSE(parsed.runs[1].mem);
  EXPECT_TRUE(parsed.runs[1].rep_durations.empty());
  ASSERT_TRUE(parsed.runs[2].stat);
  EXPECT_EQ(*parsed.runs[2].stat->fields.find("input"), "16");
  EXPECT_FALSE(parsed.runs[3].stat);
  ASSERT_EQ(parsed.failures.size(), 1u);
  EXPECT_EQ(parsed.failure_lines, (std::vector<size_t>{11}));
  EXPECT_EQ(*parsed.failures[0].fields.find("error"), "boom");
}

TEST(Process, SetupAndPrecisionAreTheLastBeforeEachResult) {
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
  ASSERT_EQ(parsed.runs.size(), 3u);
  EXPECT_FALSE(parsed.runs[0].setup_seconds);
  EXPECT_FALSE(parsed.runs[0].precision);
  EXPECT_EQ(parsed.runs[1].setup_seconds, 1.5);
  EXPECT_EQ(parsed.runs[1].precision, "float16");
  EXPECT_EQ(parsed.runs[2].setup_seconds, 2.5);
  EXPECT_EQ(parsed.runs[2].precision, "float16");
  EXPECT_EQ(engine_name(parsed), "fmwork-cpp/embed");
}

// ---- errors ----

TEST(Process, MissingFile) {
  TempDir dir;
  const std::string path = dir.path() + "/nope.log";
  Error e = run_error({"--path", path});
  EXPECT_EQ(e.kind(), ErrorKind::runtime);
  EXPECT_EQ(std::string(e.what()), "--path " + path + ": cannot open (No such file or directory)");
  e = run_error({"--path", dir.path()});
  EXPECT_EQ(std::string(e.what()), "--path " + dir.path() + ": cannot open (Is a directory)");
}

TEST(Process, MalformedLineNamesFileAndLine) {
  TempDir dir;
  std::string log;
  for (int i = 1; i < 42; ++i) log += "line " + std::to_string(i) + "\n";
  log += "FMWORK RES 1.000000000 2.000000000 m c 128 1 3.691\n";
  const std::string path = dir.write("run.log", log);
  Error e = run_error({"--path", path});
  EXPECT_EQ(e.kind(), ErrorKind::runtime);
  EXPECT_EQ(std::string(e.what()), path + ":42: FMWORK RES line has 9 fields, expected 10");
  e = run_error({"-"}, "FMWORK STAT input=1\n");
  EXPECT_EQ(std::string(e.what()), "<stdin>:1: FMWORK STAT has no batch= field");
  // Nothing is printed when a later file fails.
  const std::string good = dir.write("good.log", kUpstreamLog);
  std::vector<const char*> argv = {"process", good.c_str(), path.c_str()};
  std::istringstream in;
  std::ostringstream out;
  EXPECT_THROW(run_process(3, argv.data(), in, out), Error);
  EXPECT_EQ(out.str(), "");
}

TEST(Process, UsageErrors) {
  EXPECT_EQ(run_error({}).kind(), ErrorKind::usage);
  EXPECT_EQ(std::string(run_error({}).what()), "no log given: pass --path FILE (or FILE; - reads standard input)");
  EXPECT_EQ(run_error({"--format", "xml", "-"}).kind(), ErrorKind::usage);
  EXPECT_EQ(run_error({"--bogus", "-"}).kind(), ErrorKind::usage);
  EXPECT_EQ(run_error({"--metadata_id"}).kind(), ErrorKind::usage);
}

TEST(Process, Help) {
  const std::string out = run({"--help"});
  EXPECT_NE(out.find("--path"), std::string::npos);
  EXPECT_NE(out.find("--metadata_id"), std::string::npos);
  EXPECT_NE(out.find("--format"), std::string::npos);
}

}  // namespace
}  // namespace fmwork
