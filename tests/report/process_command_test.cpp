#include "fmwork/report/process_command.hpp"

#include <filesystem>
#include <fstream>
#include <iterator>
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

// ---- --out and --format html ----

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

TEST(Process, OutWritesTheWholeOutputForEveryFormat) {
  TempDir dir;
  const std::string log = dir.write("run.log", kOurLog);
  for (const std::string format : {"json", "csv", "summary", "html"}) {
    const std::string file = dir.path() + "/out." + format;
    std::ofstream(file) << "an older report";
    EXPECT_EQ(run({"--path", log, "--format", format, "--out", file}), "");
    EXPECT_EQ(slurp(file), run({"--path", log, "--format", format})) << format;
    EXPECT_FALSE(std::filesystem::exists(file + ".tmp"));
  }
  EXPECT_NE(slurp(dir.path() + "/out.html").find("<svg class=\"chart\""), std::string::npos);
}

TEST(Process, OutErrorsNameTheOptionAndLeaveNothingBehind) {
  TempDir dir;
  const std::string log = dir.write("run.log", kOurLog);
  const std::string missing = dir.path() + "/no/such/folder/r.html";
  Error e = run_error({"--path", log, "--out", missing});
  EXPECT_EQ(e.kind(), ErrorKind::runtime);
  EXPECT_EQ(std::string(e.what()), "--out " + missing + ": cannot create its .tmp file (No such file or directory); "
                                   "name a file in a folder that exists and that you may write to");
  std::filesystem::create_directory(dir.path() + "/taken");
  dir.write("taken/x", "");
  e = run_error({"--path", log, "--out", dir.path() + "/taken"});
  EXPECT_NE(std::string(e.what()).find("--out " + dir.path() + "/taken: cannot rename its .tmp file into place ("),
            std::string::npos) << e.what();
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/taken.tmp"));
  // A log that cannot be read: no file at all.
  const std::string out = dir.path() + "/r.html";
  run_error({"--path", log, "--path", dir.path() + "/nope.log", "--format", "html", "--out", out});
  EXPECT_FALSE(std::filesystem::exists(out));
  EXPECT_FALSE(std::filesystem::exists(out + ".tmp"));
}

TEST(Process, HtmlOfACampaignTreeAndOfACompare) {
  TempDir dir;
  std::filesystem::create_directories(dir.path() + "/c/logs");
  dir.write("c/plan.json", R"({"experiment": "x.json", "runs": [{"id": "a.1", "run": "a",
      "matrix": {"model:torch_dtype": "<script>bf16</script>"}, "argv": ["--reps", "2"]}]})");
  dir.write("c/logs/a.1.log", kOurLog);
  const std::string page = run({"--path", dir.path() + "/c", "--format", "html"});
  EXPECT_NE(page.find("<div><dt>model:torch_dtype</dt><dd>&lt;script&gt;bf16&lt;/script&gt;</dd></div>"), std::string::npos);
  EXPECT_NE(page.find("<title>a.1 (model:torch_dtype=&lt;script&gt;bf16&lt;/script&gt;)</title>"), std::string::npos);
  EXPECT_EQ(page.find("<script"), std::string::npos);
  const std::string cmp = run({"--compare", dir.path() + "/c", dir.path() + "/c", "--format", "html"});
  EXPECT_NE(cmp.find("<h1>fmwork comparison: B against A</h1>"), std::string::npos);
  EXPECT_NE(cmp.find("<tr class=\"noise\">"), std::string::npos);
  // Without --format, --compare writes its table as before; json, csv and summary are not for it.
  EXPECT_EQ(run({"--compare", dir.path() + "/c", dir.path() + "/c"}).rfind("run  input  batch", 0), 0u);
  const Error e = run_error({"--compare", dir.path() + "/c", dir.path() + "/c", "--format", "csv"});
  EXPECT_EQ(e.kind(), ErrorKind::usage);
  EXPECT_EQ(std::string(e.what()), "--compare writes a table, or a page with --format html; --format csv is not for --compare");
}

TEST(Process, Help) {
  const std::string out = run({"--help"});
  EXPECT_NE(out.find("--path"), std::string::npos);
  EXPECT_NE(out.find("--metadata_id"), std::string::npos);
  EXPECT_NE(out.find("--format"), std::string::npos);
  EXPECT_NE(out.find("html"), std::string::npos);
  EXPECT_NE(out.find("--out"), std::string::npos);
}

}  // namespace
}  // namespace fmwork
