// process --compare as JSON and CSV (see compare_output.hpp).
#include "fmwork/report/compare_output.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "fmwork/report/formats.hpp"

namespace fmwork {

namespace {

using J = nlohmann::ordered_json;

J number(double x) { return std::isfinite(x) ? J(x) : J(nullptr); }
J number(const std::optional<double>& x) { return x ? number(*x) : J(nullptr); }

J side_json(const CompareSide& s) {
  J out = J::object();
  out["latency_ms"] = number(s.latency_ms);
  out["throughput"] = number(s.throughput);
  out["tokens_per_s"] = number(s.tokens_per_s);
  out["stddev_ms"] = number(s.stddev_ms);
  out["cov"] = number(s.cov);
  out["verdict"] = s.verdict.empty() ? J(nullptr) : J(s.verdict);
  out["repeats"] = s.repeats;
  return out;
}

J key_json(const CompareKey& key) { return J{{"run", key.run}, {"input", key.input}, {"batch", key.batch}}; }

bool is_slower(const std::vector<const ComparedPair*>& slower, const ComparedPair& p) {
  return std::find(slower.begin(), slower.end(), &p) != slower.end();
}

// Shortest text that reads back to the same double: the CSV keeps what the ratios were computed from.
std::string exact(double x) { return fmt::format("{}", x); }
std::string exact(const std::optional<double>& x) { return x ? exact(*x) : std::string(); }

}  // namespace

J compare_json(const Comparison& comparison, const std::string& a, const std::string& b,
               std::optional<double> fail_percent) {
  const std::vector<const ComparedPair*> slower =
      fail_percent ? slower_pairs(comparison, *fail_percent) : std::vector<const ComparedPair*>{};
  J out = J::object();
  out["a"] = a;
  out["b"] = b;
  out["statistic"] = statistic_spec(comparison.statistic).name;
  out["measure"] = measure_name(comparison.measure);
  J pairs = J::array();
  for (const ComparedPair& p : comparison.pairs) {
    J pair = key_json(p.key);
    pair["a"] = side_json(p.a);
    pair["b"] = side_json(p.b);
    pair["latency_ratio"] = number(p.latency_ratio());
    pair["throughput_ratio"] = number(p.throughput_ratio());
    pair["time_ratio"] = number(p.time_ratio());
    const std::optional<bool> noise = p.noise();
    pair["noise"] = noise ? J(*noise) : J(nullptr);
    pair["slower"] = is_slower(slower, p);
    pairs.push_back(std::move(pair));
  }
  out["pairs"] = std::move(pairs);
  for (const auto& [name, keys] : {std::make_pair("only_a", &comparison.only_a), std::make_pair("only_b", &comparison.only_b)}) {
    J list = J::array();
    for (const CompareKey& key : *keys) list.push_back(key_json(key));
    out[name] = std::move(list);
  }
  J slower_list = J::array();
  for (const ComparedPair* p : slower) slower_list.push_back(key_json(p->key));
  out["slower"] = std::move(slower_list);
  return out;
}

std::string compare_csv(const Comparison& comparison, std::optional<double> fail_percent) {
  const std::vector<const ComparedPair*> slower =
      fail_percent ? slower_pairs(comparison, *fail_percent) : std::vector<const ComparedPair*>{};
  const std::string latency = statistic_spec(comparison.statistic).heading;  // latency_ms, or min_ms ...
  std::string out = csv_record({"run", "input", "batch", "a_" + latency, "b_" + latency, "a_throughput", "b_throughput",
                                "a_tokens_per_s", "b_tokens_per_s", "latency_ratio", "throughput_ratio", "a_cov",
                                "b_cov", "a_verdict", "b_verdict", "noise", "slower", "measure", "time_ratio"});
  for (const ComparedPair& p : comparison.pairs)
    out += csv_record({p.key.run, std::to_string(p.key.input), std::to_string(p.key.batch), exact(p.a.latency_ms),
                       exact(p.b.latency_ms), exact(p.a.throughput), exact(p.b.throughput), exact(p.a.tokens_per_s),
                       exact(p.b.tokens_per_s), exact(p.latency_ratio()), exact(p.throughput_ratio()), exact(p.a.cov),
                       exact(p.b.cov), p.a.verdict, p.b.verdict, spread_word(p),
                       !fail_percent ? "" : is_slower(slower, p) ? "yes" : "no", measure_name(comparison.measure),
                       exact(p.time_ratio())});
  return out;
}

}  // namespace fmwork
