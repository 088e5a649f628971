// `process --compare A B --format json|csv`: a Comparison (compare.hpp) as data for scripts and CI, with the
// same numbers as the text table. No LibTorch here.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "fmwork/report/compare.hpp"

namespace fmwork {

// {"a": A, "b": B, "statistic", "measure" (latency or real_tokens_per_s: Comparison::measure), "pairs": [...],
// "only_a": [...], "only_b": [...], "slower": [...]}. Each pair: run, input,
// batch, "a" and "b" (latency_ms, throughput, tokens_per_s, stddev_ms, cov, verdict, repeats; null where
// unknown), latency_ratio, throughput_ratio, time_ratio (ComparedPair::time_ratio(), on the measure), noise (true, false or null as ComparedPair::noise() says) and
// slower (beyond fail_percent and the noise, slower_pairs(); false without fail_percent). only_a / only_b:
// {run, input, batch}. slower: the keys of the slower pairs (empty without fail_percent). Numbers that are
// not finite (a hostile log) are null.
nlohmann::ordered_json compare_json(const Comparison& comparison, const std::string& a, const std::string& b,
                                    std::optional<double> fail_percent);

// A header, then one row per pair: run,input,batch, A's and B's latency_ms, throughput and tokens_per_s, the
// two ratios, A's and B's cov and verdict, noise (noise, beyond, ?), slower (yes, no; empty without
// fail_percent), measure and time_ratio. Numbers unrounded (%.17g where needed: what the ratios were computed from).
std::string compare_csv(const Comparison& comparison, std::optional<double> fail_percent);

}  // namespace fmwork
