// process --baseline: the logs split by the key's value, the pairing keys chosen, compare_logs per value.
#include "fmwork/report/baseline.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <iterator>
#include <map>
#include <set>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "fmwork/base/error.hpp"
#include "fmwork/base/text_format.hpp"
#include "fmwork/log/stats.hpp"
#include "fmwork/report/compare_output.hpp"
#include "fmwork/report/formats.hpp"

namespace fmwork {

namespace {
// Named apart: a unity batch shares anonymous namespaces with compare.cpp and its neighbours.
namespace baseline_detail {

// The keys a pair may be told apart by, in the order their names are written: run, --compare's, labels.
std::vector<std::string> candidate_keys(const std::vector<ParsedLog>& logs) {
  std::vector<std::string> keys = {"run"};
  for (const std::string& k : significant_meta_keys()) keys.push_back(k);
  for (const ParsedLog& log : logs)
    for (const auto& label : log.labels)
      if (label.first != "run_id" && label.first != "repeat" && std::find(keys.begin(), keys.end(), label.first) == keys.end())
        keys.push_back(label.first);
  return keys;
}

// Every key a log states, for the message about one that none states.
std::vector<std::string> stated_keys(const std::vector<ParsedLog>& logs) {
  std::set<std::string> keys = {"model"};
  for (const ParsedLog& log : logs) {
    for (const MetaLine& m : log.meta)
      for (const auto& kv : m.fields.items) keys.insert(kv.first);
    for (const auto& label : log.labels) keys.insert(label.first);
  }
  return {keys.begin(), keys.end()};
}

// Per result of every log: the value of each key ("-" where unstated).
using Column = std::vector<std::string>;

Column column(const std::vector<ParsedLog>& logs, const std::string& key) {
  Column out;
  for (const ParsedLog& log : logs)
    for (const CombinationRecord& r : log.results) out.push_back(meta_value(log, r, key).value_or("-"));
  return out;
}

bool constant(const Column& c) { return std::adjacent_find(c.begin(), c.end(), std::not_equal_to<>()) == c.end(); }

// The key's value of a log (its first result's), nullopt when it states none or has no result.
std::optional<std::string> value_of(const ParsedLog& log, const std::string& key) {
  return log.results.empty() ? std::nullopt : log_value(log, key);
}

void refuse_unknown(const std::vector<ParsedLog>& logs, const BaselineSpec& spec) {
  for (const ParsedLog& log : logs)
    if (value_of(log, spec.key)) return;
  const std::vector<std::string> keys = stated_keys(logs);
  const std::optional<std::string> close = closest_option(spec.key, keys);
  std::string known;
  for (const std::string& k : keys) known += (known.empty() ? "" : ", ") + k;
  throw usage_error("--baseline " + spec.key + "=" + spec.value + ": no log states " + spec.key +
                    (close ? "; did you mean " + *close + "?" : " (keys: " + known + ")"));
}

std::string fx(double ratio) { return std::isfinite(ratio) ? fmt::format("{:.3f}x", ratio) : "n/a"; }

}  // namespace baseline_detail
}  // namespace

BaselineSpec parse_baseline(const std::string& text) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw usage_error("--baseline takes KEY=VALUE, such as dtype=float32; got '" + excerpt(text) + "'");
  return {text.substr(0, eq), text.substr(eq + 1)};
}

double speedup(const ComparedPair& pair) { return 1.0 / pair.latency_ratio(); }

BaselineTable baseline_table(const std::vector<ParsedLog>& logs, const BaselineSpec& spec, Statistic statistic) {
  using namespace baseline_detail;  // here, not at namespace scope: a unity batch would see it
  refuse_unknown(logs, spec);
  BaselineTable table{spec, {}, {spec.key}, {}, 0};
  std::vector<ParsedLog> base;
  std::vector<std::pair<std::string, std::vector<ParsedLog>>> others;
  for (const ParsedLog& log : logs) {
    const std::optional<std::string> v = value_of(log, spec.key);
    if (!v) {
      table.unstated += log.results.empty() ? 0 : 1;
      continue;
    }
    if (*v == spec.value) {
      base.push_back(log);
      continue;
    }
    auto it = std::find_if(others.begin(), others.end(), [&](const auto& o) { return o.first == *v; });
    if (it == others.end()) others.emplace_back(*v, std::vector<ParsedLog>{}), it = std::prev(others.end());
    it->second.push_back(log);
  }
  std::vector<std::string> values;
  for (const auto& o : others) values.push_back(o.first);
  if (base.empty()) {
    std::sort(values.begin(), values.end());
    throw usage_error(fmt::format("--baseline {}={}: no run has {} {} (values: {})", spec.key, spec.value, spec.key,
                                  spec.value, fmt::join(values, ", ")));
  }
  if (others.empty())
    throw usage_error(fmt::format("--baseline {}={}: every run has {} {}; nothing to compare with it", spec.key,
                                  spec.value, spec.key, spec.value));
  // Which keys pair: decided over every result that states the key, baseline and others together.
  std::vector<ParsedLog> stating = base;
  for (const auto& o : others) stating.insert(stating.end(), o.second.begin(), o.second.end());
  const Column key_column = column(stating, spec.key);
  std::vector<Column> kept;
  for (const std::string& k : candidate_keys(stating)) {
    if (k == spec.key) continue;
    const Column c = column(stating, k);
    if (one_to_one(c, key_column)) table.differ.push_back(k);
    else if (!constant(c) && std::none_of(kept.begin(), kept.end(), [&](const Column& x) { return one_to_one(x, c); }))
      table.paired_on.push_back(k), kept.push_back(c);
  }
  CompareOptions options;
  options.match = table.paired_on;
  options.ignore_meta = table.differ;
  options.statistic = table.statistic = statistic;
  for (const auto& o : others) table.groups.push_back({o.first, compare_logs(base, o.second, options)});
  return table;
}

std::string baseline_text(const BaselineTable& table) {
  using namespace baseline_detail;  // here, not at namespace scope: a unity batch would see it
  const BaselineSpec& s = table.spec;
  std::string out = fmt::format(
      "speedup over {}={}: its latency / the other's (> 1: faster than the baseline), per combination\n"
      "pairs agree on: {}; differ in: {}\n",
      s.key, s.value, table.paired_on.empty() ? "input and batch only" : fmt::format("{}", fmt::join(table.paired_on, ", ")),
      fmt::join(table.differ, ", "));
  const StatisticSpec& statistic = statistic_spec(table.statistic);
  const bool median_latency = table.statistic == Statistic::median;
  if (!median_latency)
    out += fmt::format("latency: {}, {} (--statistic {}; repeats: the median of theirs)\n", statistic.heading,
                       statistic.help, statistic.name);
  std::vector<std::vector<std::string>> rows{
      {s.key, "pair", "input", "batch", median_latency ? "baseline_ms" : std::string("baseline_") + statistic.heading,
       statistic.heading, "speedup", "spread", "verdicts"}};
  for (const BaselineGroup& g : table.groups)
    for (const ComparedPair& p : g.comparison.pairs) {
      const std::optional<bool> noise = p.noise();
      const std::string mark = verdict_mark(p, "baseline", "this");  // A is the baseline here
      rows.push_back({g.value, p.key.run, std::to_string(p.key.input), std::to_string(p.key.batch),
                      fmt::format("{:.4f}", p.a.latency_ms), fmt::format("{:.4f}", p.b.latency_ms), fx(speedup(p)),
                      !noise ? "?" : *noise ? "noise" : "", mark});
    }
  TableLayout layout;
  layout.right = {false, false, true, true, true, true, true, false, false};
  out += aligned_table(rows, layout);
  size_t repeats = 1;
  for (const BaselineGroup& g : table.groups) {
    std::vector<double> ratios;
    size_t marked = 0;
    for (const ComparedPair& p : g.comparison.pairs) {
      ratios.push_back(speedup(p)), repeats = std::max({repeats, p.a.repeats, p.b.repeats});
      marked += verdict_mark(p).empty() ? 0 : 1;
    }
    std::sort(ratios.begin(), ratios.end());
    if (!ratios.empty())
      out += fmt::format("{}={}: median speedup {} over {} combinations ({} to {}){}\n", s.key, g.value,
                         fx(median(ratios)), ratios.size(), fx(ratios.front()), fx(ratios.back()),
                         marked == 0 ? std::string()
                                     : fmt::format("; {} of them on runs whose verdict is not ok: not a speedup to quote",
                                                   marked));
    if (!g.comparison.only_a.empty() || !g.comparison.only_b.empty())
      out += fmt::format("{}={}: {} combinations without a baseline to pair with, {} of the baseline without a partner\n",
                         s.key, g.value, g.comparison.only_b.size(), g.comparison.only_a.size());
  }
  if (repeats > 1) out += fmt::format("repeats: up to {}; latency is their median, the spread their stddev\n", repeats);
  if (table.unstated > 0)
    out += fmt::format("{} logs do not state {}: left out\n", table.unstated, s.key);
  return out;
}

std::string baseline_csv(const BaselineTable& table) {
  const std::string latency = statistic_spec(table.statistic).heading;  // latency_ms, or min_ms ...
  std::string out = csv_record({"key", "value", "pair", "input", "batch", "baseline_" + latency, latency, "speedup",
                                "latency_ratio", "baseline_repeats", "repeats", "baseline_cov", "cov", "noise",
                                "baseline_verdict", "verdict"});
  const auto exact = [](const std::optional<double>& x) { return x ? fmt::format("{}", *x) : std::string(); };
  for (const BaselineGroup& g : table.groups)
    for (const ComparedPair& p : g.comparison.pairs) {
      const std::optional<bool> noise = p.noise();
      out += csv_record({table.spec.key, g.value, p.key.run, std::to_string(p.key.input), std::to_string(p.key.batch),
                         exact(p.a.latency_ms), exact(p.b.latency_ms), exact(speedup(p)), exact(p.latency_ratio()),
                         std::to_string(p.a.repeats), std::to_string(p.b.repeats), exact(p.a.cov), exact(p.b.cov),
                         !noise ? "?" : *noise ? "noise" : "beyond", p.a.verdict, p.b.verdict});
    }
  return out;
}

nlohmann::ordered_json baseline_json(const BaselineTable& table) {
  using Json = nlohmann::ordered_json;
  Json out = Json::object();
  out["baseline"] = Json{{"key", table.spec.key}, {"value", table.spec.value}};
  out["statistic"] = statistic_spec(table.statistic).name;
  out["paired_on"] = table.paired_on;
  out["differ"] = table.differ;
  out["unstated_logs"] = table.unstated;
  Json groups = Json::array();
  const std::string base = table.spec.key + "=" + table.spec.value;
  for (const BaselineGroup& g : table.groups) {
    Json comparison = compare_json(g.comparison, base, table.spec.key + "=" + g.value, std::nullopt);
    std::vector<double> ratios;
    for (size_t i = 0; i < g.comparison.pairs.size(); ++i) {
      const double x = speedup(g.comparison.pairs[i]);
      comparison["pairs"][i]["speedup"] = std::isfinite(x) ? Json(x) : Json(nullptr);
      ratios.push_back(x);
    }
    const double mid = ratios.empty() ? NAN : median(ratios);
    groups.push_back(Json{{"value", g.value},
                          {"speedup_median", std::isfinite(mid) ? Json(mid) : Json(nullptr)},
                          {"comparison", std::move(comparison)}});
  }
  out["groups"] = std::move(groups);
  return out;
}

}  // namespace fmwork
