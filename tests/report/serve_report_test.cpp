#include "fmwork/report/serve_report.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "support/process_fixtures.hpp"

namespace fmwork {
namespace {

using namespace process_fixtures;

// A log of driver serve as it writes it: two levels, a search level, the capacity (numbers made up, format real).
const std::string kServeLog =
    "FMWORK ARG --rates 20,80\n"
    "FMWORK META driver=0.1.0 platform=cpu dtype=float32\n"
    "FMWORK SERVE level=1 phase=levels arrival=poisson rate=20.000 lengths=fixed:128 batching=padded max_batch=8 "
    "max_wait_ms=2.000 max_tokens=0 queries=104 warmup_queries=21 unanswered=0 window_s=5.031 offered_qps=20.391 "
    "achieved_qps=20.672 tokens_per_s=2646.0 p50_ms=14.122 p90_ms=17.540 p99_ms=24.871 p999_ms=27.322 max_ms=27.594 "
    "mean_ms=14.960 batches=99 mean_batch=1.051 batch_hist=1:94,2:5 busy=0.3071 bound=p99:50 bound_ms=24.871 "
    "verdict=VALID reason=kept up, enough queries, p99 24.871 <= 50 ms\n"
    "FMWORK SERVE level=2 phase=levels arrival=poisson rate=80.000 lengths=fixed:128 batching=padded max_batch=8 "
    "max_wait_ms=2.000 max_tokens=0 queries=390 warmup_queries=80 unanswered=0 window_s=7.500 offered_qps=79.100 "
    "achieved_qps=52.000 tokens_per_s=6656.0 p50_ms=900.000 p90_ms=1900.000 p99_ms=2300.000 p999_ms=2400.000 "
    "max_ms=2410.000 mean_ms=1000.000 batches=60 mean_batch=7.900 batch_hist=6:2,8:58 busy=0.9990 bound=p99:50 "
    "bound_ms=2300.000 verdict=INVALID reason=fell behind: achieved 52.0 of 79.1 queries/s offered; p99 2300.000 ms > 50 ms\n"
    "FMWORK SERVE level=3 phase=search arrival=poisson rate=40.000 lengths=fixed:128 batching=padded max_batch=8 "
    "max_wait_ms=2.000 max_tokens=0 queries=200 warmup_queries=40 unanswered=0 window_s=5.020 offered_qps=40.100 "
    "achieved_qps=39.900 tokens_per_s=5107.2 p50_ms=20.000 p90_ms=30.000 p99_ms=45.000 p999_ms=47.000 max_ms=48.000 "
    "mean_ms=22.000 batches=150 mean_batch=1.400 batch_hist=1:100,2:50 busy=0.6000 bound=p99:50 bound_ms=45.000 "
    "verdict=VALID reason=kept up, enough queries, p99 45.000 <= 50 ms\n"
    "FMWORK CAPACITY bound=p99:50 result=found capacity_qps=40.000 bound_ms=45.000 achieved_qps=39.900 "
    "lowest_failed_qps=80.000 steps=2 tried=20:pass:24.871,40:pass:45.000 price_per_hour=3.2000 "
    "usd_per_million=22.222222 reason=capacity at p99 <= 50 ms: 40.00 queries/s after 2 levels, $22.2222 per million "
    "queries at $3.2/h\n";

TEST(ServeReport, SummaryHasTheLevelsAndTheCapacity) {
  TempDir dir;
  const std::string path = dir.write("serve.log", kServeLog);
  const std::string summary = run({"--path", path, "--format", "summary"});
  EXPECT_EQ(summary.find("(no results)"), std::string::npos) << summary;
  EXPECT_NE(summary.find("serving levels:"), std::string::npos) << summary;
  EXPECT_NE(summary.find("p99_ms"), std::string::npos);
  EXPECT_NE(summary.find("2300.00"), std::string::npos);
  EXPECT_NE(summary.find("level 2: INVALID: fell behind"), std::string::npos) << summary;
  EXPECT_NE(summary.find("CAPACITY p99:50: capacity at p99 <= 50 ms: 40.00 queries/s"), std::string::npos) << summary;
}

// docs/serving.md promised "the levels and the capacity as a table" of `process --path serve.log`, which printed
// JSON records (the default format): each of its `process --path serve.log` commands does what its comment says.
TEST(ServeReport, TheServingPagesProcessCommandsDoWhatTheySay) {
  std::ifstream page(std::string(FMWORK_SOURCE_DIR) + "/docs/serving.md");
  ASSERT_TRUE(page) << "docs/serving.md";
  TempDir dir;
  const std::string path = dir.write("serve.log", kServeLog);
  size_t commands = 0;
  for (std::string line; std::getline(page, line);) {
    const std::string command = "build/process --path serve.log";
    if (line.rfind(command, 0) != 0) continue;
    ++commands;
    const std::string words = line.substr(command.size(), line.find('#') - command.size());
    const std::string comment = line.substr(line.find('#'));
    std::vector<std::string> args = {"--path", path};
    std::istringstream split(words.substr(0, words.find('>')));
    for (std::string word; split >> word;) args.push_back(word);
    const std::string output = run(args);
    if (comment.find("as a table") != std::string::npos) {
      EXPECT_NE(output.find("serving levels:"), std::string::npos) << line << "\n" << output.substr(0, 200);
      EXPECT_NE(output.find("CAPACITY p99:50"), std::string::npos) << line;
    }
    if (comment.find("chart") != std::string::npos) EXPECT_NE(output.find("<svg"), std::string::npos) << line;
  }
  EXPECT_EQ(commands, 2u) << "the page's two commands";
}

TEST(ServeReport, CsvAndJsonHoldOneRecordPerLine) {
  TempDir dir;
  const std::string path = dir.write("serve.log", kServeLog);
  std::string err;
  const std::string csv = run({"--path", path, "--format", "csv"}, "", &err);
  EXPECT_EQ(csv.rfind("source,line,level,phase,arrival,rate,", 0), 0u) << csv.substr(0, 200);
  EXPECT_EQ(err, "") << "a serve log has no RES line by design: no note says it ended early";
  size_t rows = 0;
  for (char c : csv) rows += c == '\n';
  EXPECT_EQ(rows, 5u);  // the header, three SERVE lines, one CAPACITY
  EXPECT_NE(csv.find(",CAPACITY,"), std::string::npos);
  EXPECT_NE(csv.find("22.222222"), std::string::npos);
  const nlohmann::json json = nlohmann::json::parse(run({"--path", path, "--format", "json"}));
  ASSERT_EQ(json.size(), 4u);
  EXPECT_EQ(json[0]["line"], "SERVE");
  EXPECT_EQ(json[0]["p99_ms"].get<double>(), 24.871);
  EXPECT_EQ(json[0]["queries"].get<int64_t>(), 104);
  EXPECT_EQ(json[3]["line"], "CAPACITY");
  EXPECT_EQ(json[3]["capacity_qps"].get<double>(), 40.0);
}

// A campaign of serve runs (driver run, "command": "serve"): a matrix over --batching, each run's search.
std::string serve_tree(const TempDir& dir) {
  std::filesystem::create_directories(dir.path() + "/c/logs");
  dir.write("c/plan.json", R"({"experiment": "x.json", "runs": [)"
            R"({"id": "m.1", "run": "m", "matrix": {"batching": "padded"}, "argv": ["serve", "--rates", "20,80"]},)"
            R"({"id": "m.2", "run": "m", "matrix": {"batching": "unpadded"}, "argv": ["serve", "--rates", "20,80"]}]})");
  dir.write("c/logs/m.1.log", kServeLog);
  std::string faster = kServeLog;
  faster.replace(faster.find("capacity_qps=40.000"), 19, "capacity_qps=55.500");
  dir.write("c/logs/m.2.log", faster);
  return dir.path() + "/c";
}

TEST(ServeReport, ACampaignsCapacitiesAreOneTableWithItsMatrixColumns) {
  TempDir dir;
  const std::string tree = serve_tree(dir);
  const std::string summary = run({"--path", tree, "--format", "summary"});
  const size_t table = summary.find("capacity at the latency bound, one row per search:");
  ASSERT_NE(table, std::string::npos) << summary;
  const std::string rows = summary.substr(table);
  EXPECT_NE(rows.find("batching"), std::string::npos) << rows;
  EXPECT_NE(rows.find("USD/M"), std::string::npos) << rows;
  const size_t padded = rows.find("m.1"), unpadded = rows.find("m.2");
  ASSERT_NE(padded, std::string::npos) << rows;
  ASSERT_NE(unpadded, std::string::npos) << rows;
  EXPECT_NE(rows.find("40.000", padded), std::string::npos) << rows;
  EXPECT_NE(rows.find("55.500", unpadded), std::string::npos) << rows;
  // CSV: the matrix columns last, on every SERVE and CAPACITY row; JSON: each record's labels.
  const std::string csv = run({"--path", tree, "--format", "csv"});
  const std::string header = csv.substr(0, csv.find('\n'));
  EXPECT_NE(header.find(",run_id,run,matrix.batching"), std::string::npos) << header;  // batching is a field too
  EXPECT_NE(csv.find(",CAPACITY,"), std::string::npos);
  EXPECT_NE(csv.find(",m.2,m,unpadded\n"), std::string::npos) << csv;
  const nlohmann::json json = nlohmann::json::parse(run({"--path", tree, "--format", "json"}));
  ASSERT_EQ(json.size(), 8u);
  EXPECT_EQ(json[7]["labels"]["batching"], "unpadded");
  // The report names each run by its id and matrix values, not by its log's path.
  const std::string html = run({"--path", tree, "--format", "html"});
  EXPECT_NE(html.find("m.2 (batching=unpadded)"), std::string::npos);
  EXPECT_EQ(html.find("logs/m.2.log p99"), std::string::npos);
  EXPECT_NE(html.find("m.2 p99"), std::string::npos);
  // One search alone is its log's CAPACITY line, no table.
  EXPECT_EQ(run({"--path", tree + "/logs/m.1.log", "--format", "summary"}).find("one row per search"), std::string::npos);
}

// Serve logs beside sweep logs: JSON holds both kinds; CSV, whose columns are one kind's, refuses in one line;
// --compare and --baseline, which pair RES records, refuse logs that are all serve's and leave out some.
TEST(ServeReport, ServeAndSweepLogsTogetherAreNeverDroppedInSilence) {
  TempDir dir;
  const std::string serve = dir.write("serve.log", kServeLog), sweep = dir.write("sweep.log", kOurLog);
  const nlohmann::json json = nlohmann::json::parse(run({"--path", sweep, serve, "--format", "json"}));
  size_t serve_records = 0;
  for (const auto& record : json) serve_records += record.contains("line");
  EXPECT_EQ(serve_records, 4u) << json.dump().substr(0, 300);
  EXPECT_GT(json.size(), serve_records);
  const Error csv = run_error({"--path", sweep, serve, "--format", "csv"});
  EXPECT_EQ(csv.exit_code(), 2);
  EXPECT_NE(std::string(csv.what()).find("--format csv: 1 of the 2 logs are driver serve's"), std::string::npos)
      << csv.what();
  const Error compare = run_error({"--compare", serve, serve});
  EXPECT_EQ(compare.exit_code(), 2);
  EXPECT_NE(std::string(compare.what()).find("--compare pairs the sweep's results (RES lines)"), std::string::npos)
      << compare.what();
  std::string err;
  run({"--compare", dir.path(), dir.path()}, "", &err);
  EXPECT_NE(err.find("1 of the 2 logs"), std::string::npos) << err;
  const Error baseline = run_error({"--path", serve, "--baseline", "batching=padded"});
  EXPECT_NE(std::string(baseline.what()).find("--baseline pairs the sweep's results"), std::string::npos)
      << baseline.what();
  // --upstream writes upstream's records, which have no serving kind: the serve logs left out, saying so.
  std::string upstream_err;
  const nlohmann::json upstream =
      nlohmann::json::parse(run({"--path", sweep, serve, "--upstream"}, "", &upstream_err));
  EXPECT_EQ(upstream.size(), json.size() - serve_records);
  for (const auto& record : upstream) EXPECT_FALSE(record.contains("line")) << record.dump().substr(0, 200);
  EXPECT_NE(upstream_err.find("note: --upstream: 1 of the 2 logs"), std::string::npos) << upstream_err;
  const Error upstream_only = run_error({"--path", serve, "--upstream"});
  EXPECT_EQ(upstream_only.exit_code(), 2);
  EXPECT_NE(std::string(upstream_only.what()).find("--upstream writes upstream's records"), std::string::npos)
      << upstream_only.what();
}

// Defects: one file with both RES and SERVE lines (a sweep's and a serve's output appended) lost its SERVE lines
// in csv and json without a word; a serve log's summary heading said "0 results, 0 failures".
TEST(ServeReport, OneLogOfBothKindsKeepsItsServeLinesOrSaysSo) {
  TempDir dir;
  const std::string both = dir.write("both.log", kOurLog + kServeLog);
  std::string err;
  const nlohmann::json json = nlohmann::json::parse(run({"--path", both, "--format", "json"}, "", &err));
  size_t serve_records = 0;
  for (const auto& record : json) serve_records += record.contains("line");
  EXPECT_EQ(serve_records, 4u) << json.dump().substr(0, 300);
  EXPECT_GT(json.size(), serve_records) << "and the RES records";
  EXPECT_EQ(err, "");
  std::string csv_err;
  const std::string csv = run({"--path", both, "--format", "csv"}, "", &csv_err);
  EXPECT_EQ(csv.find(",CAPACITY,"), std::string::npos);
  EXPECT_EQ(csv_err, "note: " + both + ": --format csv leaves out its 3 SERVE lines and 1 CAPACITY line beside its RES "
                     "lines (driver serve's columns are not the sweep's; --format json holds both)\n");
  std::string upstream_err;
  run({"--path", both, "--upstream"}, "", &upstream_err);
  EXPECT_EQ(upstream_err, "note: " + both + ": --upstream leaves out its 3 SERVE lines and 1 CAPACITY line beside its "
                          "RES lines (upstream's records are the sweep's RES lines)\n");
  const std::string summary = run({"--path", both, "--format", "summary"});
  EXPECT_NE(summary.find("serving levels:"), std::string::npos) << summary;
  const std::string serve_summary = run({"--path", dir.write("serve.log", kServeLog), "--format", "summary"});
  EXPECT_EQ(serve_summary.rfind(dir.path() + "/serve.log: 3 serve levels, 1 capacity search\n", 0), 0u) << serve_summary;
  EXPECT_NE(summary.find("both.log: 1 result, 1 failure, 3 serve levels, 1 capacity search\n"), std::string::npos)
      << summary;
}

TEST(ServeReport, HtmlDrawsLatencyAgainstLoadWithTheBound) {
  TempDir dir;
  const std::string path = dir.write("serve.log", kServeLog);
  const std::string html = run({"--path", path, "--format", "html"});
  EXPECT_NE(html.find("<section id=\"serving\">"), std::string::npos);
  EXPECT_NE(html.find("Latency against load"), std::string::npos);
  EXPECT_NE(html.find("class=\"reference\""), std::string::npos);  // the bound, dashed
  EXPECT_NE(html.find("serve.log p99"), std::string::npos);
  // A log without SERVE lines has no serving section.
  EXPECT_EQ(serve_html_section({}), "");
}

// A level that answered no measured query has no latency fields: every format says "not measured" (JSON null,
// an empty CSV cell, '-' in the summary, no point in the chart), never 0.
TEST(ServeReport, AFigureNotMeasuredIsNeverAZero) {
  const std::string level =
      "FMWORK SERVE level=1 phase=levels arrival=poisson rate=900.000 lengths=fixed:128 batching=padded max_batch=8 "
      "max_wait_ms=0.000 max_tokens=0 queries=0 warmup_queries=450 unanswered=5400 window_s=0.000 "
      "offered_qps=901.000 batches=0 batch_hist=- bound=p99:50 verdict=INVALID reason=fell behind: 5400 queries "
      "unanswered when the level stopped; no latency: no query scheduled after the warm-up was answered before the "
      "level stopped; p99 not measured, so not held to 50 ms\n";
  TempDir dir;
  const std::string path = dir.write("serve.log", "FMWORK ARG --rates 900\n" + level);
  const nlohmann::json json = nlohmann::json::parse(run({"--path", path, "--format", "json"}));
  ASSERT_EQ(json.size(), 1u);
  for (const char* key : {"p50_ms", "p99_ms", "max_ms", "busy", "achieved_qps", "bound_ms"}) {
    ASSERT_TRUE(json[0].contains(key)) << fmt::format("{} is missing from {}", key, json[0].dump());
    EXPECT_TRUE(json[0][key].is_null()) << fmt::format("{} is {}, not null", key, json[0][key].dump());
  }
  EXPECT_EQ(json[0]["queries"].get<int64_t>(), 0) << "a count of none is a measured 0";
  const std::string csv = run({"--path", path, "--format", "csv"});
  const auto cells = [](const std::string& line) {  // the cells before the first quoted one (the reason)
    std::vector<std::string> out(1);
    for (char c : line.substr(0, line.find('"'))) {
      if (c == ',') out.emplace_back();
      else out.back().push_back(c);
    }
    return out;
  };
  const std::vector<std::string> header = cells(csv.substr(0, csv.find('\n')));
  const std::vector<std::string> row = cells(csv.substr(csv.find('\n') + 1));
  for (const char* key : {"p50_ms", "p99_ms", "busy", "achieved_qps", "queue_p50_ms"}) {
    const size_t at = static_cast<size_t>(std::find(header.begin(), header.end(), key) - header.begin());
    ASSERT_LT(at, row.size()) << fmt::format("no {} column in:\n{}", key, csv);
    EXPECT_EQ(row[at], "") << fmt::format("{} is {} in:\n{}", key, row[at], csv);
  }
  const std::string summary = run({"--path", path, "--format", "summary"});
  EXPECT_EQ(summary.find("0.00 "), std::string::npos) << fmt::format("a 0.00 figure in:\n{}", summary);
  EXPECT_NE(summary.find("no latency: no query scheduled after the warm-up was answered"), std::string::npos)
      << summary;
  const std::string html = run({"--path", path, "--format", "html"});
  EXPECT_EQ(html.find("p50 level 1"), std::string::npos) << "a point drawn for a latency not measured";
}

// A level and a capacity measured while other work held the CPU: the summary names the contended level and its
// reason, the capacity line says so, and the campaign's capacity table has a timing column.
TEST(ServeReport, ContendedLevelsAndCapacitiesSaySoInTheSummary) {
  std::string log = kServeLog;
  const std::string quiet = "busy=0.6000 bound=p99:50", contended = "busy=0.6000 cpu_share=0.4200 wait_share=0.5100 "
                                                                    "timing=contended bound=p99:50";
  log.replace(log.find(quiet), quiet.size(), contended);
  const std::string level3 = "reason=kept up, enough queries, p99 45.000 <= 50 ms\n";
  log.replace(log.find(level3), level3.size(),
              "reason=kept up, enough queries, p99 45.000 <= 50 ms; contended: threads waited for a CPU 51.0% of the "
              "time > 10.0% -- rerun on a quiet machine\n");
  const std::string answer = "usd_per_million=22.222222 reason=";
  log.replace(log.find(answer), answer.size(), "usd_per_million=22.222222 timing=contended contended_levels=1 reason=");
  TempDir dir;
  const std::string path = dir.write("serve.log", log);
  const std::string summary = run({"--path", path, "--format", "summary"});
  EXPECT_NE(summary.find("level 3: VALID, contended: kept up, enough queries, p99 45.000 <= 50 ms; contended: threads "
                         "waited for a CPU 51.0%"), std::string::npos) << summary;
  EXPECT_NE(summary.find("timing"), std::string::npos) << "the levels' table has the timing column: " << summary;
  const nlohmann::json json = nlohmann::json::parse(run({"--path", path, "--format", "json"}));
  EXPECT_EQ(json[2]["timing"], "contended");
  EXPECT_EQ(json[3]["contended_levels"].get<int64_t>(), 1);
  const std::string table = serve_capacity_table({parse_log_text(log, "a.log"), parse_log_text(kServeLog, "b.log")});
  EXPECT_NE(table.find("timing"), std::string::npos) << table;
  EXPECT_NE(table.find("contended"), std::string::npos) << table;
}

}  // namespace
}  // namespace fmwork
