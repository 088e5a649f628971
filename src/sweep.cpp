#include "fmwork/sweep.hpp"

#include <time.h>

#include <iostream>
#include <new>

#include <fmt/format.h>

#include "fmwork/error.hpp"
#include "fmwork/stats.hpp"

namespace fmwork {
namespace {

Nanos read_clock(clockid_t id) {
  timespec ts{};
  clock_gettime(id, &ts);
  return static_cast<Nanos>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

// Lines are written as they come but flushed once per combination, after its last line: a flush per REP
// line would put a write() system call between every two reps.
void emit(std::ostream& out, const LogLine& line) { out << format_line(line) << '\n'; }

// The line of an exception message that says what went wrong. LibTorch's messages span lines; those of
// the TorchScript interpreter open with a generic sentence and a script traceback, and end with the cause.
std::string cause_of(const std::string& message) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start <= message.size()) {
    size_t end = message.find('\n', start);
    if (end == std::string::npos) end = message.size();
    std::string line = message.substr(start, end - start);
    if (line.find_first_not_of(" \t\r") != std::string::npos) lines.push_back(line);
    start = end + 1;
  }
  if (lines.empty()) return "unknown error";
  const bool script_traceback = message.find("Traceback of TorchScript") != std::string::npos;
  return script_traceback ? lines.back() : lines.front();
}

// One combination; throws whatever the model or the device throws.
void run_combination(const SweepPlan& plan, int64_t batch, int64_t input, Model& model, Platform& platform,
                     InputGenerator& inputs, std::ostream& out) {
  const auto reps = static_cast<size_t>(plan.reps);
  std::vector<Nanos> t0s(reps), t1s(reps);  // reserved up front: nothing allocates between t0 and t1
  platform.reset_memory_peaks();
  for (size_t rep = 0; rep < reps; ++rep) {
    Batch batch_inputs = inputs.make(batch, input, platform.device());
    platform.synchronize();  // the inputs' copy to the device is not part of the measurement

    const Nanos t0 = clock_now();
    torch::IValue outputs = model.forward(batch_inputs);
    platform.synchronize();
    const Nanos t1 = clock_now();

    t0s[rep] = t0;
    t1s[rep] = t1;
    emit(out, RepLine{static_cast<int64_t>(rep + 1), plan.reps, t0, t1});
  }

  std::vector<double> durations(reps);
  for (size_t i = 0; i < reps; ++i) durations[i] = static_cast<double>(t1s[i] - t0s[i]) / 1e9;
  const Summary summary = summarize(durations);
  out << "\n";
  emit(out, make_res_line(t0s.front(), t1s.back(), plan.model_name, plan.model_class, input, batch, summary));
  emit(out, make_stat_line(input, batch, summary));
  if (auto peaks = platform.memory_peaks())
    emit(out, make_mem_line(input, batch, peaks->allocated_bytes, peaks->reserved_bytes));
  out.flush();
}

}  // namespace

Nanos clock_now() {
  static const Nanos offset = read_clock(CLOCK_REALTIME) - read_clock(CLOCK_MONOTONIC);
  return read_clock(CLOCK_MONOTONIC) + offset;
}

int run_sweep(const SweepPlan& plan, Model& model, Platform& platform, InputGenerator& inputs, std::ostream& out) {
  int failures = 0;
  for (int64_t batch : plan.batch_sizes) {
    for (int64_t input : plan.input_sizes) {
      out << banner(fmt::format("RUN {} / {}", input, batch)) << std::flush;
      std::string error;
      try {
        run_combination(plan, batch, input, model, platform, inputs, out);
      } catch (const c10::Error& e) {
        error = e.what_without_backtrace();
      } catch (const std::bad_alloc&) {
        error = "out of memory (std::bad_alloc)";
      } catch (const std::exception& e) {
        error = e.what();
      }
      if (!error.empty()) {
        ++failures;
        error = cause_of(error);
        out << "\n";
        emit(out, make_fail_line(input, batch, error));
        out.flush();
        std::cerr << fmt::format("error: combination input {} / batch {} failed: {}; the sweep goes on", input,
                                 batch, error)
                  << std::endl;
      }
    }
  }
  return failures;
}

}  // namespace fmwork
