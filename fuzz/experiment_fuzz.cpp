// Fuzz target: campaign experiment files (runner/experiment). The input is the file, read through
// json_input's parse_json (the depth limit of read_json_file, which load_experiment calls), expanded (every
// command line checked by the driver's parser), then written as plan.json and read back as `driver run
// --resume` and `process` read it. The plan's size is capped at kFuzzMaxRuns (below): the real cap
// (100,000 runs by default) would let one input run for seconds.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "fmwork/base/json_input.hpp"
#include "fmwork/runner/experiment.hpp"
#include "fuzz_support.hpp"

namespace {

constexpr int64_t kFuzzMaxRuns = 64;

// "max_runs" lowered to kFuzzMaxRuns where the file leaves it out or says more; any other value (a string, 0,
// -1) is left for expand_experiment to refuse.
void cap_runs(nlohmann::json& doc) {
  if (!doc.is_object()) return;
  const auto it = doc.find("max_runs");
  if (it == doc.end() || (it->is_number_unsigned() && it->get<uint64_t>() > uint64_t{kFuzzMaxRuns}) ||
      (it->is_number_integer() && it->get<int64_t>() > kFuzzMaxRuns))
    doc["max_runs"] = kFuzzMaxRuns;
}

// A run's matrix as plan.json keeps it: one value per column (the last, as plan_to_json writes an object).
std::map<std::string, std::string> columns(const fmwork::PlannedRun& run) {
  std::map<std::string, std::string> out;
  for (const auto& [column, value] : run.matrix) out[column] = value;
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fmwork::fuzz::refusal_allowed([&] {
    nlohmann::json doc = fmwork::parse_json(fmwork::fuzz::as_text(data, size), "x.json");
    cap_runs(doc);
    const fmwork::Plan plan = fmwork::expand_experiment(doc, "x.json");
    if (plan.runs.empty() || plan.runs.size() > static_cast<size_t>(kFuzzMaxRuns)) __builtin_trap();
    const std::string text = plan_to_json(plan).dump(2);
    const fmwork::Plan back = fmwork::plan_from_json(fmwork::parse_json(text, "plan.json"), "plan.json");
    if (back.source != plan.source || back.runs.size() != plan.runs.size()) __builtin_trap();
    for (size_t i = 0; i < plan.runs.size(); ++i) {
      const fmwork::PlannedRun &a = plan.runs[i], &b = back.runs[i];
      if (a.id != b.id || a.run != b.run || a.argv != b.argv || columns(a) != columns(b)) __builtin_trap();
      (void)fmwork::describe_run(a);
      (void)fmwork::command_text("driver", a.argv);
    }
  });
  return 0;
}
