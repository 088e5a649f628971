// The checks of one line's fields against each other (line_checks.hpp).
#include "line_checks.hpp"

#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>
#include <variant>

#include <fmt/format.h>

#include "fmwork/log/log_schema.hpp"

namespace fmwork::line_checks {

namespace {

// The latency fields of STAT and SERVE, lowest first: each present one at most the next present one. One list
// for both lines, which name the percentiles they share alike (a rename in one line's list stops the build here).
static_assert(stat_key::p50_ms == serve_key::p50_ms && stat_key::p90_ms == serve_key::p90_ms &&
              stat_key::p99_ms == serve_key::p99_ms && stat_key::max_ms == serve_key::max_ms);
constexpr std::string_view kLatencyOrder[] = {stat_key::min_ms, stat_key::p50_ms,   stat_key::p90_ms,
                                              stat_key::p99_ms, serve_key::p999_ms, stat_key::max_ms};

std::string latency_order(const Fields& f) {
  std::string_view below;
  double below_value = 0;
  for (const std::string_view key : kLatencyOrder) {
    const std::optional<double> v = f.get_double(key);
    if (!v) continue;
    if (!below.empty() && below_value > *v)
      return fmt::format("{}={} is above {}={}: a latency's percentiles rise with the percent, from min_ms to "
                         "max_ms", below, *f.find(below), key, *f.find(key));
    below = key;
    below_value = *v;
  }
  return "";
}

std::string capacity(const Fields& f) {
  const int64_t contended = f.get_int(capacity_key::contended_levels).value_or(0);
  const std::optional<int64_t> steps = f.get_int(capacity_key::steps);
  const std::string* timing = f.find(capacity_key::timing);
  if (steps && contended > *steps)
    return fmt::format("contended_levels={} is more than the steps={} it ran", contended, *steps);
  if (timing && *timing == "ok" && contended > 0)
    return fmt::format("timing=ok over contended_levels={}: a capacity found on contended levels is timing=contended",
                       contended);
  const std::optional<double> found = f.get_double(capacity_key::capacity_qps),
                              failed = f.get_double(capacity_key::lowest_failed_qps);
  if (found && failed && *found >= *failed)
    return fmt::format("capacity_qps={} is not below lowest_failed_qps={}: the search's capacity is a rate that "
                       "passed below every rate that failed", *f.find(capacity_key::capacity_qps),
                       *f.find(capacity_key::lowest_failed_qps));
  return "";
}

std::string interrupt(const Fields& f) {
  const int64_t complete = f.get_int(interrupt_key::complete).value_or(0),
                all = f.get_int(interrupt_key::combinations).value_or(0);
  if (complete >= all)
    return fmt::format("complete={} is not below combinations={}: a sweep stops at a combination it has not "
                       "finished", complete, all);
  return "";
}

}  // namespace

std::string contradiction(const LogLine& line) {
  return std::visit(
      [](const auto& l) -> std::string {
        using L = std::decay_t<decltype(l)>;
        if constexpr (std::is_same_v<L, StatLine> || std::is_same_v<L, ServeLine>) return latency_order(l.fields);
        else if constexpr (std::is_same_v<L, CapacityLine>) return capacity(l.fields);
        else if constexpr (std::is_same_v<L, InterruptLine>) return interrupt(l.fields);
        else return "";
      },
      line);
}

}  // namespace fmwork::line_checks
