#include "fmwork/log/log_schema.hpp"

#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

namespace fmwork {
namespace {

std::vector<std::string> keys(const std::vector<const FieldSpec*>& specs) {
  std::vector<std::string> out;
  for (const FieldSpec* f : specs) out.emplace_back(f->key);
  return out;
}

std::vector<std::string> csv_headers(const LineSpec& spec) {
  std::vector<std::string> out;
  for (const FieldSpec* f : spec.csv_columns()) out.emplace_back(f->csv.header);
  return out;
}

TEST(LogFields, TablesGiveTheReportColumns) {
  using V = std::vector<std::string>;
  EXPECT_EQ(csv_headers(stat_line_spec()),
            (V{"reps", "dropped", "mean_ms", "stddev_ms", "min_ms", "p50_ms", "p90_ms", "p99_ms", "max_ms",
                "tokens_per_s", "flops", "flops_from", "gflops", "of_peak", "cpu_share", "wait_share", "cpu_pressure",
                "steal_share", "joules_per_rep", "joules_per_1000_seq", "watts", "energy_window_s", "profile_ms",
                "real_tokens", "padded_tokens", "padding", "padded_tokens_per_s", "work_explained"}));
  EXPECT_EQ(keys(stat_line_spec().summary_columns()),
            (V{"tokens_per_s", "p50_ms", "p90_ms", "p99_ms", "stddev_ms", "reps", "dropped", "gflops", "of_peak",
               "joules_per_1000_seq", "padding"}))
      << "tokens/s first, beside RES's throughput; the work last";
  EXPECT_EQ(stat_line_spec().find("of_peak")->summary.header, "of_peak_%");
  EXPECT_EQ(stat_line_spec().find("padding")->summary.header, "padding_%");
  EXPECT_EQ(csv_headers(note_line_spec()), (V{"verdict", "cov", "p90_p50", "drift", "spread_of", "verdict_reason"}));
  EXPECT_EQ(keys(note_line_spec().summary_columns()), (V{"cov", "verdict"}));
  EXPECT_EQ(note_line_spec().summary_columns()[0]->summary.header, "cov_%");
  EXPECT_EQ(csv_headers(mem_line_spec()),
            (V{"allocated_peak_bytes", "reserved_peak_bytes", "weights_bytes", "activation_peak_bytes",
               "host_rss_peak_bytes", "host_rss_peak_of"}));
  ASSERT_EQ(mem_line_spec().summary_columns().size(), 3u);
  EXPECT_EQ(mem_line_spec().summary_columns()[0]->summary.header, "peak_MiB");
  EXPECT_EQ(mem_line_spec().summary_columns()[1]->summary.header, "activation_MiB");
  EXPECT_EQ(mem_line_spec().summary_columns()[2]->summary.header, "rss_MiB");
  EXPECT_EQ(csv_headers(fail_line_spec()), (V{"error"}));
  EXPECT_EQ(keys(check_line_spec().csv_columns()), (V{"result", "max_abs", "max_rel", "cosine"}));
  EXPECT_EQ(csv_headers(check_line_spec()), (V{"check", "check_max_abs", "check_max_rel", "check_cosine"}));
  // META's fields have no CSV or summary column (the report shows META as it is); none is required.
  EXPECT_TRUE(meta_line_spec().csv_columns().empty());
  EXPECT_TRUE(meta_line_spec().summary_columns().empty());
  for (const FieldSpec& f : meta_line_spec().fields) EXPECT_EQ(f.need, FieldNeed::optional) << f.key;
  EXPECT_EQ(meta_line_spec().fields.size(), 27u);
  EXPECT_EQ(meta_line_spec().fields[21].key, meta_key::warmup);
  EXPECT_EQ(meta_line_spec().fields[22].key, "batching");
  EXPECT_EQ(meta_line_spec().fields[23].key, "lengths");
  EXPECT_EQ(meta_line_spec().fields[24].key, "attention");
  EXPECT_EQ(meta_line_spec().fields[25].key, "gelu_epilogue");
  EXPECT_EQ(meta_line_spec().fields.back().key, "runtime");
}

TEST(LogFields, ComparedKeysAreTheMarkedRowsInRankOrder) {
  // process --compare's columns, --baseline's and the report's, in this order: golden output depends on it.
  const std::vector<std::string_view> expected = {"dtype",         "threads", "runtime",  "platform", "attention",
                                                  "gelu_epilogue", "model",   "batching", "lengths"};
  EXPECT_EQ(compared_keys(), expected);
  // Each is a META row but model, which RES states (FMWORK_COMPARED_KEYS).
  for (const std::string_view key : compared_keys()) {
    const FieldSpec* row = meta_line_spec().find(key);
    EXPECT_EQ(row == nullptr, key == compared_key::model) << key;
    if (row) EXPECT_GE(row->compared, 0) << key;
  }
  size_t marked = 0;
  for (const FieldSpec& f : meta_line_spec().fields) marked += f.compared >= 0 ? 1 : 0;
  EXPECT_EQ(marked, compared_keys().size() - 1);
}

TEST(LogFields, FindTakesListedKeysThenTheSuffixRule) {
  ASSERT_NE(stat_line_spec().find("reps"), nullptr);
  EXPECT_EQ(stat_line_spec().find("reps")->kind, FieldKind::integer);
  ASSERT_NE(stat_line_spec().find("p95_ms"), nullptr);
  EXPECT_EQ(stat_line_spec().find("p95_ms")->kind, FieldKind::number);
  EXPECT_EQ(stat_line_spec().find("note"), nullptr);
  EXPECT_EQ(mem_line_spec().find("host_bytes")->min, 0);
  EXPECT_EQ(fail_line_spec().find("error")->to_end, true);
  EXPECT_EQ(check_line_spec().find("result")->need, FieldNeed::required);
  EXPECT_EQ(stat_line_spec().find("input")->need, FieldNeed::key);
}

}  // namespace
}  // namespace fmwork
