// over 500 lines: the process command's every mode and option, each refusal with its whole line.
#include "fmwork/report/process_command.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "fmwork/base/error.hpp"
#include "fmwork/log/log_format.hpp"
#include "fmwork/log/log_records.hpp"
#include "fmwork/report/compare.hpp"
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
  // A log named by --compare is said to come from --compare, the option the user can correct.
  e = run_error({"--compare", path, dir.path() + "/b.log"});
  EXPECT_EQ(std::string(e.what()), "--compare " + path + ": cannot open (No such file or directory)");
  e = run_error({"--compare", dir.path(), path});
  EXPECT_EQ(std::string(e.what()), "--compare " + dir.path() + ": no *.log file under this folder");
}

TEST(Process, MalformedLineNamesFileAndLine) {
  TempDir dir;
  std::string log;
  for (int i = 1; i < 42; ++i) log += "line " + std::to_string(i) + "\n";
  log += "FMWORK RES 1.000000000 2.000000000 m c 128 1 3.691\n";
  const std::string path = dir.write("run.log", log);
  Error e = run_error({"--path", path});
  EXPECT_EQ(e.kind(), ErrorKind::runtime);
  EXPECT_EQ(std::string(e.what()), path + ":42: FMWORK RES line has 7 values, expected 8: t_first t_last model_name "
                                          "model_class input batch latency_ms throughput");
  e = run_error({"-"}, "FMWORK STAT input=1\n");
  EXPECT_EQ(std::string(e.what()), "<stdin>:1: FMWORK STAT has no batch= field");
  // Nothing is printed when a later file fails.
  const std::string good = dir.write("good.log", kUpstreamLog);
  std::vector<const char*> argv = {"process", good.c_str(), path.c_str()};
  std::istringstream in;
  std::ostringstream out, err;
  EXPECT_THROW(run_process(3, argv.data(), in, out, err), Error);
  EXPECT_EQ(out.str(), "");
}

// A file is read in pieces (64 KiB): one of several pieces gives what the same text through stdin gives.
TEST(Process, AFileReadInPiecesIsTheSameLog) {
  TempDir dir;
  std::string log = kUpstreamLog;
  while (log.size() < (size_t{5} << 16)) log += kOurLog + kUpstreamLog;
  const std::string path = dir.write("big.log", log);
  // CSV and the summary name the log: its path, or "-" / "<stdin>".
  const auto as_stdin = [&](std::string text, const std::string& name) {
    for (size_t at = text.find(path); at != std::string::npos; at = text.find(path, at + name.size()))
      text.replace(at, path.size(), name);
    return text;
  };
  EXPECT_EQ(run({"--path", path}), run({"-"}, log));
  EXPECT_EQ(as_stdin(run({"--path", path, "--format", "csv"}), "-"), run({"-", "--format", "csv"}, log));
  EXPECT_EQ(as_stdin(run({"--path", path, "--format", "summary"}), "<stdin>"), run({"-", "--format", "summary"}, log));
}

TEST(Process, AnOverlongLineIsOneErrorNamingFileAndLine) {
  TempDir dir;
  const std::string path =
      dir.write("run.log", "FMWORK ARG --a 1\nFMWORK ARG " + std::string(kMaxLogLineBytes, 'x') + "\n");
  const Error e = run_error({"--path", path});
  EXPECT_EQ(e.kind(), ErrorKind::runtime);
  EXPECT_EQ(std::string(e.what()), path + ":2: the line is longer than 1 MiB; a driver's FMWORK lines are a few KiB "
                                          "at most: is this a driver log?");
}

TEST(Process, UsageErrors) {
  EXPECT_EQ(run_error({}).kind(), ErrorKind::usage);
  EXPECT_EQ(std::string(run_error({}).what()), "no log given: pass --path FILE (or FILE; - reads standard input)");
  EXPECT_EQ(run_error({"--format", "xml", "-"}).kind(), ErrorKind::usage);
  EXPECT_EQ(run_error({"--bogus", "-"}).kind(), ErrorKind::usage);
  EXPECT_EQ(run_error({"--metadata_id"}).kind(), ErrorKind::usage);
  EXPECT_EQ(std::string(run_error({"--format", "csv", "--format", "json", "-"}).what()),
            "--format is given twice; give it once (see process --help)");
  // The one tokenizer's words (CLI11's before): a missing value, a choice's, two values short of one.
  EXPECT_EQ(std::string(run_error({"--metadata_id"}).what()),
            "--metadata_id needs a value, like --metadata_id run1 (to give one that starts with '--', write "
            "--metadata_id=VALUE) (see process --help)");
  EXPECT_EQ(std::string(run_error({"-", "--format"}).what()),
            "--format needs a value: one of json, csv, summary, html (see process --help)");
  EXPECT_EQ(std::string(run_error({"--compare", "a.log"}).what()),
            "--compare takes 2 values, like --compare a.log b.log; got 1 (see process --help)");
  EXPECT_EQ(std::string(run_error({"--upstream=yes", "-"}).what()),
            "--upstream is a flag and takes no value (got '--upstream=yes') (see process --help)");
}

// ---- --out and --format html ----

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
  EXPECT_EQ(std::string(run_error({"--path", log, "--out", ""}).what()),  // it wrote nothing and said nothing
            "--out is empty; give the file to write, or leave --out out for standard output");
  std::filesystem::create_directory(dir.path() + "/taken");
  dir.write("taken/x", "");
  e = run_error({"--path", log, "--out", dir.path() + "/taken"});
  EXPECT_EQ(e.exit_code(), 2);
  EXPECT_EQ(std::string(e.what()), "--out " + dir.path() + "/taken is a directory; name a regular file, a FIFO or a "
                                   "character device");
  // A log that cannot be read: no file at all.
  const std::string out = dir.path() + "/r.html";
  run_error({"--path", log, "--path", dir.path() + "/nope.log", "--format", "html", "--out", out});
  EXPECT_FALSE(std::filesystem::exists(out));
  EXPECT_FALSE(std::filesystem::exists(out + ".tmp"));
}

// --out never replaces what it names unless it is a regular file: a FIFO gets the output as a stream (the
// page of a --compare too), and a log that is read is refused, whether named, linked to, or in a folder.
TEST(Process, OutIntoAFifoIsAStreamAndTheFifoStays) {
  TempDir dir;
  const std::string log = dir.write("run.log", kOurLog), fifo = dir.file("report.fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const std::vector<std::string>& args : {std::vector<std::string>{"--path", log, "--format", "csv"},
                                               std::vector<std::string>{"--compare", log, log, "--format", "html"}}) {
    std::string got;
    std::thread reader([&] { got = slurp(fifo); });
    std::vector<std::string> with_out = args;
    with_out.insert(with_out.end(), {"--out", fifo});
    EXPECT_EQ(run(with_out), "");
    reader.join();
    EXPECT_EQ(got, run(args));
    EXPECT_TRUE(std::filesystem::is_fifo(std::filesystem::symlink_status(fifo)));
  }
}

// A device that takes nothing: its own reason, exit 1, and it stays a device.
TEST(Process, OutIntoADeviceThatFailsSaysWhy) {
  ASSERT_EQ(::access("/dev/full", W_OK), 0);  // mode 0666 on Linux: no root needed
  TempDir dir;
  const Error e = run_error({"--path", dir.write("run.log", kOurLog), "--out", "/dev/full"});
  EXPECT_EQ(e.exit_code(), 1);
  EXPECT_EQ(std::string(e.what()), "--out /dev/full: cannot write (No space left on device)");
  EXPECT_TRUE(std::filesystem::is_character_file("/dev/full"));
}

TEST(Process, OutThatIsOneOfTheLogsIsRefused) {
  TempDir dir;
  std::filesystem::create_directories(dir.path() + "/c/logs");
  const std::string log = dir.write("c/logs/a.log", kOurLog), link = dir.file("link.log");
  ASSERT_EQ(::symlink(log.c_str(), link.c_str()), 0);
  const std::vector<std::vector<std::string>> cases = {
      {"--path", log, "--out", log},
      {"--path", log, "--out", link},                   // the same file through a link
      {"--path", dir.path() + "/c", "--out", link},     // a log of a folder read
      {"--compare", log, dir.path() + "/c", "--format", "html", "--out", log}};
  for (const auto& args : cases) {
    const Error e = run_error(args);
    EXPECT_EQ(e.exit_code(), 2);
    EXPECT_EQ(std::string(e.what()), "--out " + args.back() + " is the log " + log + " that process reads; name another file");
    EXPECT_EQ(slurp(log), kOurLog);
  }
}

// ---- hostile logs and trees ----

// Only a campaign tree's logs/ folder carries labels: a plan.json elsewhere is never read, and one beside a
// logs/ folder that is no plan is passed over with a note.
TEST(Process, APlanJsonThatIsNotACampaignsIsIgnored) {
  TempDir dir;
  std::filesystem::create_directories(dir.path() + "/c/logs");
  const std::string loose = dir.write("run.log", kOurLog), in_tree = dir.write("c/logs/a.1.log", kOurLog);
  const std::string loose_csv = run({"--path", loose, "--format", "csv"});
  const std::string tree_csv = run({"--path", in_tree, "--format", "csv"});
  dir.write("plan.json", "not json at all");
  dir.write("c/plan.json", "{\"runs\": 3}");
  std::string err;
  EXPECT_EQ(run({"--path", loose, "--format", "csv"}, "", &err), loose_csv);
  EXPECT_EQ(err, "");
  EXPECT_EQ(run({"--path", in_tree, "--format", "csv"}, "", &err), tree_csv);
  EXPECT_EQ(err.rfind("note: " + dir.path() + "/c/plan.json: ", 0), 0u) << err;
  EXPECT_NE(err.find("; not a campaign's plan, so the logs beside it have no labels\n"), std::string::npos) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1);
  // A FIFO in its place was passed over without a word (and is never opened: that would wait for a writer).
  std::filesystem::remove(dir.path() + "/c/plan.json");
  ASSERT_EQ(::mkfifo((dir.path() + "/c/plan.json").c_str(), 0600), 0);
  EXPECT_EQ(run({"--path", in_tree, "--format", "csv"}, "", &err), tree_csv);
  EXPECT_EQ(err, "note: " + dir.path() + "/c/plan.json is a FIFO, not a file; give the path of a regular file; not a "
                 "campaign's plan, so the logs beside it have no labels\n");
}

// A log of a run that died before its first combination (ARG, META, no RES or FAIL) gave "[]" and exit 0
// without a word: a note says so; the output and the exit status are as before.
TEST(Process, ALogWithoutAResultIsNoted) {
  TempDir dir;
  const std::string early = dir.write("early.log", "FMWORK ARG --reps 5\nFMWORK META dtype=float32\n");
  std::string err;
  EXPECT_EQ(run({"--path", early}, "", &err), "[]\n");
  EXPECT_EQ(err, "note: " + early + ": no RES or FAIL line: the run ended before its first combination (its stderr "
                 "says why) or is still running; nothing of it is in the output\n");
  const std::string fine = dir.write("fine.log", kOurLog);
  run({"--path", fine}, "", &err);
  EXPECT_EQ(err, "");
}

// A log cut short by a full disk: its last line (no newline, does not parse) is left out with a note naming
// the file and line; every combination before it is kept.
TEST(Process, ALogWhoseLastLineIsCutKeepsTheRest) {
  TempDir dir;
  const size_t lines = static_cast<size_t>(std::count(kOurLog.begin(), kOurLog.end(), '\n'));
  for (const std::string cut : {"FMWORK REP 29 30 1795490538.289988147 17", "FMWORK STAT input=1 batch=1 reps=3 mea"}) {
    const std::string path = dir.write("cut.log", kOurLog);
    const std::string whole_csv = run({"--path", path, "--format", "csv"});
    dir.write("cut.log", kOurLog + cut);
    std::string err;
    EXPECT_EQ(run({"--path", path, "--format", "csv"}, "", &err), whole_csv);
    EXPECT_EQ(err.rfind("note: " + path + ":" + std::to_string(lines + 1) +
                            ": the last line is cut short (no newline at its end; FMWORK ",
                        0),
              0u) << err;
    EXPECT_NE(err.find("): left out, the lines before it are read\n"), std::string::npos) << err;
  }
  // The same line with its newline is a malformed line: an Error.
  const std::string whole = dir.write("whole.log", kOurLog + "FMWORK REP 29 30 1795490538.289988147 17\n");
  EXPECT_EQ(run_error({"--path", whole}).exit_code(), 1);
}

// A log cut mid-value whose last line still parses (a RES throughput 4548.0 cut to 45): the cut value is
// in no output, the note says the line was left out, and the exit is 0 with the lines before it.
TEST(Process, ALastLineCutMidValueIsNotReported) {
  TempDir dir;
  const std::string res = "FMWORK RES 200.000000000 200.500000000 m BertModel 512 2 0.440 4548.0";
  const std::string whole = dir.write("whole.log", kOurLog + res + "\n");
  EXPECT_NE(run({"--path", whole, "--format", "csv"}).find(",4548.0,"), std::string::npos);
  const std::string path = dir.path() + "/cut.log";
  for (const std::string format : {"json", "csv", "summary"}) {
    dir.write("cut.log", kOurLog);
    const std::string expected = run({"--path", path, "--format", format});
    dir.write("cut.log", kOurLog + res.substr(0, res.size() - 4));
    std::string err;
    EXPECT_EQ(run({"--path", path, "--format", format}, "", &err), expected) << format;
    EXPECT_NE(err.find(": the last line is cut short (no newline at its end, so its last value may be cut): left "
                       "out"),
              std::string::npos)
        << err;
  }
}

// A NOTE verdict of a newer driver is no reason to refuse a log: its records come out, with one note.
TEST(Process, AnUnknownNoteVerdictKeepsTheLog) {
  TempDir dir;
  const std::string path = dir.write("run.log", kOurLog);
  const std::string known_only = run({"--path", path, "--format", "csv"});
  dir.write("run.log", kOurLog + "FMWORK NOTE input=512 batch=1 verdict=sluggish reason=x\n");
  std::string err;
  EXPECT_EQ(run({"--path", path, "--format", "csv"}, "", &err), known_only);
  EXPECT_NE(err.find("note: " + path + ":"), std::string::npos) << err;
  EXPECT_NE(err.find(": FMWORK NOTE verdict 'sluggish' is none this process knows"), std::string::npos) << err;
}

// A sweep stopped by Ctrl-C was "N results, 0 failures", as if it had ended: its INTERRUPT line is said.
TEST(Process, AnInterruptedLogIsSaidToBe) {
  TempDir dir;
  const std::string path = dir.write("run.log", kOurLog.substr(0, kOurLog.find("FMWORK FAIL")) +
                                                    "FMWORK INTERRUPT input=512 batch=256 signal=SIGINT complete=1 "
                                                    "combinations=2\n");
  std::string err;
  const std::string summary = run({"--path", path, "--format", "summary"}, "", &err);
  EXPECT_EQ(summary.substr(0, summary.find('\n')),
            path + ": 1 result, interrupted (SIGINT) at combination 2 of 2 (input 512, batch 256), 1 complete");
  EXPECT_EQ(err, "note: " + path + ": the sweep was interrupted (SIGINT) at combination 2 of 2 (input 512, batch 256), "
                 "1 complete; the combinations after it were not run\n");
}

TEST(Process, ALogWithNoFmworkLineIsAnError) {
  TempDir dir;
  const std::string path = dir.write("empty.log", "Traceback (most recent call last):\n  killed\n");
  const Error e = run_error({"--path", path});
  EXPECT_EQ(e.exit_code(), 1);
  EXPECT_EQ(std::string(e.what()), path + ": no FMWORK line in it; give a log the driver wrote");
  EXPECT_EQ(std::string(run_error({"-"}, "").what()), "<stdin>: no FMWORK line in it; give a log the driver wrote");
}

// 40,000 input sizes made a 192 MB page. A page draws at most 5000 combinations; past that, one line says
// how many there are and what to use instead (the other formats have no such bound).
TEST(Process, HtmlOfTooManyCombinationsIsRefusedWithTheCount) {
  TempDir dir;
  std::string log;
  for (int input = 1; input <= 5001; ++input)
    log += format_line(make_res_line(1000, 2000, "m", "BertModel", input, 1, 0.001, 1000.0)) + "\n";
  const std::string path = dir.write("wide.log", log);
  const Error e = run_error({"--path", path, "--format", "html"});
  EXPECT_EQ(e.kind(), ErrorKind::usage);
  EXPECT_EQ(std::string(e.what()), "--format html: the logs hold 5001 combinations; a page draws at most 5000 (it "
                                   "would be too large to open): use --format csv or json, or fewer logs");
  EXPECT_EQ(std::string(run_error({"--compare", path, path, "--format", "html"}).what()),
            "--format html: the logs hold 10002 combinations; a page draws at most 5000 (it would be too large to "
            "open): use --format csv or json, or fewer logs");
  const std::string csv = run({"--path", path, "--format", "csv"});
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 5002);
}

TEST(Process, HtmlOfACampaignTreeAndOfACompare) {
  TempDir dir;
  std::filesystem::create_directories(dir.path() + "/c/logs");
  dir.write("c/plan.json", R"({"experiment": "x.json", "runs": [{"id": "a.1", "run": "a",
      "matrix": {"model:torch_dtype": "<script>bf16</script>"}, "argv": ["--reps", "2"]}]})");
  dir.write("c/logs/a.1.log", kOurLog);
  const std::string page = run({"--path", dir.path() + "/c", "--format", "html"});
  EXPECT_NE(page.find("<div><dt>model:torch_dtype</dt><dd>&lt;script&gt;bf16&lt;/script&gt;</dd></div>"), std::string::npos);
  EXPECT_NE(page.find("<td>&lt;script&gt;bf16&lt;/script&gt;</td>"), std::string::npos);  // the runs table
  EXPECT_EQ(page.find("<script"), std::string::npos);
  const std::string cmp = run({"--compare", dir.path() + "/c", dir.path() + "/c", "--format", "html"});
  EXPECT_NE(cmp.find("<h1>fmwork comparison: B against A</h1>"), std::string::npos);
  EXPECT_NE(cmp.find("<tr class=\"noise\">"), std::string::npos);
  // Without --format, --compare writes its table as before; json and csv write its pairs, summary is not for it.
  EXPECT_EQ(run({"--compare", dir.path() + "/c", dir.path() + "/c"}).rfind("run  input  batch", 0), 0u);
  const Error e = run_error({"--compare", dir.path() + "/c", dir.path() + "/c", "--format", "summary"});
  EXPECT_EQ(e.kind(), ErrorKind::usage);
  EXPECT_EQ(std::string(e.what()),
            "--compare writes a table, or json, csv or html with --format; --format summary is not for --compare");
}

// A log of one combination at `latency_ms` with a tight spread (STAT stddev 1% of it).
std::string one_combination(double latency_ms) {
  return fmt::format(
      "FMWORK META driver=0.1.0 threads=1 dtype=float32\n"
      "FMWORK RES 1.000000000 2.000000000 m c 128 4 {0:.3f} {1:.1f}\n"
      "FMWORK STAT input=128 batch=4 reps=20 dropped=4 mean_ms={0:.6f} stddev_ms={2:.6f} min_ms={0:.6f} "
      "p50_ms={0:.6f} p90_ms={0:.6f} p99_ms={0:.6f} max_ms={0:.6f}\n",
      latency_ms, 4000.0 / latency_ms, latency_ms / 100);
}

// A log of one combination (input 128, batch 4) from its reps' durations in ms, as upstream's driver writes
// it: REP lines (the first rep the warm-up) and RES with the median of the kept reps; no STAT line.
std::string reps_log(const std::vector<double>& ms) {
  std::string text = "FMWORK META driver=0.1.0 threads=1 dtype=float32\n";
  double t = 1;
  for (size_t i = 0; i < ms.size(); ++i, t += 1)
    text += fmt::format("FMWORK REP {} {} {:.9f} {:.9f} {:.9f}\n", i + 1, ms.size(), t, t + ms[i] / 1000, ms[i] / 1000);
  std::vector<double> kept(ms.begin() + 1, ms.end());
  std::sort(kept.begin(), kept.end());
  const double median = kept.size() % 2 ? kept[kept.size() / 2] : (kept[kept.size() / 2 - 1] + kept[kept.size() / 2]) / 2;
  return text + fmt::format("FMWORK RES 1.000000000 {:.9f} m c 128 4 {:.3f} {:.1f}\n", t, median, 4000 / median);
}

// Under load the median moves with the share of slow reps; the fastest reps do not. B's reps are 5 ms when
// it has the CPU and 10 ms when a neighbour takes it: by the median B/A is 0.741x, by min or p10 0.500x
// (what B does on a quiet machine). The table says which statistic it shows.
TEST(Process, StatisticPicksEachSidesLatency) {
  TempDir dir;
  const std::string a = dir.write("a.log", reps_log({12, 10.0, 10.1, 10.0, 10.2, 10.1, 10.0, 10.1, 10.0, 10.1, 10.0}));
  const std::string b = dir.write("b.log", reps_log({12, 5.0, 5.1, 5.0, 9.8, 10.2, 10.0, 5.1, 9.9, 10.1, 5.0}));
  const auto row = [](const std::string& table) { return table.substr(table.find("\nm c float32"), 100); };
  const std::string median = run({"--compare", a, b});
  EXPECT_NE(row(median).find("10.0500        7.4500     0.741x"), std::string::npos) << median;
  const std::string min = run({"--compare", a, b, "--statistic", "min"});
  EXPECT_EQ(min.substr(0, min.find('\n')).find("A min_ms      B min_ms"), 31u) << min;
  EXPECT_NE(row(min).find("10.0000        5.0000     0.500x"), std::string::npos) << min;
  EXPECT_NE(min.find("\nlatency: min_ms, the fastest kept rep: what a neighbour taking the CPU moves least "
                     "(--statistic min; repeats: the median of theirs)\n"),
            std::string::npos);
  EXPECT_NE(row(run({"--compare", a, b, "--statistic", "p10"})).find("10.0000        5.0000     0.500x"), std::string::npos);
  const std::string csv = run({"--compare", a, b, "--statistic", "p10", "--format", "csv"});
  EXPECT_EQ(csv.rfind("run,input,batch,a_p10_ms,b_p10_ms,", 0), 0u) << csv;
  EXPECT_NE(run({"--compare", a, b, "--statistic", "mean", "--format", "json"}).find("\"statistic\": \"mean\""),
            std::string::npos);
}

// The statistics' table and docs/campaigns.md's table of --statistic are the same rows.
TEST(Process, StatisticTableOfTheDocsIsTheCodes) {
  std::ifstream in(std::string(FMWORK_SOURCE_DIR) + "/docs/campaigns.md");
  const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string rows = "| `--statistic` | column | what |\n| --- | --- | --- |\n";
  for (const StatisticSpec& s : statistics())
    rows += std::string("| `") + s.name + "` | `" + s.heading + "` | " + s.help + " |\n";
  EXPECT_NE(doc.find(rows + "\n"), std::string::npos) << "docs/campaigns.md should hold:\n" << rows;
}

TEST(Process, StatisticIsRefusedWhereItMeansNothingOrCannotBeHad) {
  TempDir dir;
  const std::string stat_only = dir.write("s.log", one_combination(10.0));
  EXPECT_EQ(std::string(run_error({"--path", stat_only, "--statistic", "min"}).what()),
            "--statistic is for --compare A B and --baseline KEY=VALUE (the latency of each side); add one of them or "
            "leave it out");
  const Error p10 = run_error({"--compare", stat_only, stat_only, "--statistic", "p10"});
  EXPECT_EQ(p10.exit_code(), 2);
  EXPECT_EQ(std::string(p10.what()), "--statistic p10: " + stat_only + " input 128 batch 4 has no REP lines to take "
                                     "it from; use --statistic min or median (its STAT line has them)");
  EXPECT_EQ(std::string(run_error({"--compare", stat_only, stat_only, "--statistic", "p5"}).what()),
            "--statistic expects one of median, min, p10, mean; got 'p5'; did you mean p10?");
  EXPECT_EQ(std::string(run_error({"--path", stat_only, "--format", "htm"}).what()),
            "--format expects one of json, csv, summary, html; got 'htm'; did you mean html?");
}

TEST(Process, CompareAsDataAndFailIfSlower) {
  TempDir dir;
  const std::string a = dir.write("a.log", one_combination(10.0)), b = dir.write("b.log", one_combination(12.0));
  const std::string csv = run({"--compare", a, b, "--format", "csv"});
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "run,input,batch,a_latency_ms,b_latency_ms,a_throughput,b_throughput,a_tokens_per_s,b_tokens_per_s,"
            "latency_ratio,throughput_ratio,a_cov,b_cov,a_verdict,b_verdict,noise,slower,measure,time_ratio");
  EXPECT_NE(csv.find("\nm c float32,128,4,10,12,400,333.3333333333333,51200,42666.666666666664,1.2,"), std::string::npos)
      << csv;
  const std::string json = run({"--compare", a, b, "--format", "json"});
  EXPECT_NE(json.find("\"latency_ratio\": 1.2,"), std::string::npos) << json;
  EXPECT_NE(json.find("\"verdict\": \"ok\""), std::string::npos) << json;
  // +20% is beyond 5% and beyond 2 x CoV (1%): exit 1, the table saying which.
  std::string err;
  try {
    run({"--compare", a, b, "--fail-if-slower", "5"}, "", &err);
    ADD_FAILURE() << "B is slower: --fail-if-slower must fail";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), 1);
    EXPECT_EQ(std::string(e.what()),
              "--fail-if-slower 5: 1 of 1 combinations are slower beyond 5% and beyond 2x their CoV");
  }
  EXPECT_EQ(run_error({"--compare", a, b, "--fail-if-slower", "5", "--format", "json"}).exit_code(), 1);
  // Within the limit, or B faster: exit 0.
  EXPECT_NE(run({"--compare", a, b, "--fail-if-slower", "25"}).find("1.200x"), std::string::npos);
  EXPECT_EQ(run({"--compare", b, a, "--fail-if-slower", "5"}).find("slower beyond"), std::string::npos);
}

TEST(Process, CompareOptionsAreCheckedInOneLine) {
  TempDir dir;
  const std::string a = dir.write("a.log", one_combination(10.0));
  const std::string b = dir.write("b.log", one_combination(10.0) + "FMWORK META threads=2\n");
  const Error differ = run_error({"--compare", a, b});
  EXPECT_EQ(differ.exit_code(), 2);
  EXPECT_EQ(std::string(differ.what()),
            "--compare: m c float32    128      4 differs in threads (A: 1, B: 2); compare like with like, or pass "
            "--ignore-meta threads to pair them anyway");
  EXPECT_NE(run({"--compare", a, b, "--ignore-meta", "threads"}).find("1.000x"), std::string::npos);
  EXPECT_EQ(std::string(run_error({"--path", a, "--match", "dtype"}).what()),
            "--match is for --compare A B; add --compare or leave it out");
  // Defect: --match took every word after it, the log too, and the error then said no log was given.
  EXPECT_EQ(std::string(run_error({"--match", "dtype", a}).what()),
            "--match is for --compare A B; add --compare or leave it out");
  EXPECT_NE(run({"--compare", a, b, "--ignore-meta", "threads", "--ignore-meta", "model"}).find("1.000x"),
            std::string::npos);
  EXPECT_EQ(std::string(run_error({"--compare", a, b, "--match", "dtype,,x"}).what()),
            "--match takes META keys separated by commas (dtype,threads); got 'dtype,,x'");
  EXPECT_EQ(std::string(run_error({"--compare", a, b, "--fail-if-slower", "-3"}).what()),
            "--fail-if-slower expects a percentage >= 0, such as 5; got '-3'");
  EXPECT_EQ(run_error({"--compare", a, b, "--fail-if-slower", "nan"}).exit_code(), 2);
  // Defect: strtod read "0x10" as 16 and " 5" as 5; the serving options' reader refused them already.
  for (const char* bad : {"0x10", " 5", "inf", "1e999", "5%"})
    EXPECT_EQ(std::string(run_error({"--compare", a, b, "--fail-if-slower", bad}).what()),
              std::string("--fail-if-slower expects a percentage >= 0, such as 5; got '") + bad + "'");
}

// --match and --ignore-meta take the keys a log can say (model, input, batch, META's keys, a campaign's
// matrix columns); a misspelt one paired nothing differently, silently. Options that do nothing in the mode
// chosen are refused too.
TEST(Process, UnknownKeysAndOptionsThatDoNothingAreRefused) {
  TempDir dir;
  const std::string a = dir.write("a.log", one_combination(10.0)), b = dir.write("b.log", one_combination(10.0));
  const Error typo = run_error({"--compare", a, b, "--match", "dtpye"});
  EXPECT_EQ(typo.exit_code(), 2);
  const std::string what = typo.what();
  EXPECT_EQ(what.rfind("--match dtpye: no log read has this key; did you mean dtype? (keys of the logs read: model, "
                       "input, batch, ", 0),
            0u) << what;
  EXPECT_EQ(what.back(), ')') << what;
  // Without a near key the list follows the reason as one clause, not a new sentence run into it ("key It takes").
  const std::string far = run_error({"--compare", a, b, "--match", "zzzzzzzzzz"}).what();
  EXPECT_EQ(far.rfind("--match zzzzzzzzzz: no log read has this key (keys of the logs read: model, ", 0), 0u) << far;
  EXPECT_NE(what.find("threads"), std::string::npos) << what;
  EXPECT_EQ(std::string(run_error({"--compare", a, b, "--ignore-meta", "zzzzzzzzzz"}).what()).find("did you mean"),
            std::string::npos);
  EXPECT_NE(run({"--compare", a, b, "--match", "threads", "--ignore-meta", "model"}).find("1.000x"), std::string::npos);
  const std::vector<std::pair<std::vector<std::string>, std::string>> idle = {
      {{"--compare", a, b, "--metadata_id", "x"}, "--metadata_id goes into the records"},
      {{"--path", a, "--format", "summary", "--metadata_id", "x"}, "--metadata_id goes into the records"},
      {{"--path", a, "--format", "csv", "--upstream"}, "--upstream writes the records"},
      {{"--compare", a, b, "--upstream"}, "--upstream writes the records"},
      {{"--path", a, "--compare", a, b}, "--path and --compare A B: "},
      {{"--compare", a, b, "--format", "html", "--match", "dtype"}, "--match is for --compare's table, json or csv"},
      {{"--compare", a, b, "--format", "html", "--fail-if-slower", "5"}, "--fail-if-slower is for --compare's"}};
  for (const auto& [args, start] : idle) {
    const Error e = run_error(args);
    EXPECT_EQ(e.exit_code(), 2);
    EXPECT_EQ(std::string(e.what()).rfind(start, 0), 0u) << e.what();
  }
  EXPECT_NE(run({"--path", a, "--format", "csv", "--metadata_id", "x"}).find(",x,"), std::string::npos);
}

TEST(Process, VersionAndDidYouMean) {
  EXPECT_EQ(run({"--version"}), std::string("process ") + FMWORK_VERSION + " (fmwork-cpp)\n");
  const std::string message = run_error({"--formt", "csv", "x.log"}).what();
  EXPECT_NE(message.find("; did you mean --format? (see process --help)"), std::string::npos) << message;
  EXPECT_EQ(std::string(run_error({"--zzzzzzzz"}).what()).find("did you mean"), std::string::npos);
}

TEST(Process, Help) {
  const std::string out = run({"--help"});
  EXPECT_NE(out.find("--path"), std::string::npos);
  EXPECT_NE(out.find("--metadata_id"), std::string::npos);
  EXPECT_NE(out.find("--format"), std::string::npos);
  EXPECT_NE(out.find("html"), std::string::npos);
  EXPECT_NE(out.find("--out"), std::string::npos);
}

// process's words become parts of its output (a file's name in the CSV, --metadata_id in JSON): one with a
// line break is refused naming its option, as the driver's are.
TEST(Process, AWordWithALineBreakIsRefusedNamingItsOption) {
  const Error labelled = run_error({"--metadata_id", "a\nb", "-"});
  EXPECT_EQ(labelled.kind(), ErrorKind::usage);
  EXPECT_EQ(std::string(labelled.what()),
            "--metadata_id: the value contains a line break; give it on one line, without control characters");
  const Error file = run_error({"run\r.log"});
  EXPECT_EQ(std::string(file.what()).rfind("'run\\r.log': the value contains a line break", 0), 0u)
      << fmt::format("a file name: {}", file.what());
}

}  // namespace
}  // namespace fmwork
