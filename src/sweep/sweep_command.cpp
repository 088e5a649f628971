// `driver ...`, the sweep (see sweep_command.hpp).
#include "fmwork/sweep/sweep_command.hpp"

#include <functional>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "fmwork/base/error.hpp"
#include "fmwork/base/interrupt_note.hpp"
#include "fmwork/base/progress.hpp"
#include "fmwork/cli/args_section.hpp"
#include "fmwork/log/log_format.hpp"
#include "fmwork/runner/isolate.hpp"
#include "fmwork/sweep/bench_setup.hpp"
#include "fmwork/sweep/sweep.hpp"

namespace fmwork {
namespace {

// What Ctrl-C (or a kill) says at once; the sweep then stops between two reps, writes its INTERRUPT line and
// ends by the signal.
constexpr const char* kStopping =
    "driver: interrupted: stopping after the rep in progress, the log will say where (again to stop at once)";

// Runs the sweep (`sweep`: run_sweep, or the --isolate parent's loop) under an InterruptWatch: a signal ends it
// at its next rep, its INTERRUPT line written, with one line on stderr, by the signal (130 or 143 in a shell).
int watched(const std::function<int()>& sweep, std::ostream& err) {
  const InterruptWatch watch(kStopping);
  int failures = 0;
  try {
    failures = sweep();
  } catch (const Interrupted& stop) {
    err << "driver: " << InterruptWatch::signal_name(stop.signal)
        << ": the sweep stopped; the log ends with its FMWORK INTERRUPT line (where, how many complete)" << std::endl;
    InterruptWatch::end_by_signal(stop.signal);
  }
  if (const int signal = InterruptWatch::seen()) {  // after the last rep: every combination is in the log
    err << "driver: " << InterruptWatch::signal_name(signal) << ": after the sweep's last combination; the log is whole"
        << std::endl;
    InterruptWatch::end_by_signal(signal);
  }
  return failures;
}

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
    const int failures = watched([&] { return run_isolated_sweep(args, program, words, out, err, report_failure); }, err);
    return finish(failures, args, out, err);
  }
  if (child) {  // one combination; the parent reports the run's failures
    args.batch_sizes = {child->batch};
    args.input_sizes = {child->input};
  }
  std::ostream discard(nullptr);  // a later isolated child's RUNTIME, MODEL and META: the first one printed them
  const bool sections = !child || child->sections;
  std::ostream& section = sections ? out : discard;
  auto setup = sweep_setup(o, std::move(platform), revision, section, out);
  BenchSetup& bench = setup.first;  // not a structured binding: the lambdas below capture them
  SweepPlan& plan = setup.second;
  section << format_line(bench.meta) << "\n";
  flush_or_throw(out, "the log to standard output");
  if (sections && !bench.dtype_warning.empty()) err << "warning: " << bench.dtype_warning << std::endl;
  check_batching(plan.batching, bench);

  // Once a run: of the --isolate children, the first (the one that prints the sections) checks against the CPU.
  if (child && !child->sections) plan.cpu_reference.reset();
  // An --isolate child ends at once, by the signal, as before: its parent says where the sweep stopped.
  const auto sweep = [&] { return run_sweep(plan, *bench.model, *bench.platform, *bench.inputs, out, report_failure); };
  const int failures = child ? sweep() : watched(sweep, err);
  if (child) return failures > 0 ? 1 : 0;
  return finish(failures, args, out, err);
}

}  // namespace fmwork
