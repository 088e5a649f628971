// The capacity search (capacity_search.hpp).
#include "fmwork/workload/capacity_search.hpp"

#include <cmath>

#include <fmt/format.h>

#include "fmwork/base/error.hpp"

namespace fmwork {

CapacityResult search_capacity(const SearchPlan& plan, const std::function<SearchStep(double rate)>& evaluate) {
  if (!(plan.start_rate > 0) || !(plan.floor_rate > 0) || !(plan.ceiling_rate >= plan.start_rate) ||
      !(plan.tolerance > 0 && plan.tolerance < 1) || plan.max_steps < 1 || !std::isfinite(plan.ceiling_rate))
    throw runtime_error("the capacity search needs 0 < floor, 0 < start <= ceiling, a tolerance in (0, 1), steps >= 1");
  CapacityResult result;
  auto step = [&](double rate) {
    result.tried.push_back(evaluate(rate));
    result.tried.back().rate = rate;
    return result.tried.back().valid;
  };
  auto steps_left = [&] { return static_cast<int>(result.tried.size()) < plan.max_steps; };
  std::optional<double> pass, fail;
  double rate = plan.start_rate;
  if (step(rate)) {
    pass = rate;
    while (steps_left() && rate < plan.ceiling_rate) {
      rate = std::min(rate * 2, plan.ceiling_rate);
      if (step(rate)) {
        pass = rate;
      } else {
        fail = rate;
        break;
      }
    }
  } else {
    // Down to the floor whatever the step limit: "no rate holds" after a failing start is an answer only once
    // the lower rates failed too (a start far above the capacity fails for its queue, not for the bound), or a
    // level proved that none can help.
    fail = rate;
    while (!result.tried.back().lower_cannot_help) {
      rate /= 2;
      if (rate < plan.floor_rate) break;
      if (step(rate)) {
        pass = rate;
        break;
      }
      fail = rate;
    }
  }
  while (pass && fail && steps_left() && (*fail - *pass) / *fail > plan.tolerance) {
    const double mid = (*pass + *fail) / 2;
    if (step(mid)) pass = mid;
    else fail = mid;
  }
  result.capacity = pass;
  result.lowest_failed = fail;
  return result;
}

double cost_per_million(double price_per_hour, double qps) { return price_per_hour / (qps * 3600.0) * 1e6; }

std::string tried_text(const std::vector<SearchStep>& tried) {
  std::string out;
  for (const SearchStep& s : tried)
    out += fmt::format("{}{:g}:{}:{}", out.empty() ? "" : ",", s.rate, s.valid ? "pass" : "fail",
                       s.value_ms ? fmt::format("{:.3f}", *s.value_ms) : "-");
  return out.empty() ? "-" : out;
}

}  // namespace fmwork
