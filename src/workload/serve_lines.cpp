// SERVE and CAPACITY lines (serve_lines.hpp).
#include "fmwork/workload/serve_lines.hpp"

#include <fmt/format.h>

#include "fmwork/log/log_values.hpp"

namespace fmwork {

ServeLine make_serve_line(const ServeLabels& labels, const ServePlan& plan, const LevelSummary& s,
                          const std::optional<LatencyBound>& bound) {
  const bool open = plan.mode == ArrivalMode::open;
  // A figure that was not measured is left out (process shows it as not measured, null in JSON), never 0.
  const auto if_ = [](bool measured, double x) { return measured ? OptNumber(x) : OptNumber(); };
  const bool answered = s.latency.measured(), window = s.window_s > 0, batches = s.batches > 0;
  ServeLineValues v;
  v.level = labels.level, v.phase = labels.phase, v.arrival = open ? "poisson" : "closed";
  if (open) v.rate = plan.rate_per_s; else v.users = plan.users;
  v.lengths = labels.lengths, v.batching = labels.batching;
  v.max_batch = plan.limits.max_batch, v.max_wait_ms = static_cast<double>(plan.limits.max_wait) / 1e6;
  v.max_tokens = plan.limits.max_tokens;
  v.queries = s.queries, v.warmup_queries = s.warmup_queries, v.unanswered = s.unanswered;
  v.window_s = if_(window, s.window_s), v.offered_qps = s.offered_qps;
  v.achieved_qps = if_(window, s.achieved_qps), v.tokens_per_s = if_(window, s.tokens_per_s);
  v.p50_ms = if_(answered, s.latency.p50_ms), v.p90_ms = if_(answered, s.latency.p90_ms);
  v.p99_ms = if_(answered, s.latency.p99_ms), v.p999_ms = if_(answered, s.latency.p999_ms);
  v.max_ms = if_(answered, s.latency.max_ms), v.mean_ms = if_(answered, s.latency.mean_ms);
  v.queue_p50_ms = if_(answered, s.queue_p50_ms), v.service_p50_ms = if_(batches, s.service_p50_ms);
  v.batches = s.batches, v.mean_batch = if_(batches, s.mean_batch), v.batch_hist = histogram_text(s.batch_histogram);
  v.busy = if_(window, s.busy);
  v.joules_per_1000_q = s.joules_per_1000_q, v.watts = s.watts, v.energy_window_s = s.energy_window_s;
  if (s.cpu) {
    v.cpu_share = s.cpu->cpu_share, v.wait_share = s.cpu->wait_share;
    v.cpu_pressure = s.cpu->pressure, v.steal_share = s.cpu->steal_share;
    v.timing = s.contended.empty() ? "ok" : "contended";
  }
  if (bound) v.bound = bound->text;
  v.bound_ms = s.bound_value_ms;
  v.verdict = s.valid ? "VALID" : "INVALID", v.reason = s.reason;
  return ServeLine{to_fields(v)};
}

namespace {

// The steps that decide the answer: the capacity's level and the lowest failed level (the bracket's edges).
std::vector<const SearchStep*> bracket_steps(const CapacityResult& result) {
  std::vector<const SearchStep*> out;
  for (const SearchStep& s : result.tried)
    if ((result.capacity && s.rate == *result.capacity) || (result.lowest_failed && s.rate == *result.lowest_failed))
      out.push_back(&s);
  return out;
}

// "1 level", "3 levels".
std::string levels_text(size_t n) { return fmt::format("{} level{}", n, n == 1 ? "" : "s"); }

// Whether a level deciding the answer ran while other work held the CPU.
bool bracket_contended(const CapacityResult& result) {
  for (const SearchStep* s : bracket_steps(result))
    if (s->contended) return true;
  return false;
}

// What the answer rests on when some levels were contended: "; found on contended levels (2 of 8: 12, 13
// queries/s): other work held the CPU, so the figure is the busy machine's; rerun on a quiet machine".
std::string contention_note(const CapacityResult& result, const char* found) {
  const int64_t contended = result.contended_steps();
  if (contended == 0) return "";
  std::string rates;
  for (const SearchStep& s : result.tried)
    if (s.contended) rates += fmt::format("{}{:g}", rates.empty() ? "" : ", ", s.rate);
  return fmt::format("; {} ({} of {} levels contended, at {} queries/s): other work held the CPU, so the figure is "
                     "the busy machine's; rerun on a quiet machine",
                     bracket_contended(result) ? found : "some levels were contended", contended, result.tried.size(),
                     rates);
}

}  // namespace

std::string capacity_reason(const LatencyBound& bound, const CapacityResult& result,
                            std::optional<double> price_per_hour) {
  const std::string held = fmt::format("p{:g} <= {:g} ms", bound.percentile, bound.ms);
  const auto price = [&](double qps) {
    return price_per_hour ? fmt::format(", ${:.4f} per million queries at ${:g}/h", cost_per_million(*price_per_hour, qps),
                                        *price_per_hour)
                          : std::string();
  };
  if (result.partial()) {
    // The bracket so far: the highest rate that held, the lowest that did not, each where one was run.
    const std::string so_far =
        result.capacity && result.lowest_failed
            ? fmt::format("{} held at {:g} queries/s, failed at {:g}: the capacity lies between them", held,
                          *result.capacity, *result.lowest_failed)
        : result.capacity ? fmt::format("{} held at {:g} queries/s, no higher rate tried: the capacity is at least that",
                                        held, *result.capacity)
        : result.lowest_failed
            ? fmt::format("{} failed at {:g} queries/s, no lower rate tried: the capacity is below it", held,
                          *result.lowest_failed)
            : fmt::format("no level finished: nothing is known of {} yet", held);
    return fmt::format("partial: the search stopped after {} ({}); {}{}{}", levels_text(result.tried.size()), result.stopped,
                       so_far, result.capacity ? price(*result.capacity) : std::string(),
                       contention_note(result, "decided on contended levels"));
  }
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
    return fmt::format("no rate holds {}: the lowest tried, {:g} queries/s, failed ({}), {}{}", held, lowest.rate, why,
                       stop, contention_note(result, "failed on contended levels"));
  }
  return fmt::format("capacity at {}: {:.2f} queries/s after {}{}{}", held, *result.capacity,
                     levels_text(result.tried.size()), price(*result.capacity), contention_note(result, "found on contended levels"));
}

CapacityLine make_capacity_line(const LatencyBound& bound, const CapacityResult& result, const AtCapacity& at,
                                std::optional<double> price_per_hour) {
  CapacityLineValues v;
  v.bound = bound.text, v.capacity_qps = result.capacity;
  v.result = result.partial() ? "partial" : result.capacity ? "found" : "none";
  for (const SearchStep& s : result.tried)
    if (result.capacity && s.rate == *result.capacity && s.value_ms) v.bound_ms = s.value_ms;
  v.achieved_qps = at.achieved_qps, v.lowest_failed_qps = result.lowest_failed;
  v.steps = static_cast<int64_t>(result.tried.size()), v.tried = tried_text(result.tried);
  v.price_per_hour = price_per_hour;
  if (price_per_hour && result.capacity) v.usd_per_million = cost_per_million(*price_per_hour, *result.capacity);
  if (result.capacity) v.joules_per_1000_q = at.joules_per_1000_q;
  if (at.cpu_measured && !result.tried.empty()) {
    v.timing = bracket_contended(result) ? "contended" : "ok";
    v.contended_levels = result.contended_steps();
  }
  v.reason = capacity_reason(bound, result, price_per_hour);
  return CapacityLine{to_fields(v)};
}

}  // namespace fmwork
