// The SERVE and CAPACITY lines of `driver serve` (their fields: log/log_fields.hpp) from a level's summary
// and a capacity search's result: the one place their numbers are turned into fields.
#pragma once

#include <optional>
#include <string>

#include "fmwork/log/log_format.hpp"
#include "fmwork/workload/capacity_search.hpp"
#include "fmwork/workload/serve_loop.hpp"

namespace fmwork {

// What a SERVE line says besides the summary: the level's number, its phase ("levels" for --rates / --users,
// "search" for a capacity search's), the queries' lengths and the batching mode as log tokens.
struct ServeLabels {
  int64_t level = 1;
  std::string phase = "levels";
  std::string lengths = "fixed:128";
  std::string batching = "padded";
};

ServeLine make_serve_line(const ServeLabels& labels, const ServePlan& plan, const LevelSummary& summary,
                          const std::optional<LatencyBound>& bound);

// What the level run at the capacity measured besides its verdict: the rate it achieved, and its energy per
// 1000 queries where the device has an energy counter.
struct AtCapacity {
  std::optional<double> achieved_qps;
  std::optional<double> joules_per_1000_q;
  // Whether the levels' CPU was measured (the CPU platform): then a line of at least one level says timing=
  // (contended when the capacity's level or the lowest failed one was) and contended_levels=.
  bool cpu_measured = false;
};

// The search's answer; with `price_per_hour`, usd_per_million at the capacity. `reason` says it in words.
CapacityLine make_capacity_line(const LatencyBound& bound, const CapacityResult& result, const AtCapacity& at,
                                std::optional<double> price_per_hour);

// The line's text for people: "capacity at p99 <= 50 ms: 61.30 queries/s after 8 levels, $0.0136 per million
// queries at $3/h", "no rate holds p99 <= 50 ms: the lowest tried, 100 queries/s, failed (<its reason>), and <why
// the search stopped there: a proof that no lower rate helps, or its floor>", or for a search stopped early
// "partial: the search stopped after 5 levels (<why>); p99 <= 50 ms held at 12 queries/s, failed at 24: the
// capacity lies between them". Contended levels add what they were and that the figure is the busy machine's.
std::string capacity_reason(const LatencyBound& bound, const CapacityResult& result,
                            std::optional<double> price_per_hour);

}  // namespace fmwork
