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

void emit(std::ostream& out, const LogLine& line) { out << format_line(line) << std::endl; }

std::string fixed(double value, int decimals) { return fmt::format("{:.{}f}", value, decimals); }

StatLine stat_line(int64_t input, int64_t batch, const Summary& s) {
  auto ms = [](double seconds) { return fixed(seconds * 1e3, 3); };
  return StatLine{Fields{{{"input", std::to_string(input)},
                          {"batch", std::to_string(batch)},
                          {"reps", std::to_string(s.reps)},
                          {"dropped", std::to_string(s.dropped)},
                          {"mean_ms", ms(s.mean)},
                          {"stddev_ms", ms(s.stddev)},
                          {"min_ms", ms(s.min)},
                          {"p50_ms", ms(s.p50)},
                          {"p90_ms", ms(s.p90)},
                          {"p99_ms", ms(s.p99)},
                          {"max_ms", ms(s.max)}}}};
}

// One line, whatever the exception carried: LibTorch messages span lines and end in a backtrace.
std::string one_line(std::string text) {
  if (auto nl = text.find('\n'); nl != std::string::npos) text.resize(nl);
  return text;
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
  emit(out, ResLine{t0s.front(), t1s.back(), plan.model_name, plan.model_class, input, batch,
                    summary.median * 1e3, static_cast<double>(batch) / summary.median});
  emit(out, stat_line(input, batch, summary));
  if (auto peaks = platform.memory_peaks()) {
    emit(out, MemLine{Fields{{{"input", std::to_string(input)},
                              {"batch", std::to_string(batch)},
                              {"allocated_peak_bytes", std::to_string(peaks->allocated_bytes)},
                              {"reserved_peak_bytes", std::to_string(peaks->reserved_bytes)}}}});
  }
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
        error = one_line(error);
        out << "\n";
        emit(out, FailLine{Fields{{{"input", std::to_string(input)}, {"batch", std::to_string(batch)}, {"error", error}}}});
        std::cerr << fmt::format("error: combination input {} / batch {} failed: {}; the sweep goes on", input,
                                 batch, error)
                  << std::endl;
      }
    }
  }
  return failures;
}

}  // namespace fmwork
