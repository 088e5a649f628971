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
#include "fmwork/log/log_schema.hpp"
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
  std::set<std::string> keys = {std::string(compared_key::model)};
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

// The logs by their value of the key: the baseline's, the others' by value in the order first seen, and the
// count of logs with results that do not state it. A model is named by its folder's name (model_key), the
// baseline's value too: --baseline model=PATH pairs as the runs do.
struct Split {
  std::vector<ParsedLog> base;
  std::vector<std::pair<std::string, std::vector<ParsedLog>>> others;
  size_t unstated = 0;
};
Split split_by_value(const std::vector<ParsedLog>& logs, const BaselineSpec& spec) {
  const std::string baseline = spec.key == compared_key::model ? model_key(spec.value) : spec.value;
  Split out;
  for (const ParsedLog& log : logs) {
    const std::optional<std::string> v = value_of(log, spec.key);
    if (!v) {
      out.unstated += log.results.empty() ? 0 : 1;
    } else if (*v == baseline) {
      out.base.push_back(log);
    } else {
      auto it = std::find_if(out.others.begin(), out.others.end(), [&](const auto& o) { return o.first == *v; });
      if (it == out.others.end()) out.others.emplace_back(*v, std::vector<ParsedLog>{}), it = std::prev(out.others.end());
      it->second.push_back(log);
    }
  }
  return out;
}

// One measure for the whole table: real tokens per second when any group's pairs are on it (compare_logs).
void one_measure(BaselineTable& table) {
  for (const BaselineGroup& g : table.groups)
    if (g.comparison.measure == Measure::real_tokens) table.measure = Measure::real_tokens;
  for (BaselineGroup& g : table.groups) {
    g.comparison.measure = table.measure;
    for (ComparedPair& p : g.comparison.pairs) p.measure = table.measure;
  }
}

// The lines under the table about its measure and the models paired by their folder's name (measure_lines).
std::string table_notes(const BaselineTable& table) {
  Comparison notes;
  notes.measure = table.measure;
  for (const BaselineGroup& g : table.groups)
    for (const auto& renamed : g.comparison.renamed_models)
      if (std::find(notes.renamed_models.begin(), notes.renamed_models.end(), renamed) == notes.renamed_models.end())
        notes.renamed_models.push_back(renamed);
  return measure_lines(notes);
}

// Whether the run name (`run`, one value per result) is a function of the other candidate keys' values: each
// configuration has one name, so the name tells apart nothing the configuration does not.
bool named_after_configuration(const std::vector<ParsedLog>& logs, const std::vector<std::string>& candidates,
                               const Column& run) {
  std::vector<Column> others;
  for (const std::string& k : candidates)
    if (k != "run") others.push_back(column(logs, k));
  std::map<std::vector<std::string>, std::string> name_of;
  for (size_t i = 0; i < run.size(); ++i) {
    std::vector<std::string> configuration;
    for (const Column& c : others) configuration.push_back(c[i]);
    if (name_of.emplace(configuration, run[i]).first->second != run[i]) return false;
  }
  return true;
}

// The pairing keys' values of one side's logs, "threads=1 run=a", at most three.
std::string configurations(const std::vector<ParsedLog>& logs, const std::vector<std::string>& keys) {
  std::vector<std::string> seen;
  for (const ParsedLog& log : logs)
    for (const CombinationRecord& r : log.results) {
      std::string text;
      for (const std::string& k : keys) text += (text.empty() ? "" : " ") + k + "=" + meta_value(log, r, k).value_or("-");
      if (std::find(seen.begin(), seen.end(), text) == seen.end()) seen.push_back(text);
    }
  std::string out;
  for (size_t i = 0; i < seen.size() && i < 3; ++i) out += (i ? "; " : "") + seen[i];
  return seen.size() > 3 ? out + fmt::format("; and {} more", seen.size() - 3) : out;
}

// A table without a single pair: an Error of one line rather than an empty table with exit 0. The sizes have
// nothing in common (a runtime Error: nothing to compare), or the keys pairs agree on never agree (a usage
// Error naming them and their values, and what to pass).
void refuse_no_pair(const BaselineTable& table, const std::vector<ParsedLog>& base,
                    const std::vector<std::pair<std::string, std::vector<ParsedLog>>>& others) {
  for (const BaselineGroup& g : table.groups)
    if (!g.comparison.pairs.empty()) return;
  const std::string name = table.spec.key + "=" + table.spec.value;
  std::set<std::pair<int64_t, int64_t>> sizes, shared;
  for (const ParsedLog& log : base)
    for (const CombinationRecord& r : log.results) sizes.emplace(r.res.input, r.res.batch);
  for (const auto& o : others)
    for (const ParsedLog& log : o.second)
      for (const CombinationRecord& r : log.results)
        if (sizes.count({r.res.input, r.res.batch})) shared.emplace(r.res.input, r.res.batch);
  if (shared.empty())
    throw runtime_error(fmt::format("--baseline {}: no run has an input and batch in common with the baseline's: nothing "
                                    "to compare; run them on the same --input_sizes and --batch_sizes", name));
  throw usage_error(fmt::format(
      "--baseline {}: no run pairs with a baseline run: pairs agree on {}, and no value of them is on both sides "
      "(baseline: {}; others: {}); compare two of them with --compare A B --match input,batch, or choose a key whose "
      "other values were run beside the baseline's",
      name, fmt::join(table.paired_on, ", "), configurations(base, table.paired_on),
      configurations(others.front().second, table.paired_on)));
}

}  // namespace baseline_detail
}  // namespace

BaselineSpec parse_baseline(const std::string& text) {
  // A key or value past kMaxBaselineBytes (a path's length, far past a META value) is no label, and every message
  // that names the baseline would repeat it whole (hostile round seven: 100 KB twice in one line).
  static constexpr size_t kMaxBaselineBytes = 1024;
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw usage_error("--baseline takes KEY=VALUE, such as dtype=float32; got '" + excerpt(text) + "'");
  if (eq > kMaxBaselineBytes || text.size() - eq - 1 > kMaxBaselineBytes)
    throw usage_error(fmt::format("--baseline takes KEY=VALUE, each at most {} characters (a META key and its value); "
                                  "got '{}'", kMaxBaselineBytes, excerpt(text)));
  return {text.substr(0, eq), text.substr(eq + 1)};
}

double speedup(const ComparedPair& pair) { return 1.0 / pair.time_ratio(); }

BaselineTable baseline_table(const std::vector<ParsedLog>& logs, const BaselineSpec& spec, Statistic statistic) {
  using namespace baseline_detail;  // here, not at namespace scope: a unity batch would see it
  refuse_unknown(logs, spec);
  BaselineTable table{spec, {}, {spec.key}, {}, 0};
  Split split = split_by_value(logs, spec);
  table.unstated = split.unstated;
  const std::vector<ParsedLog>& base = split.base;
  const auto& others = split.others;
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
  const std::vector<std::string> candidates = candidate_keys(stating);
  for (const std::string& k : candidates) {
    if (k == spec.key) continue;
    const Column c = column(stating, k);
    // Runs named after their configuration ("enc-fp32-t1"): the name is a function of the other keys, so it
    // says nothing they do not, and pairing on it would pair no run with another of another dtype.
    if (k == "run" && named_after_configuration(stating, candidates, c)) continue;
    if (one_to_one(c, key_column)) table.differ.push_back(k);
    else if (!constant(c) && std::none_of(kept.begin(), kept.end(), [&](const Column& x) { return one_to_one(x, c); }))
      table.paired_on.push_back(k), kept.push_back(c);
  }
  CompareOptions options;
  options.match = table.paired_on;
  options.ignore_meta = table.differ;
  options.statistic = table.statistic = statistic;
  options.allow_empty = true;  // one value's runs may lack a partner while another's have one; none at all is refused
  for (const auto& o : others) table.groups.push_back({o.first, compare_logs(base, o.second, options)});
  refuse_no_pair(table, base, others);
  one_measure(table);
  return table;
}

std::string baseline_text(const BaselineTable& table) {
  using namespace baseline_detail;  // here, not at namespace scope: a unity batch would see it
  const BaselineSpec& s = table.spec;
  const bool tokens = table.measure == Measure::real_tokens;
  std::string out = fmt::format(
      "speedup over {}={}: {} (> 1: faster than the baseline), per combination\n"
      "pairs agree on: {}; differ in: {}\n",
      s.key, s.value, tokens ? "its real tokens per second / the baseline's" : "its latency / the other's",
      table.paired_on.empty() ? "input and batch only" : fmt::format("{}", fmt::join(table.paired_on, ", ")),
      fmt::join(table.differ, ", "));
  const StatisticSpec& statistic = statistic_spec(table.statistic);
  const bool median_latency = table.statistic == Statistic::median;
  if (!median_latency)
    out += fmt::format("latency: {}, {} (--statistic {}; repeats: the median of theirs)\n", statistic.heading,
                       statistic.help, statistic.name);
  std::vector<std::vector<std::string>> rows{
      {s.key, "pair", "input", "batch",
       tokens ? "baseline_tok/s" : median_latency ? "baseline_ms" : std::string("baseline_") + statistic.heading,
       tokens ? "real_tok/s" : statistic.heading, "speedup", "spread", "verdicts"}};
  for (const BaselineGroup& g : table.groups)
    for (const ComparedPair& p : g.comparison.pairs) {
      const std::string mark = verdict_mark(p, "baseline", "this");  // A is the baseline here
      rows.push_back({g.value, p.key.run, std::to_string(p.key.input), std::to_string(p.key.batch),
                      tokens ? fmt::format("{:.1f}", p.a.tokens_per_s) : fmt::format("{:.4f}", p.a.latency_ms),
                      tokens ? fmt::format("{:.1f}", p.b.tokens_per_s) : fmt::format("{:.4f}", p.b.latency_ms),
                      fx(speedup(p)), spread_word(p), mark});
    }
  TableLayout layout;
  layout.right = {false, false, true, true, true, true, true, false, false};
  out += aligned_table(rows, layout) + table_notes(table);
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
                                "baseline_verdict", "verdict", "measure", "baseline_tokens_per_s", "tokens_per_s"});
  const auto exact = [](const std::optional<double>& x) { return x ? fmt::format("{}", *x) : std::string(); };
  for (const BaselineGroup& g : table.groups)
    for (const ComparedPair& p : g.comparison.pairs)
      out += csv_record({table.spec.key, g.value, p.key.run, std::to_string(p.key.input), std::to_string(p.key.batch),
                         exact(p.a.latency_ms), exact(p.b.latency_ms), exact(speedup(p)), exact(p.latency_ratio()),
                         std::to_string(p.a.repeats), std::to_string(p.b.repeats), exact(p.a.cov), exact(p.b.cov),
                         spread_word(p), p.a.verdict, p.b.verdict, measure_name(table.measure),
                         exact(p.a.tokens_per_s), exact(p.b.tokens_per_s)});
  return out;
}

nlohmann::ordered_json baseline_json(const BaselineTable& table) {
  using Json = nlohmann::ordered_json;
  Json out = Json::object();
  out["baseline"] = Json{{"key", table.spec.key}, {"value", table.spec.value}};
  out["statistic"] = statistic_spec(table.statistic).name;
  out["measure"] = measure_name(table.measure);
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
