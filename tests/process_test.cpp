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



// ---- errors ----

TEST(Process, MissingFile) {
  TempDir dir;
  const std::string path = dir.path() + "/nope.log";
  Error e = run_error({"--path", path});
  EXPECT_EQ(e.kind(), ErrorKind::runtime);
  EXPECT_EQ(std::string(e.what()), "--path " + path + ": cannot open (No such file or directory)");
  e = run_error({"--path", dir.path()});  // a folder is read as a campaign tree: every *.log under it
  EXPECT_EQ(std::string(e.what()), "--path " + dir.path() + ": no *.log file under this folder");
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
