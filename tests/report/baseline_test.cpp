// Tests of `process --path TREE --baseline KEY=VALUE` (baseline.hpp): a campaign tree written here (plan.json,
// logs/), the speedup table in text, CSV, JSON and HTML, the keys pairs agree and differ on, repeats as their
// median, and the one-line refusals with their exit codes.
#include "fmwork/report/baseline.hpp"

#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "fmwork/base/error.hpp"
#include "support/process_fixtures.hpp"

namespace fmwork {
namespace {

using process_fixtures::run;
using process_fixtures::run_error;

// A log of one run: META, then per batch 1 and 4 at input 16 a RES and a STAT line (stddev 1% of latency).
std::string run_log(const std::string& dtype, int threads, double latency_at_1) {
  std::string out = fmt::format("FMWORK META driver=0.1.0 threads={} dtype={}\n", threads, dtype);
  for (int batch : {1, 4}) {
    const double ms = latency_at_1 * batch;
    out += fmt::format("FMWORK RES 1.000000000 2.000000000 enc BertModel 16 {0} {1:.3f} {2:.1f}\n"
                       "FMWORK STAT input=16 batch={0} reps=10 dropped=2 mean_ms={1:.6f} stddev_ms={3:.6f} "
                       "min_ms={1:.6f} p50_ms={1:.6f} p90_ms={1:.6f} p99_ms={1:.6f} max_ms={1:.6f}\n",
                       batch, ms, batch * 1000.0 / ms, ms / 100);
  }
  return out;
}

struct PlannedLog {
  std::string id, dtype;
  int threads;
  std::string repeat;  // "" when the run is not repeated
  double latency;
  std::string run = "enc";  // the run's name in plan.json
};

// A campaign tree as `driver run` leaves it: plan.json with each run's matrix values, logs/<id>.log.
std::string write_tree(const TempDir& dir, const std::vector<PlannedLog>& runs) {
  std::filesystem::create_directories(dir.path() + "/c/logs");
  std::string plan = R"({"experiment": "x.json", "runs": [)";
  for (size_t i = 0; i < runs.size(); ++i) {
    const PlannedLog& r = runs[i];
    plan += fmt::format(R"({}{{"id": "{}", "run": "{}", "matrix": {{"model:torch_dtype": "{}", )"
                        R"("torch.call:set_num_threads": "{}"{}}}, "argv": ["--reps", "10"]}})",
                        i ? ", " : "", r.id, r.run, r.dtype, r.threads,
                        r.repeat.empty() ? "" : R"(, "repeat": ")" + r.repeat + "\"");
    dir.write("c/logs/" + r.id + ".log", run_log(r.dtype, r.threads, r.latency));
  }
  dir.write("c/plan.json", plan + "]}");
  return dir.path() + "/c";
}

// float32 and bfloat16 at 1 and 2 threads; float32 at 2 threads run twice (6 and 8 ms: median 7).
std::string example_tree(const TempDir& dir) {
  return write_tree(dir, {{"enc.1", "float32", 1, "", 10},
                          {"enc.2", "bfloat16", 1, "", 20},
                          {"enc.3.r1", "float32", 2, "1", 6},
                          {"enc.3.r2", "float32", 2, "2", 8},
                          {"enc.4", "bfloat16", 2, "", 3.5}});
}

TEST(ProcessBaseline, SpeedupTableOfACampaignTree) {
  TempDir dir;
  const std::string tree = example_tree(dir);
  EXPECT_EQ(run({"--path", tree, "--baseline", "dtype=float32"}),
            "speedup over dtype=float32: its latency / the other's (> 1: faster than the baseline), per combination\n"
            "pairs agree on: threads; differ in: dtype, model:torch_dtype\n"
            "dtype     pair       input  batch  baseline_ms  latency_ms  speedup  spread  verdicts\n"
            "bfloat16  threads=1     16      1      10.0000     20.0000   0.500x  beyond\n"
            "bfloat16  threads=1     16      4      40.0000     80.0000   0.500x  beyond\n"
            "bfloat16  threads=2     16      1       7.0000      3.5000   2.000x  beyond\n"
            "bfloat16  threads=2     16      4      28.0000     14.0000   2.000x  beyond\n"
            "dtype=bfloat16: median speedup 1.250x over 4 combinations (0.500x to 2.000x)\n"
            "repeats: up to 2; latency is their median, the spread their stddev\n");
  // The matrix column names the same split; the META key it goes with differs within a pair too.
  const std::string by_label = run({"--path", tree, "--baseline", "model:torch_dtype=float32"});
  EXPECT_NE(by_label.find("pairs agree on: threads; differ in: model:torch_dtype, dtype\n"), std::string::npos) << by_label;
  EXPECT_NE(by_label.find("bfloat16           threads=2     16      4      28.0000     14.0000   2.000x"),
            std::string::npos) << by_label;
  // Against another key: threads=1 as the baseline pairs each dtype with its own.
  const std::string threads = run({"--path", tree, "--baseline", "threads=1"});
  EXPECT_NE(threads.find("pairs agree on: dtype; differ in: threads, torch.call:set_num_threads\n"), std::string::npos)
      << threads;
  EXPECT_NE(threads.find("2        dtype=float32      16      1      10.0000      7.0000   1.429x"), std::string::npos)
      << threads;
  EXPECT_NE(threads.find("2        dtype=bfloat16     16      1      20.0000      3.5000   5.714x"), std::string::npos)
      << threads;
}

// --statistic min: the speedups of the STAT lines' min_ms, named in the heading and the columns.
TEST(ProcessBaseline, AnotherStatisticIsNamedWhereTheLatenciesAre) {
  TempDir dir;
  const std::string tree = example_tree(dir);
  const std::string out = run({"--path", tree, "--baseline", "dtype=float32", "--statistic", "min"});
  EXPECT_NE(out.find("\nlatency: min_ms, the fastest kept rep: what a neighbour taking the CPU moves least "
                     "(--statistic min; repeats: the median of theirs)\n"
                     "dtype     pair       input  batch  baseline_min_ms   min_ms  speedup  spread  verdicts\n"),
            std::string::npos)
      << out;
  const std::string csv = run({"--path", tree, "--baseline", "dtype=float32", "--statistic", "min", "--format", "csv"});
  EXPECT_EQ(csv.rfind("key,value,pair,input,batch,baseline_min_ms,min_ms,speedup,", 0), 0u) << csv;
  EXPECT_NE(run({"--path", tree, "--baseline", "dtype=float32", "--statistic", "min", "--format", "html"})
                .find("from min_ms, the fastest kept rep"),
            std::string::npos);
}

// Seen before: a speedup shown without a mark although the run behind it was not ok. A run whose STAT
// says its threads waited for a CPU half the time is contended, and every speedup on it is marked.
TEST(ProcessBaseline, ASpeedupOnARunThatIsNotOkIsMarked) {
  TempDir dir;
  const std::string tree = example_tree(dir);
  std::string log = run_log("bfloat16", 2, 3.5);
  for (size_t at = 0; (at = log.find(" max_ms=", at)) != std::string::npos; at += 40)
    log.insert(at, " cpu_share=0.4000 wait_share=0.5000");
  dir.write("c/logs/enc.4.log", log);
  const std::string out = run({"--path", tree, "--baseline", "dtype=float32"});
  EXPECT_NE(out.find("bfloat16  threads=2     16      1       7.0000      3.5000   2.000x  beyond  this contended\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("bfloat16  threads=1     16      1      10.0000     20.0000   0.500x  beyond\n"), std::string::npos) << out;
  EXPECT_NE(out.find("(0.500x to 2.000x); 2 of them on runs whose verdict is not ok: not a speedup to quote\n"),
            std::string::npos)
      << out;
  const std::string csv = run({"--path", tree, "--baseline", "dtype=float32", "--format", "csv"});
  EXPECT_NE(csv.find(",beyond,ok,contended,latency,"), std::string::npos) << csv;
  const std::string html = run({"--path", tree, "--baseline", "dtype=float32", "--format", "html"});
  EXPECT_NE(html.find("2.000&#215; <span class=\"untrusted\" title=\"this contended\">!</span>"), std::string::npos);
  EXPECT_NE(html.find("2 speedups of this table rest on a run whose verdict is not ok"), std::string::npos);
}

TEST(ProcessBaseline, CsvJsonAndHtmlHoldTheSameNumbers) {
  TempDir dir;
  const std::string tree = example_tree(dir);
  const std::string csv = run({"--path", tree, "--baseline", "dtype=float32", "--format", "csv"});
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "key,value,pair,input,batch,baseline_latency_ms,latency_ms,speedup,latency_ratio,baseline_repeats,repeats,"
            "baseline_cov,cov,noise,baseline_verdict,verdict,measure,baseline_tokens_per_s,tokens_per_s");
  EXPECT_NE(csv.find("\ndtype,bfloat16,threads=2,16,1,7,3.5,2,0.5,2,1,"), std::string::npos) << csv;
  const std::string json = run({"--path", tree, "--baseline", "dtype=float32", "--format", "json"});
  EXPECT_EQ(json.rfind("{\n    \"baseline\": {\n        \"key\": \"dtype\",\n        \"value\": \"float32\"\n    },\n"
                       "    \"statistic\": \"median\",\n"
                       "    \"measure\": \"latency\",\n"
                       "    \"paired_on\": [\n        \"threads\"\n    ],\n",
                       0),
            0u) << json;
  EXPECT_NE(json.find("\"speedup_median\": 1.25,"), std::string::npos) << json;
  EXPECT_NE(json.find("\"speedup\": 2.0"), std::string::npos) << json;
  EXPECT_NE(json.find("\"b\": \"dtype=bfloat16\""), std::string::npos) << json;
  const std::string html = run({"--path", tree, "--baseline", "dtype=float32", "--format", "html"});
  EXPECT_NE(html.find("<h1>fmwork speedups over dtype=float32</h1>"), std::string::npos);
  EXPECT_NE(html.find("<h2>dtype=bfloat16: median speedup 1.250&#215;</h2>"), std::string::npos);
  // The verdicts and the CoVs lead the row (a wide table's last columns are off-screen).
  EXPECT_NE(html.find("<tr class=\"faster\"><td></td><td class=\"num\">20.2% / 1.0%</td><td class=\"name\">threads=2</td>"
                      "<td class=\"num\">16</td><td class=\"num\">1</td><td class=\"num\">7.0000</td><td class=\"num\">"
                      "3.5000</td><td class=\"num ratio\">2.000&#215;"),
            std::string::npos) << html;
  EXPECT_EQ(html.find("<script"), std::string::npos);
  // summary is the text table.
  EXPECT_EQ(run({"--path", tree, "--baseline", "dtype=float32", "--format", "summary"}),
            run({"--path", tree, "--baseline", "dtype=float32"}));
}

TEST(ProcessBaseline, PlainLogsWithoutATreeAndWhatHasNoPartner) {
  TempDir dir;
  const std::string a = dir.write("a.log", run_log("float32", 1, 10)), b = dir.write("b.log", run_log("bfloat16", 1, 5));
  const std::string c = dir.write("c.log", run_log("float16", 4, 2));
  const std::string out = run({"--path", a, "--path", b, "--path", c, "--baseline", "dtype=float32"});
  // threads varies (1, 1, 4) without going with dtype: it pairs; float16 at 4 threads has no partner.
  EXPECT_NE(out.find("pairs agree on: threads; differ in: dtype\n"), std::string::npos) << out;
  EXPECT_NE(out.find("bfloat16  threads=1     16      1      10.0000      5.0000   2.000x"), std::string::npos) << out;
  EXPECT_NE(out.find("dtype=float16: 2 combinations without a baseline to pair with, 2 of the baseline without a partner\n"),
            std::string::npos) << out;
}

// Defect: a campaign whose runs are named after their configuration ("enc-fp32-t1") paired by run name, so no
// run paired with one of another dtype: an empty table, exit 0. The name says nothing the keys do not: left out.
TEST(ProcessBaseline, RunsNamedAfterTheirConfigurationPair) {
  TempDir dir;
  const std::string tree = write_tree(dir, {{"enc-fp32-t1.1", "float32", 1, "", 10, "enc-fp32-t1"},
                                            {"enc-bf16-t1.2", "bfloat16", 1, "", 5, "enc-bf16-t1"},
                                            {"enc-fp32-t2.3", "float32", 2, "", 6, "enc-fp32-t2"},
                                            {"enc-bf16-t2.4", "bfloat16", 2, "", 4, "enc-bf16-t2"}});
  const std::string out = run({"--path", tree, "--baseline", "dtype=float32"});
  EXPECT_NE(out.find("pairs agree on: threads; differ in: dtype, model:torch_dtype\n"), std::string::npos) << out;
  EXPECT_NE(out.find("bfloat16  threads=1     16      1      10.0000      5.0000   2.000x"), std::string::npos) << out;
  EXPECT_NE(out.find("bfloat16  threads=2     16      4      24.0000     16.0000   1.500x"), std::string::npos) << out;
}

// Defect: a table with no pair at all was printed empty with exit 0. Now one line naming the keys pairs agree on
// and each side's values, and what to pass (exit 2); no size in common is nothing to compare (exit 1).
TEST(ProcessBaseline, NoPairAtAllIsAnError) {
  TempDir dir;
  const std::string a = dir.write("a.log", run_log("float32", 1, 10)), b = dir.write("b.log", run_log("float32", 2, 6));
  const std::string c = dir.write("c.log", run_log("bfloat16", 4, 2));
  const Error e = run_error({"--path", a, "--path", b, "--path", c, "--baseline", "dtype=float32"});
  EXPECT_EQ(std::string(e.what()),
            "--baseline dtype=float32: no run pairs with a baseline run: pairs agree on threads, and no value of them is "
            "on both sides (baseline: threads=1; threads=2; others: threads=4); compare two of them with --compare A B "
            "--match input,batch, or choose a key whose other values were run beside the baseline's");
  EXPECT_EQ(e.exit_code(), 2);
  std::string other_sizes = run_log("bfloat16", 1, 2);
  for (size_t at = 0; (at = other_sizes.find(" 16 ", at)) != std::string::npos; at += 4) other_sizes.replace(at, 4, " 32 ");
  for (size_t at = 0; (at = other_sizes.find("input=16", at)) != std::string::npos; at += 8)
    other_sizes.replace(at, 8, "input=32");
  const Error sizes = run_error({"--path", a, "--path", dir.write("d.log", other_sizes), "--baseline", "dtype=float32"});
  EXPECT_EQ(std::string(sizes.what()), "--baseline dtype=float32: no run has an input and batch in common with the "
                                       "baseline's: nothing to compare; run them on the same --input_sizes and "
                                       "--batch_sizes");
  EXPECT_EQ(sizes.exit_code(), 1);
}

// A log of one batching mode over mixed lengths: a combination at input 64 batch 8 whose median batch latency
// is `ms` and whose kept reps did `tokens_per_s` real tokens a second (STAT's, with the token fields).
std::string mixed_log(const std::string& batching, double ms, double tokens_per_s, const std::string& model = "enc") {
  return fmt::format("FMWORK META driver=0.1.0 threads=1 dtype=float32 batching={0} lengths=lognormal:16,64,0.8\n"
                     "FMWORK RES 1.000000000 2.000000000 {4} BertModel 64 8 {1:.3f} {2:.1f}\n"
                     "FMWORK STAT input=64 batch=8 reps=20 dropped=4 mean_ms={1:.6f} stddev_ms={5:.6f} min_ms={1:.6f} "
                     "p50_ms={1:.6f} p90_ms={1:.6f} p99_ms={1:.6f} max_ms={1:.6f} tokens_per_s={3:.3f} real_tokens=150.0 "
                     "padded_tokens=400.0 padding=0.6250 padded_tokens_per_s=1000.000 work_cov=0.0100 "
                     "work_p90_p50=1.0100 work_drift=0.0010 work_explained=0.9500\n",
                     batching, ms, 8000.0 / ms, tokens_per_s, model, ms * 0.3);
}

// Defect: the modes of a mixed-length campaign were ranked by median batch latency, sorted 3.23x
// above unpadded 2.57x, where the real tokens per second of the same requests said unpadded 2.88x, sorted 2.25x.
// Now on the work done, and the table says so.
TEST(ProcessBaseline, BatchingModesCompareOnRealTokensPerSecond) {
  TempDir dir;
  const std::string padded = dir.write("padded.log", mixed_log("padded", 10.0, 1000.0));
  const std::string sorted = dir.write("sorted.log", mixed_log("sorted", 10.0 / 3.23, 2250.0));
  const std::string unpadded = dir.write("unpadded.log", mixed_log("unpadded", 10.0 / 2.57, 2880.0));
  const std::vector<std::string> args = {"--path", padded, "--path", sorted, "--path", unpadded, "--baseline",
                                         "batching=padded"};
  std::vector<std::string> text_args = args;
  const std::string out = run(text_args);
  EXPECT_NE(out.find("speedup over batching=padded: its real tokens per second / the baseline's (> 1: faster than the "
                     "baseline), per combination\n"),
            std::string::npos) << out;
  EXPECT_NE(out.find("batching  pair  input  batch  baseline_tok/s  real_tok/s  speedup  spread  verdicts\n"
                     "sorted    *        64      8          1000.0      2250.0   2.250x  beyond\n"
                     "unpadded  *        64      8          1000.0      2880.0   2.880x  beyond\n"),
            std::string::npos) << out;
  EXPECT_NE(out.find("\nmeasure: real tokens per second, the kept reps' real tokens over their summed time"),
            std::string::npos) << out;
  std::vector<std::string> csv_args = args;
  csv_args.insert(csv_args.end(), {"--format", "csv"});
  const std::string csv = run(csv_args);
  EXPECT_NE(csv.find(",ok,ok,real_tokens_per_s,1000,2250\n"), std::string::npos) << csv;
  std::vector<std::string> json_args = args;
  json_args.insert(json_args.end(), {"--format", "json"});
  EXPECT_NE(run(json_args).find("\"measure\": \"real_tokens_per_s\","), std::string::npos);
  std::vector<std::string> html_args = args;
  html_args.insert(html_args.end(), {"--format", "html"});
  const std::string html = run(html_args);
  EXPECT_NE(html.find("<h2>batching=unpadded: median speedup 2.880&#215;</h2>"), std::string::npos) << html;
  EXPECT_NE(html.find("baseline real tokens/s"), std::string::npos);
  // A statistic of single reps is no measure of the kept reps' work: refused in one line.
  std::vector<std::string> min_args = args;
  min_args.insert(min_args.end(), {"--statistic", "min"});
  const Error e = run_error(min_args);
  EXPECT_EQ(e.exit_code(), 2);
  EXPECT_NE(std::string(e.what()).find("--statistic min: * "), std::string::npos) << e.what();
  EXPECT_NE(std::string(e.what()).find("ran mixed lengths (--input_lengths)"), std::string::npos) << e.what();
}

void expect_refused(const std::vector<std::string>& args, const std::string& message, int code = 2) {
  const Error e = run_error(args);
  EXPECT_EQ(std::string(e.what()), message);
  EXPECT_EQ(e.exit_code(), code);
}

TEST(ProcessBaseline, RefusedInOneLine) {
  TempDir dir;
  const std::string tree = example_tree(dir);
  expect_refused({"--path", tree, "--baseline", "dtyp=float32"},
                 "--baseline dtyp=float32: no log states dtyp; did you mean dtype?");
  expect_refused({"--path", tree, "--baseline", "zzzzzzzz=1"},
                 "--baseline zzzzzzzz=1: no log states zzzzzzzz (keys: driver, dtype, model, model:torch_dtype, repeat, "
                 "run, run_id, threads, torch.call:set_num_threads)");
  expect_refused({"--path", tree, "--baseline", "dtype=float16"},
                 "--baseline dtype=float16: no run has dtype float16 (values: bfloat16, float32)");
  expect_refused({"--path", tree, "--baseline", "dtype"}, "--baseline takes KEY=VALUE, such as dtype=float32; got 'dtype'");
  expect_refused({"--path", tree, "--baseline", "=x"}, "--baseline takes KEY=VALUE, such as dtype=float32; got '=x'");
  // Hostile round seven: a 100 KB value was repeated whole, twice, in the refusal's one line.
  const std::string huge = "batching=" + std::string(100000, 'x');
  expect_refused({"--path", tree, "--baseline", huge},
                 "--baseline takes KEY=VALUE, each at most 1024 characters (a META key and its value); got '" +
                     excerpt(huge) + "'");
  expect_refused({"--compare", tree, tree, "--baseline", "dtype=float32"},
                 "--baseline is for --path; with --compare A B, A is the baseline: leave one out");
  TempDir one;
  const std::string only = write_tree(one, {{"enc.1", "float32", 1, "", 10}, {"enc.2", "float32", 2, "", 6}});
  expect_refused({"--path", only, "--baseline", "dtype=float32"},
                 "--baseline dtype=float32: every run has dtype float32; nothing to compare with it");
}

}  // namespace
}  // namespace fmwork
