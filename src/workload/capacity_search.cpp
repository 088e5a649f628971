// The capacity search (capacity_search.hpp).
#include "fmwork/workload/capacity_search.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "fmwork/base/error.hpp"

namespace fmwork {

namespace {

// Unwinds the search from a step that did not run (stop_before said so, or the level was cut): what was found
// so far is the answer.
struct SearchStop {};

// The walk over rates: doubling from a passing start, halving from a failing one, then bisecting. `step(rate)`
// runs (or takes) a level and says whether it passed; `pass` and `fail` are the bracket so far.
template <typename Step>
void walk(const SearchPlan& plan, Step&& step, const CapacityResult& result, std::optional<double>& pass,
          std::optional<double>& fail) {
  // The step limit counts the levels the search runs: a rate taken from plan.known costs nothing.
  auto steps_left = [&] {
    return std::count_if(result.tried.begin(), result.tried.end(), [](const SearchStep& s) { return !s.reused; }) <
           plan.max_steps;
  };
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
}

}  // namespace

CapacityResult search_capacity(const SearchPlan& plan, const std::function<SearchStep(double rate)>& evaluate) {
  if (!(plan.start_rate > 0) || !(plan.floor_rate > 0) || !(plan.ceiling_rate >= plan.start_rate) ||
      !(plan.tolerance > 0 && plan.tolerance < 1) || plan.max_steps < 1 || !std::isfinite(plan.ceiling_rate))
    throw runtime_error("the capacity search needs 0 < floor, 0 < start <= ceiling, a tolerance in (0, 1), steps >= 1");
  CapacityResult result;
  auto step = [&](double rate) {
    const auto known =
        std::find_if(plan.known.begin(), plan.known.end(), [&](const SearchStep& s) { return s.rate == rate; });
    if (known != plan.known.end()) {
      result.tried.push_back(*known);
      result.tried.back().reused = true;
    } else {
      if (plan.stop_before) result.stopped = plan.stop_before(rate);
      if (!result.stopped.empty()) throw SearchStop{};
      try {
        result.tried.push_back(evaluate(rate));
      } catch (const LevelStopped& e) {
        result.stopped = e.what();
        throw SearchStop{};
      }
    }
    SearchStep& s = result.tried.back();
    s.rate = rate;
    // A contended level's failure says as much of the machine as of the model: no proof.
    if (s.contended) s.lower_cannot_help = false;
    return s.valid;
  };
  std::optional<double> pass, fail;
  try {
    walk(plan, step, result, pass, fail);
  } catch (const SearchStop&) {
  }
  // A level measured before the search that the walk did not reach still bounds the answer: a pass above the
  // highest the walk found (below its lowest fail), a fail below its lowest (above its highest pass). It is then
  // one of the steps tried, as it was run.
  for (const SearchStep& k : plan.known) {
    const bool inside = (!pass || k.rate > *pass) && (!fail || k.rate < *fail);
    const bool visited =
        std::any_of(result.tried.begin(), result.tried.end(), [&](const SearchStep& s) { return s.rate == k.rate; });
    if (!inside || visited) continue;
    (k.valid ? pass : fail) = k.rate;
    result.tried.push_back(k);
    result.tried.back().reused = true;
  }
  result.capacity = pass;
  result.lowest_failed = fail;
  return result;
}

int64_t CapacityResult::contended_steps() const {
  return std::count_if(tried.begin(), tried.end(), [](const SearchStep& s) { return s.contended; });
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
