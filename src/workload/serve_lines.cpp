// SERVE and CAPACITY lines (serve_lines.hpp).
#include "fmwork/workload/serve_lines.hpp"

#include <fmt/format.h>

namespace fmwork {

ServeLine make_serve_line(const ServeLabels& labels, const ServePlan& plan, const LevelSummary& s,
                          const std::optional<LatencyBound>& bound) {
  using V = std::optional<FieldValue>;
  const bool open = plan.mode == ArrivalMode::open;
  const std::string hist = histogram_text(s.batch_histogram);
  // A figure that was not measured is left out (process shows it as not measured, null in JSON), never 0.
  const auto if_ = [](bool measured, double x) { return measured ? V(x) : V(); };
  const bool answered = s.latency.measured(), window = s.window_s > 0, batches = s.batches > 0;
  return ServeLine{make_some_fields(
      serve_line_spec(),
      {V(labels.level), V(std::string_view(labels.phase)), V(std::string_view(open ? "poisson" : "closed")),
       open ? V(plan.rate_per_s) : V(), open ? V() : V(plan.users), V(std::string_view(labels.lengths)),
       V(std::string_view(labels.batching)), V(plan.limits.max_batch),
       V(static_cast<double>(plan.limits.max_wait) / 1e6), V(plan.limits.max_tokens), V(s.queries),
       V(s.warmup_queries), V(s.unanswered), V(s.window_s), V(s.offered_qps), if_(window, s.achieved_qps),
       if_(window, s.tokens_per_s), if_(answered, s.latency.p50_ms), if_(answered, s.latency.p90_ms),
       if_(answered, s.latency.p99_ms), if_(answered, s.latency.p999_ms), if_(answered, s.latency.max_ms),
       if_(answered, s.latency.mean_ms), if_(answered, s.queue_p50_ms), if_(batches, s.service_p50_ms), V(s.batches),
       if_(batches, s.mean_batch), V(std::string_view(hist)), if_(window, s.busy),
       bound ? V(std::string_view(bound->text)) : V(), s.bound_value_ms ? V(*s.bound_value_ms) : V(),
       V(std::string_view(s.valid ? "VALID" : "INVALID")), V(std::string_view(s.reason))})};
}

std::string capacity_reason(const LatencyBound& bound, const CapacityResult& result,
                            std::optional<double> price_per_hour) {
  const std::string held = fmt::format("p{:g} <= {:g} ms", bound.percentile, bound.ms);
  if (!result.capacity) {
    if (result.tried.empty()) return fmt::format("no rate holds {}: none was tried", held);
    const SearchStep& lowest = result.tried.back();
    // Why the lowest level failed (its own reason: the bound, or falling behind its rate), and why the search
    // stopped there: a proof that no lower rate helps, or the search's floor, below which it did not look.
    const std::string why = lowest.reason.empty()
                                ? (lowest.value_ms ? fmt::format("p{:g} {:.3f} ms", bound.percentile, *lowest.value_ms)
                                                   : std::string("no measured query (no latency)"))
                                : lowest.reason;
    const std::string stop =
        lowest.lower_cannot_help
            ? "and no lower rate can help: the model alone takes longer than the bound"
            : std::string("and the search goes no lower than its floor (--search_start / 64): a lower "
                          "--search_start searches lower");
    return fmt::format("no rate holds {}: the lowest tried, {:g} queries/s, failed ({}), {}", held, lowest.rate, why,
                       stop);
  }
  std::string text = fmt::format("capacity at {}: {:.2f} queries/s after {} levels", held, *result.capacity,
                                 result.tried.size());
  if (price_per_hour)
    text += fmt::format(", ${:.4f} per million queries at ${:g}/h", cost_per_million(*price_per_hour, *result.capacity),
                        *price_per_hour);
  return text;
}

CapacityLine make_capacity_line(const LatencyBound& bound, const CapacityResult& result,
                                std::optional<double> capacity_achieved_qps, std::optional<double> price_per_hour) {
  using V = std::optional<FieldValue>;
  std::optional<double> value_ms;
  for (const SearchStep& s : result.tried)
    if (result.capacity && s.rate == *result.capacity && s.value_ms) value_ms = s.value_ms;
  const std::string tried = tried_text(result.tried);
  const std::string reason = capacity_reason(bound, result, price_per_hour);
  return CapacityLine{make_some_fields(
      capacity_line_spec(),
      {V(std::string_view(bound.text)), V(std::string_view(result.capacity ? "found" : "none")),
       result.capacity ? V(*result.capacity) : V(), value_ms ? V(*value_ms) : V(),
       capacity_achieved_qps ? V(*capacity_achieved_qps) : V(),
       result.lowest_failed ? V(*result.lowest_failed) : V(), V(static_cast<int64_t>(result.tried.size())),
       V(std::string_view(tried)), price_per_hour ? V(*price_per_hour) : V(),
       price_per_hour && result.capacity ? V(cost_per_million(*price_per_hour, *result.capacity)) : V(),
       V(std::string_view(reason))})};
}

}  // namespace fmwork
