// process --compare: records matched by key, ratios, and the noise flag from the STAT spread.
#include "fmwork/report/compare.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "fmwork/base/text_format.hpp"
#include "fmwork/log/stats.hpp"

namespace fmwork {

namespace {

struct Entry {
  CompareKey key;
  std::vector<CompareSide> repeats;  // the records of a campaign's repeats; one record otherwise
};

// Several repeats as one side: medians, and the sample stddev of their latencies as the spread.
CompareSide gathered(const std::vector<CompareSide>& repeats) {
  if (repeats.size() == 1) return repeats[0];
  std::vector<double> latency, throughput;
  for (const CompareSide& r : repeats) latency.push_back(r.latency_ms), throughput.push_back(r.throughput);
  double mean = 0, squares = 0;
  for (double l : latency) mean += l / static_cast<double>(latency.size());
  for (double l : latency) squares += (l - mean) * (l - mean);
  return CompareSide{median(latency), median(throughput), std::sqrt(squares / static_cast<double>(latency.size() - 1)),
                     repeats.size()};
}

// Key text -> results.
std::map<std::string, Entry> by_key(const std::vector<ParsedLog>& logs) {
  std::map<std::string, Entry> out;
  for (const ParsedLog& log : logs) {
    const std::string run_id = repeated_run(log);
    const bool repeat = !label_of(log, "repeat").empty();
    for (const CombinationRecord& r : log.results) {
      const std::string what =
          !run_id.empty() ? run_id : r.res.model_name + " " + r.res.model_class + " " + r.precision.value_or("-");
      // get_double, not stod: a hostile 1e999 reads as inf (as Python's float), it does not throw.
      const CompareSide side{r.res.latency_ms, r.res.throughput,
                             r.stat ? r.stat->fields.get_double("stddev_ms") : std::nullopt};
      CompareKey key{what, r.res.input, r.res.batch, fmt::format("{} {:>6} {:>6}", what, r.res.input, r.res.batch)};
      Entry& entry = out[key.text];
      if (!repeat) entry.repeats.clear();
      entry.key = std::move(key);
      entry.repeats.push_back(side);
    }
  }
  return out;
}

size_t most_repeats(const Comparison& c, bool b_side) {
  size_t n = 1;
  for (const ComparedPair& p : c.pairs) n = std::max(n, b_side ? p.b.repeats : p.a.repeats);
  return n;
}

}  // namespace

std::string repeated_run(const ParsedLog& log) {
  std::string run_id = label_of(log, "run_id");
  const std::string suffix = ".r" + label_of(log, "repeat");
  if (suffix.size() > 2 && run_id.size() > suffix.size() &&
      run_id.compare(run_id.size() - suffix.size(), suffix.size(), suffix) == 0)
    run_id.resize(run_id.size() - suffix.size());
  return run_id;
}

double ComparedPair::latency_ratio() const { return b.latency_ms / a.latency_ms; }

double ComparedPair::throughput_ratio() const { return b.throughput / a.throughput; }

std::optional<bool> ComparedPair::noise() const {
  if (!a.stddev_ms || !b.stddev_ms) return std::nullopt;
  const double spread = std::sqrt(*a.stddev_ms * *a.stddev_ms + *b.stddev_ms * *b.stddev_ms);
  return std::fabs(b.latency_ms - a.latency_ms) <= spread;
}

Comparison compare_logs(const std::vector<ParsedLog>& a, const std::vector<ParsedLog>& b) {
  const auto left = by_key(a), right = by_key(b);
  Comparison out;
  for (const auto& entry : left) {
    auto it = right.find(entry.first);
    if (it == right.end()) out.only_a.push_back(entry.second.key);
    else out.pairs.push_back(ComparedPair{entry.second.key, gathered(entry.second.repeats), gathered(it->second.repeats)});
  }
  for (const auto& entry : right)
    if (!left.count(entry.first)) out.only_b.push_back(entry.second.key);
  return out;
}

std::string compare_report(const std::vector<ParsedLog>& a, const std::vector<ParsedLog>& b) {
  const Comparison comparison = compare_logs(a, b);
  std::vector<std::vector<std::string>> rows{
      {"run  input  batch", "A latency_ms", "B latency_ms", "B/A lat", "B/A thp", "spread"}};
  for (const ComparedPair& p : comparison.pairs) {
    const std::optional<bool> noise = p.noise();
    rows.push_back({p.key.text, fmt::format("{:.4f}", p.a.latency_ms), fmt::format("{:.4f}", p.b.latency_ms),
                    fmt::format("{:.3f}x", p.latency_ratio()), fmt::format("{:.3f}x", p.throughput_ratio()),
                    !noise ? "?" : *noise ? "noise" : ""});
  }
  // The header's first cell spans the key's three parts: it is not measured (a short key column lets it
  // run over); the numbers' columns are as wide as their headings at least; no line is trimmed.
  TableLayout layout;
  layout.right = {false, true, true, true, true, false};
  layout.min_width = {3, 12, 12, 9, 9};
  layout.first_row_sets_width = false;
  layout.trim = false;
  std::string out = aligned_table(rows, layout);
  out += fmt::format("{} combinations in A only, {} in B only\n", comparison.only_a.size(), comparison.only_b.size());
  const size_t ra = most_repeats(comparison, false), rb = most_repeats(comparison, true);
  if (ra > 1 || rb > 1)
    out += fmt::format("repeats: up to {} in A, {} in B; latency is their median, the spread their stddev\n", ra, rb);
  return out;
}

}  // namespace fmwork
