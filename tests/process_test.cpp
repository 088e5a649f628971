#include "fmwork/process.hpp"

#include <stdlib.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "fmwork/error.hpp"
#include "fmwork/log_format.hpp"

namespace fmwork {
namespace {

// ---- helpers ----

class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "fmwork-process-test-XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string write(const std::string& name, const std::string& contents) const {
    std::string file = path_ + "/" + name;
    std::ofstream(file, std::ios::binary) << contents;
    return file;
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};


// Runs `process` with the arguments (argv[0] added) and `stdin_text` as standard input.
std::string run(std::vector<std::string> args, const std::string& stdin_text = "") {
  args.insert(args.begin(), "process");
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  std::istringstream in(stdin_text);
  std::ostringstream out;
  run_process(static_cast<int>(argv.size()), argv.data(), in, out);
  return out.str();
}

// The Error `process` throws for the arguments.
Error run_error(std::vector<std::string> args, const std::string& stdin_text = "") {
  try {
    run(std::move(args), stdin_text);
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "no error";
  return runtime_error("");
}

// 1-based number of the line of `text` that starts with `needle`.
size_t line_of(const std::string& text, const std::string& needle) {
  size_t pos = text.find("\n" + needle);
  if (text.rfind(needle, 0) == 0) return 1;
  EXPECT_NE(pos, std::string::npos) << needle;
  return static_cast<size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(pos) + 1, '\n')) + 1;
}

// ---- logs ----

// A log as upstream's Python driver prints it: two combinations, five reps each.
const std::string kUpstreamLog = banner("ARGS") +
                                 "FMWORK ARG --batch_sizes 1,2\n"
                                 "FMWORK ARG --input_sizes 128\n"
                                 "FMWORK ARG --model_class RobertaModel\n"
                                 "FMWORK ARG --model_name ibm-granite/granite-embedding-125m-english\n"
                                 "FMWORK ARG --platform cuda\n"
                                 "FMWORK ARG --reps 5\n"
                                 "\n"
                                 "{\n"
                                 "    \"batch_sizes\": \"[1, 2]\",\n"
                                 "    \"reps\": \"5\",\n"
                                 "    \"subs\": {\n"
                                 "        \"compile\": {},\n"
                                 "        \"model\": {},\n"
                                 "        \"torch.call\": {},\n"
                                 "        \"torch.set\": {}\n"
                                 "    }\n"
                                 "}\n" +
                                 banner("RUNTIME") + "setup_runtime: torch\n\t torch.call\n\t torch.set\n" +
                                 banner("MODEL") +
                                 "RobertaModel(\n"
                                 "  (embeddings): RobertaEmbeddings()\n"
                                 ")\n"
                                 "\n"
                                 "FMWORK SETUP 2.500000\n" +
                                 banner("RUN 128 / 1") +
                                 "FMWORK REP 1 5 1108911.088153850 1108911.845211219 0.757057369\n"
                                 "FMWORK REP 2 5 1108911.845509595 1108911.849978236 0.004468641\n"
                                 "FMWORK REP 3 5 1108911.850187359 1108911.854049551 0.003862192\n"
                                 "FMWORK REP 4 5 1108912.224051913 1108912.227749102 0.003697189\n"
                                 "FMWORK REP 5 5 1108912.227934311 1108912.231636694 0.003702383\n"
                                 "\n"
                                 "FMWORK RES 1108911.088153850 1108912.231636694 "
                                 "ibm-granite/granite-embedding-125m-english RobertaModel 128 1 3.782 264.4\n" +
                                 banner("RUN 128 / 2") +
                                 "FMWORK REP 1 5 1108913.000000000 1108913.500000000 0.500000000\n"
                                 "FMWORK REP 2 5 1108913.500000000 1108913.507407000 0.007407000\n"
                                 "FMWORK REP 3 5 1108913.507407000 1108913.514814000 0.007407000\n"
                                 "FMWORK REP 4 5 1108913.514814000 1108913.522221000 0.007407000\n"
                                 "FMWORK REP 5 5 1108913.522221000 1108913.529628000 0.007407000\n"
                                 "\n"
                                 "FMWORK RES 1108913.000000000 1108913.529628000 "
                                 "ibm-granite/granite-embedding-125m-english RobertaModel 128 2 7.407 270.0\n"
                                 "\n";

// A log of our driver: META, STAT, MEM and a FAIL; a non-ASCII name and quotes to escape.
const std::string kOurLog =
    banner("ARGS") +
    "FMWORK ARG --batch_sizes 1,256\n"
    "FMWORK ARG --compile:options@ {\"max_autotune\": True}\n"
    "FMWORK ARG --input_sizes 512\n"
    "FMWORK ARG --model_class BertModel\n"
    "FMWORK ARG --model_name mod\xc3\xa8le/bert-tiny\n"
    "FMWORK ARG --platform cpu\n"
    "FMWORK ARG --reps 2\n"
    "\n"
    "{}\n" +
    banner("RUNTIME") +
    "FMWORK META driver=0.1.0 git=abc1234 torch=2.13.0 platform=cpu device=cpu threads=2 interop_threads=2 "
    "dtype=bfloat16 seed=0 grad=off\n" +
    banner("MODEL") + "BertModel()\n\nFMWORK SETUP 0.012345\n" + banner("RUN 512 / 1") +
    "FMWORK REP 1 2 100.000000000 100.250000000 0.250000000\n"
    "FMWORK REP 2 2 100.250000000 100.251000000 0.001000000\n"
    "\n"
    "FMWORK RES 100.000000000 100.251000000 mod\xc3\xa8le/bert-tiny BertModel 512 1 1.000 1000.0\n"
    "FMWORK STAT input=512 batch=1 reps=2 dropped=1 mean_ms=1.000000 stddev_ms=0.000000 min_ms=1.000000 "
    "p50_ms=1.000000 p90_ms=1.000000 p99_ms=1.000000 max_ms=1.000000\n"
    "FMWORK MEM input=512 batch=1 allocated_peak_bytes=1048576 reserved_peak_bytes=2097152\n"
    "FMWORK CHECK input=512 batch=1 outputs=last_hidden_state,pooler_output max_abs=0.00390625 max_rel=0.0123 "
    "cosine=0.99998 atol=0.1 rtol=0.05 min_cosine=0.999 result=pass\n" +
    banner("RUN 512 / 256") + "FMWORK FAIL input=512 batch=256 error=out of memory, \"allocating\" 2.00 GiB\n\n";

const std::string kUpstreamOpts =
    "        \"opts\": [\n"
    "            \"--batch_sizes 1,2\",\n"
    "            \"--input_sizes 128\",\n"
    "            \"--model_class RobertaModel\",\n"
    "            \"--model_name ibm-granite/granite-embedding-125m-english\",\n"
    "            \"--platform cuda\",\n"
    "            \"--reps 5\"\n"
    "        ],\n";

// The records of kUpstreamLog as json.dumps(indent=4) writes them inside the list.
std::string upstream_record_1(const std::string& metadata_id, const std::string& warmup, const std::string& setup) {
  return "    {\n"
         "        \"timestamp\": \"1108911.088153850\",\n"
         "        \"metadata_id\": " + metadata_id + ",\n"
         "        \"engine\": \"fmwork/embed/tf\",\n"
         "        \"model\": \"ibm-granite/granite-embedding-125m-english\",\n"
         "        \"precision\": null,\n"
         "        \"input\": 128,\n"
         "        \"output\": 1,\n"
         "        \"batch\": 1,\n"
         "        \"tp\": 1,\n" +
         kUpstreamOpts +
         "        \"warmup\": " + warmup + ",\n"
         "        \"setup\": " + setup + ",\n"
         "        \"ttft\": null,\n"
         "        \"itl\": 3.782,\n"
         "        \"thp\": 264.4\n"
         "    }";
}

std::string upstream_record_2(const std::string& metadata_id, const std::string& warmup, const std::string& setup) {
  return "    {\n"
         "        \"timestamp\": \"1108913.000000000\",\n"
         "        \"metadata_id\": " + metadata_id + ",\n"
         "        \"engine\": \"fmwork/embed/tf\",\n"
         "        \"model\": \"ibm-granite/granite-embedding-125m-english\",\n"
         "        \"precision\": null,\n"
         "        \"input\": 128,\n"
         "        \"output\": 1,\n"
         "        \"batch\": 2,\n"
         "        \"tp\": 1,\n" +
         kUpstreamOpts +
         "        \"warmup\": " + warmup + ",\n"
         "        \"setup\": " + setup + ",\n"
         "        \"ttft\": null,\n"
         "        \"itl\": 7.407,\n"
         "        \"thp\": 270.0\n"
         "    }";
}

const std::string kOurRecord =
    "    {\n"
    "        \"timestamp\": \"100.000000000\",\n"
    "        \"metadata_id\": \"run-42\",\n"
    "        \"engine\": \"fmwork-cpp/embed\",\n"
    "        \"model\": \"mod\\u00e8le/bert-tiny\",\n"
    "        \"precision\": \"bfloat16\",\n"
    "        \"input\": 512,\n"
    "        \"output\": 1,\n"
    "        \"batch\": 1,\n"
    "        \"tp\": 1,\n"
    "        \"opts\": [\n"
    "            \"--batch_sizes 1,256\",\n"
    "            \"--compile:options@ {\\\"max_autotune\\\": True}\",\n"
    "            \"--input_sizes 512\",\n"
    "            \"--model_class BertModel\",\n"
    "            \"--model_name mod\\u00e8le/bert-tiny\",\n"
    "            \"--platform cpu\",\n"
    "            \"--reps 2\"\n"
    "        ],\n"
    "        \"warmup\": 0.25,\n"
    "        \"setup\": 0.012345,\n"
    "        \"ttft\": null,\n"
    "        \"itl\": 1.0,\n"
    "        \"thp\": 1000.0\n"
    "    }";

// ---- JSON ----

TEST(Process, UpstreamModeIsByteIdenticalToUpstream) {
  TempDir dir;
  const std::string path = dir.write("run.log", kUpstreamLog);
  const std::string expected =
      "[\n" + upstream_record_1("null", "null", "null") + ",\n" + upstream_record_2("null", "null", "null") + "\n]\n";
  EXPECT_EQ(run({"--path", path, "--upstream"}), expected);
}

TEST(Process, DefaultJsonFillsSetupAndWarmup) {
  TempDir dir;
  const std::string path = dir.write("run.log", kUpstreamLog);
  // warmup: the dropped rep (1 of 5) took 0.757057369 s, resp. 0.5 s; setup from FMWORK SETUP.
  const std::string expected = "[\n" + upstream_record_1("\"m1\"", "0.757057369", "2.5") + ",\n" +
                               upstream_record_2("\"m1\"", "0.5", "2.5") + "\n]\n";
  EXPECT_EQ(run({"--path", path, "--metadata_id", "m1"}), expected);
}

TEST(Process, OurLogFillsPrecisionAndEngine) {
  TempDir dir;
  const std::string path = dir.write("ours.log", kOurLog);
  EXPECT_EQ(run({"--path", path, "--metadata_id", "run-42"}), "[\n" + kOurRecord + "\n]\n");
}

TEST(Process, NoResultsGiveAnEmptyList) {
  TempDir dir;
  EXPECT_EQ(run({"--path", dir.write("empty.log", "")}), "[]\n");
  EXPECT_EQ(run({"--path", dir.write("args.log", "FMWORK ARG --reps 5\nhello\n")}), "[]\n");
}

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

// ---- CSV and summary ----

TEST(Process, Csv) {
  TempDir dir;
  const std::string path = dir.write("ours.log", kOurLog);
  const std::string res_line = std::to_string(line_of(kOurLog, "FMWORK RES"));
  const std::string fail_line = std::to_string(line_of(kOurLog, "FMWORK FAIL"));
  EXPECT_EQ(run({"--path", path, "--format", "csv", "--metadata_id", "run-42"}),
            "source,metadata_id,line,status,timestamp,model,class,input,batch,latency_ms,throughput,setup_s,"
            "precision,reps,dropped,mean_ms,stddev_ms,min_ms,p50_ms,p90_ms,p99_ms,max_ms,allocated_peak_bytes,"
            "reserved_peak_bytes,error,check,check_max_abs,check_max_rel,check_cosine\n" +
                path + ",run-42," + res_line +
                ",ok,100.000000000,mod\xc3\xa8le/bert-tiny,BertModel,512,1,1.000,1000.0,0.012345,bfloat16,2,1,"
                "1.000000,0.000000,1.000000,1.000000,1.000000,1.000000,1.000000,1048576,2097152,,pass,0.00390625,"
                "0.0123,0.99998\n" +
                path + ",run-42," + fail_line +
                ",fail,,mod\xc3\xa8le/bert-tiny,BertModel,512,256,,,0.012345,bfloat16,,,,,,,,,,,,"
                "\"out of memory, \"\"allocating\"\" 2.00 GiB\",,,,\n");
}

TEST(Process, CsvComputesStatisticsFromRepLinesWithoutStat) {
  const std::string out = run({"--format", "csv", "-"}, kUpstreamLog);
  std::istringstream lines(out);
  std::string header, row1, row2;
  std::getline(lines, header);
  std::getline(lines, row1);
  std::getline(lines, row2);
  const std::string line2 = std::to_string(line_of(kUpstreamLog, "FMWORK RES 1108913"));
  EXPECT_EQ(row2, "-,," + line2 +
                      ",ok,1108913.000000000,ibm-granite/granite-embedding-125m-english,RobertaModel,128,2,7.407,"
                      "270.0,2.500000,,5,1,7.407000,0.000000,7.407000,7.407000,7.407000,7.407000,7.407000,,,,,,,");
}

TEST(Process, Summary) {
  TempDir dir;
  const std::string a = dir.write("a.log", kUpstreamLog);
  const std::string b = dir.write("b.log", kOurLog);
  const std::string out = run({"--format", "summary", a, b});
  const std::string model = "ibm-granite/granite-embedding-125m-english";
  EXPECT_EQ(out,
            a + ": 2 results, 0 failures\n"
            "  setup: 2.500000 s\n"
            "  model                                       class         input  batch  latency_ms  throughput  "
            "p50_ms  p90_ms  p99_ms  stddev_ms  reps  dropped  status\n"
            "  ibm-granite/granite-embedding-125m-english  RobertaModel    128      1       3.782       264.4   "
            "3.782   4.287   4.450      0.317     5        1  ok\n"
            "  ibm-granite/granite-embedding-125m-english  RobertaModel    128      2       7.407       270.0   "
            "7.407   7.407   7.407      0.000     5        1  ok\n"
            "\n" +
                b + ": 1 result, 1 failure\n"
            "  meta: driver=0.1.0 git=abc1234 torch=2.13.0 platform=cpu device=cpu threads=2 interop_threads=2 "
            "dtype=bfloat16 seed=0 grad=off\n"
            "  setup: 0.012345 s\n"
            "  model             class      input  batch  latency_ms  throughput  p50_ms  p90_ms  p99_ms  "
            "stddev_ms  reps  dropped  peak_MiB  status\n"
            "  mod\xc3\xa8le/bert-tiny  BertModel    512      1       1.000      1000.0   1.000   1.000   1.000      "
            "0.000     2        1       1.0  ok, check pass\n"
            "  mod\xc3\xa8le/bert-tiny  BertModel    512    256           -           -       -       -       -      "
            "    -     -        -         -  FAIL: out of memory, \"allocating\" 2.00 GiB\n");
  EXPECT_EQ(run({"--format", "summary", "-"}, ""), "<stdin>: 0 results, 0 failures\n  (no results)\n");
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
