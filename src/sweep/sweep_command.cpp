// `driver ...`, the sweep (see sweep_command.hpp).
#include "fmwork/sweep/sweep_command.hpp"

#include <optional>
#include <utility>

#include <fmt/format.h>

#include "fmwork/base/error.hpp"
#include "fmwork/base/progress.hpp"
#include "fmwork/cli/args_section.hpp"
#include "fmwork/log/log_format.hpp"
#include "fmwork/runner/isolate.hpp"
#include "fmwork/sweep/bench_setup.hpp"
#include "fmwork/sweep/sweep.hpp"

namespace fmwork {
namespace {

// The run's end: the summary of failed combinations, and the exit status.
int finish(int failures, const FixedArgs& args, std::ostream& out, std::ostream& err) {
  out << "\n";
  flush_or_throw(out, "the log to standard output");
  if (failures == 0) return 0;
  err << fmt::format("error: {} of {} combinations failed (see the FMWORK FAIL and CHECK lines)", failures,
                     args.batch_sizes.size() * args.input_sizes.size())
      << std::endl;
  return 1;
}

}  // namespace

int run_sweep_command(const std::vector<std::string>& words, const std::string& revision, const std::string& program,
                      std::ostream& out, std::ostream& err) {
  std::vector<const char*> argv;
  for (const auto& w : words) argv.push_back(w.c_str());
  DriverOptions o = parse_driver_options(static_cast<int>(argv.size()), argv.data());
  FixedArgs& args = o.command_line.args;
  auto platform = open_platform(o);
  const std::optional<IsolatedChild> child = isolated_child(args, err);
  // Progress on stderr (never stdout: the log). An --isolate child says nothing: it would count its one
  // combination as "1 of 1"; its parent's lines and the FAIL lines say what happens.
  set_progress_mode(progress_mode_for(args.quiet || child));
  const auto report_failure = [&err](const std::string& message) {
    err << "error: " << escape_controls(message) << std::endl;
  };
  if (!child) {
    out << banner("ARGS") << format_args_section(o.command_line);
    flush_or_throw(out, "the log to standard output");  // before anything is loaded: a lost log stops at once
  }
  if (args.isolate && !child) {
    platform.reset();  // each child makes its own: the parent holds no device while they run
    return finish(run_isolated_sweep(args, program, words, out, err, report_failure), args, out, err);
  }
  if (child) {  // one combination; the parent reports the run's failures
    args.batch_sizes = {child->batch};
    args.input_sizes = {child->input};
  }
  std::ostream discard(nullptr);  // a later isolated child's RUNTIME, MODEL and META: the first one printed them
  const bool sections = !child || child->sections;
  std::ostream& section = sections ? out : discard;
  BenchSetup bench = prepare_bench(o, std::move(platform), revision, BenchFor::sweep, section, out);
  section << format_line(bench.meta) << "\n";
  flush_or_throw(out, "the log to standard output");
  if (sections && !bench.dtype_warning.empty()) err << "warning: " << bench.dtype_warning << std::endl;

  const SweepPlan plan = sweep_plan(o, bench);
  const int failures = run_sweep(plan, *bench.model, *bench.platform, *bench.inputs, out, report_failure);
  if (child) return failures > 0 ? 1 : 0;
  return finish(failures, args, out, err);
}

}  // namespace fmwork
