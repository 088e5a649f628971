// process --compare: records matched by key, ratios, and the noise flag from the STAT spread.
#include "fmwork/compare.hpp"

#include <cmath>
#include <map>

#include <fmt/format.h>

namespace fmwork {

namespace {

struct Side {
  double latency_ms = 0, throughput = 0;
  std::optional<double> stddev_ms;
};

std::string label(const ParsedLog& log, const std::string& key) {
  for (const auto& [k, v] : log.labels)
    if (k == key) return v;
  return "";
}

// Key -> result; a later record of the same key replaces an earlier one (a re-run).
std::map<std::string, Side> by_key(const std::vector<ParsedLog>& logs) {
  std::map<std::string, Side> out;
  for (const ParsedLog& log : logs) {
    const std::string run_id = label(log, "run_id");
    for (const RunRecord& r : log.runs) {
      const std::string what =
          !run_id.empty() ? run_id : r.res.model_name + " " + r.res.model_class + " " + r.precision.value_or("-");
      Side side{r.res.latency_ms, r.res.throughput, std::nullopt};
      if (r.stat)
        if (const std::string* sd = r.stat->fields.find("stddev_ms")) side.stddev_ms = std::stod(*sd);
      out[fmt::format("{} {:>6} {:>6}", what, r.res.input, r.res.batch)] = side;
    }
  }
  return out;
}

}  // namespace

std::string compare_report(const std::vector<ParsedLog>& a, const std::vector<ParsedLog>& b) {
  const auto left = by_key(a), right = by_key(b);
  size_t width = 3;
  for (const auto& [key, side] : left)
    if (right.count(key)) width = std::max(width, key.size());
  std::string out = fmt::format("{:<{}}  {:>12}  {:>12}  {:>9}  {:>9}  {}\n", "run  input  batch", width, "A latency_ms",
                                "B latency_ms", "B/A lat", "B/A thp", "spread");
  size_t only_a = 0, only_b = 0;
  for (const auto& [key, x] : left) {
    auto it = right.find(key);
    if (it == right.end()) {
      ++only_a;
      continue;
    }
    const Side& y = it->second;
    std::string flag = "?";
    if (x.stddev_ms && y.stddev_ms) {
      const double spread = std::sqrt(*x.stddev_ms * *x.stddev_ms + *y.stddev_ms * *y.stddev_ms);
      flag = std::fabs(y.latency_ms - x.latency_ms) <= spread ? "noise" : "";
    }
    out += fmt::format("{:<{}}  {:>12.4f}  {:>12.4f}  {:>8.3f}x  {:>8.3f}x  {}\n", key, width, x.latency_ms,
                       y.latency_ms, y.latency_ms / x.latency_ms, y.throughput / x.throughput, flag);
  }
  for (const auto& [key, side] : right)
    if (!left.count(key)) ++only_b;
  out += fmt::format("{} combinations in A only, {} in B only\n", only_a, only_b);
  return out;
}

}  // namespace fmwork
