// --isolate (see isolate.hpp): the parent's loop over the combinations, one child process each, and the
// child's side of the contract (which combination, which sections).
#include "fmwork/runner/isolate.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "fmwork/cli/cli.hpp"
#include "fmwork/base/error.hpp"
#include "fmwork/base/interrupt_note.hpp"
#include "fmwork/log/log_format.hpp"
#include "fmwork/base/subprocess.hpp"
#include "fmwork/base/text_format.hpp"

namespace fmwork {
namespace {

// The child's "error: <message>" line as the message.
std::string without_error_prefix(const std::string& line) {
  return starts_with(line, "error: ") ? line.substr(7) : line;
}

struct Parent {
  std::optional<int64_t> timeout_s;  // --isolate_timeout
  const std::string& program;
  const std::vector<std::string>& argv;
  std::ostream& out;
  std::ostream& err;
  const std::function<void(const std::string&)>& report;
};

// What the parent saw of one child.
struct ChildWatch {
  bool run_banner = false;  // its RUN banner
  bool result = false;      // its RES or FAIL line
  bool meta = false;        // its META line: RUNTIME and MODEL are in the log
  std::optional<std::string> held_err;  // its last stderr line, held until the next one or the end
  bool timed_out = false;               // killed by the parent for running past --isolate_timeout
  int stack_lines = 0;                  // lines of a C++ stack trace on its stderr, left out
  ChildExit exit;
};

// Kills the child (SIGKILL) if it is still running `seconds` after start(); stop() ends the watch. A
// stopped or hung child would otherwise hold the sweep forever.
class Watchdog {
 public:
  explicit Watchdog(std::optional<int64_t> seconds) : seconds_(seconds) {}
  ~Watchdog() { stop(); }
  void start(pid_t pid) {
    if (!seconds_) return;
    thread_ = std::thread([this, pid] {
      std::unique_lock<std::mutex> lock(mutex_);
      if (!done_.wait_for(lock, std::chrono::seconds(*seconds_), [this] { return stopped_; })) {
        fired_ = true;
        ::kill(pid, SIGKILL);  // the child is not reaped before run_streaming returns: the pid is still its own
      }
    });
  }
  void stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopped_ = true;
    }
    done_.notify_all();
    if (thread_.joinable()) thread_.join();
  }
  bool fired() const { return fired_; }

 private:
  std::optional<int64_t> seconds_;
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable done_;
  bool stopped_ = false, fired_ = false;
};

// Runs one child, forwarding its lines. A line the child's death cut short is dropped when it is an
// FMWORK line (half a REP line would not parse); other text is kept.
ChildWatch run_child(const Parent& p, const IsolatedChild& child) {
  ChildWatch w;
  const std::string title = fmt::format("RUN {} / {}", child.input, child.batch);
  StreamHandlers handlers;
  handlers.out_line = [&](std::string_view line, bool terminated) {
    if (!terminated && starts_with(line, "FMWORK")) return;
    w.run_banner = w.run_banner || line == title;
    w.result = w.result || starts_with(line, "FMWORK RES ") || starts_with(line, "FMWORK FAIL ");
    w.meta = w.meta || starts_with(line, "FMWORK META ");
    p.out << line << '\n';
  };
  handlers.err_line = [&](std::string_view line, bool) {
    // A child dying of an uncaught LibTorch exception prints its C++ stack, dozens of lines no user can act
    // on: counted and left out (the signal and the line before them say what happened).
    if (starts_with(line, "frame #") || starts_with(line, "Exception raised from ")) {
      ++w.stack_lines;
      return;
    }
    if (w.held_err) p.err << *w.held_err << '\n';
    w.held_err = std::string(line);
  };
  handlers.after_read = [&] {
    p.out.flush();
    p.err.flush();
  };
  Watchdog watchdog(p.timeout_s);
  handlers.started = [&](pid_t pid) {
    InterruptWatch::forward_to(pid);  // Ctrl-C or a kill of the parent stops the child at once too
    watchdog.start(pid);
  };
  const std::string variable = std::string(kIsolatedChildVariable) + "=" + isolated_child_spec(child);
  w.exit = run_streaming(p.program, p.argv, {variable}, handlers);
  InterruptWatch::forward_to(0);
  watchdog.stop();
  w.timed_out = watchdog.fired();
  return w;
}

void forward_held(const Parent& p, const ChildWatch& w) {
  if (w.held_err) p.err << *w.held_err << std::endl;
}

// The FAIL text for a child that ended without its combination's RES or FAIL line.
std::string failure_of(const Parent& p, const ChildWatch& w) {
  const ChildExit& e = w.exit;
  if (w.timed_out) {
    forward_held(p, w);
    return fmt::format("the isolated process was still running after --isolate_timeout {} s and was killed (peak "
                       "memory {}); give it more seconds, or look for what hangs",
                       *p.timeout_s, peak_memory_text(e.peak_rss_bytes));
  }
  if (e.signal != 0) {
    forward_held(p, w);
    std::string error = killed_child_error(e.signal, e.peak_rss_bytes);
    if (w.stack_lines > 0) error += fmt::format(" ({} lines of its C++ stack trace left out)", w.stack_lines);
    return error;
  }
  if (e.exit_code != 0 && w.held_err) return without_error_prefix(*w.held_err);
  forward_held(p, w);
  return fmt::format("the isolated process exited with status {} without a RES or FAIL line", e.exit_code);
}

// Settles one combination after its child ended; returns whether it failed.
bool settle(const Parent& p, const IsolatedChild& child, const ChildWatch& w) {
  const ChildExit& e = w.exit;
  if (w.result) {  // the child printed the combination's outcome and reported its own failures
    forward_held(p, w);
    if (w.timed_out)
      p.report(fmt::format("combination input {} / batch {}: after its lines, the isolated process ran past "
                           "--isolate_timeout {} s and was killed", child.input, child.batch, *p.timeout_s));
    else if (e.signal != 0)
      p.report(fmt::format("combination input {} / batch {}: after its lines, {}", child.input, child.batch,
                           killed_child_error(e.signal, e.peak_rss_bytes)));
    return e.exit_code != 0;
  }
  if (e.exit_code == 2 && !w.timed_out)
    throw usage_error(w.held_err ? without_error_prefix(*w.held_err)
                                 : "the isolated process refused the command line (exit status 2) and said nothing");
  const std::string error = failure_of(p, w);
  if (!w.run_banner) p.out << banner(fmt::format("RUN {} / {}", child.input, child.batch));
  p.out << "\n" << format_line(make_fail_line(child.input, child.batch, error)) << "\n" << std::flush;
  p.report(combination_failure(child.input, child.batch, error));
  return true;
}

[[noreturn]] void bad_spec(std::string_view spec) {
  throw usage_error(std::string(kIsolatedChildVariable) + "='" + excerpt(spec) +
                    "' is not what the driver sets; `driver --isolate` sets it for its children only");
}

int64_t spec_value(std::string_view word, std::string_view key, std::string_view spec) {
  if (!starts_with(word, key)) bad_spec(spec);
  const std::string_view digits = word.substr(key.size());
  if (digits.empty() || digits.size() > 18 || digits.find_first_not_of("0123456789") != std::string_view::npos)
    bad_spec(spec);
  return std::stoll(std::string(digits));
}

}  // namespace

std::string isolated_child_spec(const IsolatedChild& child) {
  return fmt::format("batch={} input={} sections={} parent={}", child.batch, child.input,
                     child.sections ? "all" : "run", child.parent);
}

IsolatedChild parse_isolated_child(std::string_view spec) {
  const std::vector<std::string_view> words = split(spec, ' ');
  const std::string_view sections = words.size() == 4 ? words[2] : std::string_view();
  if (sections != "sections=all" && sections != "sections=run") bad_spec(spec);
  IsolatedChild child;
  child.batch = spec_value(words[0], "batch=", spec);
  child.input = spec_value(words[1], "input=", spec);
  child.sections = sections == "sections=all";
  child.parent = spec_value(words[3], "parent=", spec);
  return child;
}

std::optional<IsolatedChild> isolated_child(const FixedArgs& args, std::ostream& err) {
  const char* spec = std::getenv(kIsolatedChildVariable);
  if (!args.isolate || spec == nullptr) return std::nullopt;
  std::optional<IsolatedChild> parsed;
  try {
    parsed = parse_isolated_child(spec);
  } catch (const Error&) {  // not the driver's: said below
  }
  // Only the driver that started this process makes it a child; a variable exported by hand or inherited
  // from an earlier run would otherwise turn a top-level run into one combination with no ARGS.
  if (!parsed || parsed->parent != static_cast<int64_t>(::getppid())) {
    err << "note: " << kIsolatedChildVariable << "='" << excerpt(spec) << "' was not set by this process's parent "
        << "(pid " << ::getppid() << "); ignored: this is a top-level run" << std::endl;
    return std::nullopt;
  }
  const IsolatedChild child = *parsed;
  auto holds = [](const std::vector<int64_t>& sizes, int64_t size) {
    return std::find(sizes.begin(), sizes.end(), size) != sizes.end();
  };
  if (!holds(args.batch_sizes, child.batch) || !holds(args.input_sizes, child.input))
    throw usage_error(fmt::format("{}: batch {} / input {} is not a combination of --batch_sizes and --input_sizes",
                                  kIsolatedChildVariable, child.batch, child.input));
  return child;
}

std::string killed_child_error(int signal, int64_t peak_rss_bytes) {
  return "the isolated process was " + killed_by_text(signal, peak_rss_bytes);
}

int run_isolated_sweep(const FixedArgs& args, const std::string& program, const std::vector<std::string>& argv,
                       std::ostream& out, std::ostream& err, const std::function<void(const std::string&)>& report) {
  const Parent parent{args.isolate_timeout, program, argv, out, err, report};
  int failures = 0;
  bool sections_in_log = false;
  const auto combinations = static_cast<int64_t>(args.batch_sizes.size() * args.input_sizes.size());
  int64_t complete = 0;
  // Stopped by a signal (the child in flight got it too): said in the log where the combination's outcome
  // would be, in place of a FAIL line for a child killed on purpose; then the watch ends the driver.
  const auto stop_if_interrupted = [&](int64_t input, int64_t batch) {
    const int signal = InterruptWatch::seen();
    if (signal == 0) return;
    out << "\n"
        << format_line(make_interrupt_line(input, batch, InterruptWatch::signal_name(signal), complete, combinations))
        << "\n";
    flush_or_throw(out, "the log to standard output");
    throw Interrupted{signal};
  };
  for (int64_t batch : args.batch_sizes) {
    for (int64_t input : args.input_sizes) {
      stop_if_interrupted(input, batch);
      const IsolatedChild child{batch, input, !sections_in_log, static_cast<int64_t>(::getpid())};
      const ChildWatch watch = run_child(parent, child);
      if (!watch.result) stop_if_interrupted(input, batch);
      ++complete;
      sections_in_log = sections_in_log || watch.meta;
      if (settle(parent, child, watch)) ++failures;
      flush_or_throw(parent.out, "the log to standard output");  // a lost log ends the sweep, as it does unisolated
    }
  }
  return failures;
}

}  // namespace fmwork
