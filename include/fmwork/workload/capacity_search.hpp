// The most load within a latency bound: the highest arrival rate whose load level is VALID (kept up, enough
// queries, the bound held), found as MLPerf LoadGen's Server search and perf_analyzer's --binary-search
// find it: from a start rate, doubling while levels pass (halving while they fail) until one passes and one
// fails, then bisecting between them until they are within a tolerance. Every rate tried is reported. Halving
// stops at a passing rate, below the floor, or at a step that proves no lower rate can help, never for the step
// limit: "no rate holds" is said only on that evidence. No rate is run twice: a rate already measured (a
// --rates level, given as `known`) is taken as it was. A budget or a stop the user asked for ends the search
// early (stop_before, LevelStopped): the result is then partial, the bracket found so far.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace fmwork {

// One rate tried: whether its level was VALID, the bound's percentile there (ms; nullopt when the level answered
// no measured query: not measured, never 0), the level's reason.
struct SearchStep {
  double rate = 0;
  bool valid = false;
  std::optional<double> value_ms;
  double achieved_qps = 0;
  std::string reason;
  // A proof that no lower rate can hold the bound (serve_loop.hpp's lower_rate_cannot_help): the search stops
  // halving. A guess (a level that failed at a high load) must not set it.
  bool lower_cannot_help = false;
  // The level ran while other work held the CPU (contention_reason(), verdicts.hpp): its verdict may be the
  // machine's, not the model's, so it is never a proof (lower_cannot_help stays false for it).
  bool contended = false;
  // Taken from SearchPlan::known, not run again.
  bool reused = false;
};

// Thrown by `evaluate` when its level was cut short (a stop the user asked for): the search ends there, partial,
// with the message as CapacityResult::stopped; the cut level is not a step.
class LevelStopped : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct SearchPlan {
  double start_rate = 1;     // > 0: the first rate tried
  double floor_rate = 0.1;   // > 0: below it the search gives up (no rate holds the bound)
  double ceiling_rate = 1e5; // the doubling stops there (a level that high passing is the answer, capped)
  double tolerance = 0.05;   // bisect until (fail - pass) / fail <= tolerance
  int max_steps = 16;        // levels run at most for doubling and bisecting; halving from a failing start goes on
                             // to the floor (log2(start / floor) levels more at most)
  // Asked before each level that would run: "" runs it; a reason (the time budget is spent, a stop was asked
  // for) ends the search there, partial. Unset: every level runs.
  std::function<std::string(double rate)> stop_before;
  // Levels measured before the search at these rates: a step at one of them is taken from here (reused, not
  // counted against max_steps), and one the walk did not reach still narrows the bracket (and is then listed).
  std::vector<SearchStep> known;
};

struct CapacityResult {
  std::optional<double> capacity;  // the highest rate that passed; nullopt: none did down to floor_rate
  std::optional<double> lowest_failed;  // the lowest rate that failed, where one did
  std::vector<SearchStep> tried;   // in the order tried
  // "" when the search ended by its own rules; else why it ended early (stop_before's reason or LevelStopped's
  // message): capacity and lowest_failed are then the bracket found so far, and the result is partial.
  std::string stopped;
  bool partial() const { return !stopped.empty(); }
  // How many of `tried` ran while other work held the CPU.
  int64_t contended_steps() const;
};

// Runs the search, calling `evaluate` for each rate (a load level) not in plan.known. A runtime Error for a plan
// out of range.
CapacityResult search_capacity(const SearchPlan& plan, const std::function<SearchStep(double rate)>& evaluate);

// The cost of a million queries at `qps` on a machine that costs `price_per_hour`: price / (qps x 3600) x 1e6.
double cost_per_million(double price_per_hour, double qps);

// "20:pass:12.345,40:fail:80.100,80:fail:-": the rates tried, for the CAPACITY line ("-": not measured).
std::string tried_text(const std::vector<SearchStep>& tried);

}  // namespace fmwork
