#include "fmwork/sweep/sweep.hpp"

#include <time.h>

#include <algorithm>
#include <functional>
#include <map>
#include <new>

#include <fmt/format.h>

#include "fmwork/base/error.hpp"
#include "fmwork/runtime/exception_cause.hpp"
#include "fmwork/base/interrupt_note.hpp"
#include "fmwork/base/mapped_files.hpp"
#include "fmwork/base/progress.hpp"
#include "fmwork/sweep/admission.hpp"
#include "fmwork/sweep/device_energy.hpp"
#include "fmwork/sweep/saved_outputs.hpp"
#include "fmwork/log/log_format.hpp"
#include "fmwork/log/verdicts.hpp"
#include "fmwork/log/stats.hpp"
#include "fmwork/runtime/op_profile.hpp"
#include "fmwork/sweep/rep_lengths.hpp"
#include "fmwork/sweep/reps_watch.hpp"

namespace fmwork {
namespace {

// Lines are written as they come but flushed once per combination, after its last line: a flush per REP
// line would put a write() system call between every two reps.
void emit(std::ostream& out, const LogLine& line) {
  out << format_line(line) << '\n';
  note_write_error(out);  // a full disk: the reason, while errno still holds it
}

Batch to_device(const Batch& b, const torch::Device& device) {
  Batch moved = b;  // padded and lengths as they are
  moved.input_ids = b.input_ids.to(device);
  moved.attention_mask = b.attention_mask.to(device);
  moved.token_type_ids = b.token_type_ids.to(device);
  return moved;
}

// After the last rep and before the RES line (so that a failure here is the combination's FAIL, not a
// FAIL after its RES): --save_outputs writes the rep's inputs and outputs, --check_outputs compares them:
// the CHECK line to print and whether it passed.
struct Checked {
  std::optional<CheckLine> line;
  bool pass = true;
  std::string note;  // the check against the CPU could not run: why (one line, free text)
};
Checked save_and_check(const SweepPlan& plan, int64_t batch, int64_t input, const Model& model, const Batch& fed,
                       const torch::IValue& outputs, const Reference* reference) {
  if (!plan.args.save_outputs && !reference) return {};
  const ModelFacts facts = model.facts();
  const NamedTensors named = name_outputs(outputs, facts.output_names);
  // Saved: the real tokens' values of per-token outputs (by name), every other output whole. Checked: the
  // outputs as the model gave them against the reference as it was saved, on the real tokens the reference's
  // own mask marks.
  if (plan.args.save_outputs)
    save_outputs(*plan.args.save_outputs, input, batch, fed, facts.fed_inputs, real_tokens_only(named, fed));
  if (!reference) return {};
  const Tolerance tolerance = tolerance_for(facts.dtype_name, plan.check);
  const CheckResult r = compare_outputs(named, reference->outputs, tolerance, reference->inputs.attention_mask);
  CheckFacts f;
  f.outputs = r.names;
  f.max_abs = r.max_abs, f.max_rel = r.max_rel, f.cosine = r.cosine;
  f.atol = tolerance.atol, f.rtol = tolerance.rtol, f.min_cosine = tolerance.cosine;
  f.pass = r.pass;
  return {make_check_line(input, batch, f), r.pass, {}};
}

// Both checks of a combination's outputs: the file's (save_and_check) and, once a run, the CPU eager model's
// (cpu_reference.hpp), which --check_outputs DIR replaces, so that a combination has one CHECK line. Outputs the CPU
// judges wrong have no RES: their CHECK line is written here, and the error thrown is the combination's FAIL line.
Checked outputs_checked(const SweepPlan& plan, int64_t batch, int64_t input, const Model& model, const Batch& fed,
                        const torch::IValue& outputs, const Reference* reference, CpuReferenceCheck& cpu_check,
                        std::ostream& out) {
  Checked check = save_and_check(plan, batch, input, model, fed, outputs, reference);
  CpuCheck cpu = cpu_check.after_reps(input, batch, model, fed, outputs);
  if (!cpu.pass) {
    out << "\n";
    emit(out, *cpu.line);
    throw runtime_error(cpu.failure);
  }
  if (cpu.line) check.line = std::move(cpu.line);
  check.note = std::move(cpu.note);
  return check;
}

// The --profile rep: the last timed rep's inputs once more under the profiler, after the timed reps. Its
// trace goes to the --profile folder; its top operators become PROFILE lines.
// Without --profile: nothing. A profile that fails leaves `error` set: the timed reps stand, their lines are
// written, and the run fails at its end.
struct Profiled {
  std::optional<OpProfile> profile;
  std::optional<double> ms;  // the rep's wall time under the profiler (model call and sync)
  std::string trace;  // the file's name in the folder
  std::string error;
};
Profiled profile_rep(const SweepPlan& plan, int64_t batch, int64_t input, Model& model, Platform& platform,
                     const Batch& fed) {
  Profiled p;
  if (!plan.args.profile) return p;
  p.trace = fmt::format("{}x{}.trace.json", input, batch);
  try {
    p.profile = profile_call(
        [&] {
          const Nanos t0 = clock_now();
          const torch::IValue outputs = model.forward(fed);
          platform.synchronize();
          p.ms = static_cast<double>(clock_now() - t0) / 1e6;
        },
        platform.facts().device.type(), *plan.args.profile + "/" + p.trace);
  } catch (const std::exception& e) {
    p.error = exception_cause(e);
  }
  return p;
}

void emit_profile(std::ostream& out, int64_t batch, int64_t input, const Profiled& p) {
  std::map<std::string, int64_t> ranked;  // per side: cpu, the device
  for (const OpTotal& op : p.profile->ops) {
    int64_t& rank = ranked[op.on];
    if (static_cast<size_t>(rank) >= kTopOps) continue;
    ++rank;
    emit(out, make_profile_line(input, batch,
                                ProfiledOp{rank, op.name, op.on, op.calls, op.self_ms, op.total_ms,
                                           self_share(*p.profile, op), op.flops},
                                p.trace));
  }
  if (p.profile->device_activities && p.profile->device_self_ms == 0)
    out << fmt::format("profile {}x{}: the device reported no activities of its own; CPU operators only\n", input,
                       batch);
}

// STAT's work fields: the model's FLOP formula, else what the --profile rep's FLOP counter saw.
std::optional<WorkFacts> work_of(const SweepPlan& plan, int64_t batch, int64_t input, const Model& model,
                                 const Profiled& profiled) {
  if (const ModelFacts facts = model.facts(); facts.forward_flops)
    return WorkFacts{facts.forward_flops(batch, input), "formula", plan.peak_gflops};
  if (profiled.profile && profiled.profile->counted_flops > 0)
    return WorkFacts{profiled.profile->counted_flops, "profiler", plan.peak_gflops};
  return std::nullopt;
}

// What went wrong in a combination that still printed its RES: its output check failed, its profile rep failed.
struct Outcome {
  bool check_pass = true;
  std::string profile_error;
};

// The live line between reps (a terminal only, at most every 100 ms): where the combination is and how long
// it has left. Called after t1, outside the timed region.
class RepProgress {
 public:
  RepProgress(const std::string& where, size_t reps) : where_(where), reps_(reps) {}
  void done(size_t rep, Nanos spent) {
    if (progress_mode() != ProgressMode::live) return;
    const Nanos now = clock_now();
    if (now - shown_ < 100'000'000 && rep < reps_) return;
    shown_ = now;
    const double per_rep = static_cast<double>(spent) / 1e9 / static_cast<double>(rep);
    progress_live(fmt::format("{}: rep {} of {}, {} per rep, {} left", where_, rep, reps_, duration_text(per_rep),
                              duration_text(per_rep * static_cast<double>(reps_ - rep))));
  }

 private:
  std::string where_;
  size_t reps_;
  Nanos shown_ = 0;
};

// A combination's rep durations (seconds, as upstream computes them) and their summaries: STAT's and the
// verdict's with --warmup's count where given, RES's always with upstream's rule.
struct Timings {
  std::vector<double> durations;
  std::optional<size_t> dropped;
  Summary stat, res;
};

Timings timings_of(const std::vector<Nanos>& t0s, const std::vector<Nanos>& t1s, std::optional<int64_t> warmup) {
  Timings t;
  t.durations.resize(t0s.size());
  for (size_t i = 0; i < t0s.size(); ++i) t.durations[i] = static_cast<double>(t1s[i] - t0s[i]) / 1e9;
  if (warmup) t.dropped = static_cast<size_t>(*warmup);
  t.stat = summarize(t.durations, t.dropped);
  t.res = t.dropped ? summarize(t.durations) : t.stat;
  return t;
}

// The next rep's inputs, on the device, before its timed region: the reference's (--check_outputs), a batch of
// the next lengths (--input_lengths; padded to their longest, or to `input` on a one-shape platform), or
// `input` tokens a row; packed for --batching unpadded.
Batch rep_batch(const SweepPlan& plan, int64_t batch, int64_t input, const Batch* reference,
                std::optional<RepLengths>& lengths, InputGenerator& inputs, const torch::Device& device) {
  if (reference) return *reference;
  Batch b;
  if (lengths) {
    const std::vector<int64_t> next = lengths->next();
    const int64_t padded_to = plan.one_shape ? input : *std::max_element(next.begin(), next.end());
    b = inputs.make(next, padded_to, device);
  } else {
    b = inputs.make(batch, input, device);
  }
  if (plan.batching == Batching::unpadded) pack_batch(b);
  return b;
}

// A rep's tokens and work (what its duration grows with); a plain run's rows are all `input` long.
struct RepTokens {
  TokenCounts counts;
  RepWork work;
};
RepTokens batch_tokens(const Batch& b, Batching mode) {
  const int64_t rows = b.input_ids.size(0), input = b.input_ids.size(1);
  if (b.lengths.empty()) {
    const double tokens = static_cast<double>(rows * input);
    return {{rows * input, rows * input}, {tokens, tokens * static_cast<double>(input)}};
  }
  return {rep_tokens(b.lengths, input, mode), rep_work(b.lengths, input, mode)};
}

// STAT's token fields under --input_lengths (or --batching): the kept reps' real and computed tokens per rep,
// and each over the kept reps' summed durations; where their work varied, the spread of their durations at
// equal work (the verdict's, verdicts.hpp); nullopt for a plain run, whose tokens_per_s stays batch x input
// over the median.
std::optional<TokenRates> token_rates(const SweepPlan& plan, const std::vector<RepTokens>& tokens,
                                      const Timings& timings) {
  if (!plan.args.lengths && plan.batching == Batching::padded) return std::nullopt;
  const size_t first = timings.stat.dropped;
  double real = 0, computed = 0, seconds = 0;
  std::vector<double> kept_durations;
  std::vector<RepWork> kept_work;
  for (size_t i = first; i < tokens.size(); ++i) {
    real += static_cast<double>(tokens[i].counts.real), computed += static_cast<double>(tokens[i].counts.padded);
    seconds += timings.durations[i];
    kept_durations.push_back(timings.durations[i]), kept_work.push_back(tokens[i].work);
  }
  const double kept = static_cast<double>(tokens.size() - first);
  if (kept <= 0 || seconds <= 0) return std::nullopt;
  TokenRates rates;
  rates.real_tokens = real / kept, rates.padded_tokens = computed / kept;
  rates.real_per_s = real / seconds, rates.padded_per_s = computed / seconds;
  if (const std::optional<EqualWork> equal = equal_work_spread(kept_durations, kept_work)) {
    rates.work_cov = equal->spread.cov, rates.work_tail = equal->spread.tail, rates.work_drift = equal->spread.drift;
    rates.work_explained = equal->explained;
  }
  return rates;
}

// --check_outputs: the saved inputs and outputs of the combination, the inputs on the device (packed for
// --batching unpadded); nullopt without the option.
std::optional<Reference> reference_of(const SweepPlan& plan, int64_t batch, int64_t input, const Model& model,
                                      Platform& platform) {
  if (!plan.args.check_outputs) return std::nullopt;
  const TokenFacts facts = model.facts().tokens;
  Reference reference = load_reference(*plan.args.check_outputs, input, batch, facts.vocab_size, facts.type_vocab_size);
  reference.inputs = to_device(reference.inputs, platform.facts().device);
  if (plan.batching == Batching::unpadded) pack_batch(reference.inputs);
  return reference;
}

// STAT, then NOTE: the verdict on the reps (contended, implausible against the run's `earlier` combinations,
// too few, noisy, unstable), a line upstream's process ignores. Adds this combination to `earlier`.
Verdict emit_stat_and_note(const SweepPlan& plan, int64_t batch, int64_t input, const Model& model,
                           const Timings& timings, const RepsWatch::Seen& seen, const Profiled& profiled,
                           const std::optional<EnergyWindow>& energy, const std::vector<RepTokens>& tokens,
                           std::vector<RunPoint>& earlier, std::ostream& out) {
  StatExtras extras;
  // Under a length distribution a rep's work is its own batch's: no one FLOP count for the combination.
  if (!plan.args.lengths) extras.work = work_of(plan, batch, input, model, profiled);
  extras.cpu = seen.cpu;
  extras.energy = energy;
  if (profiled.profile) extras.profile_ms = profiled.ms;
  extras.tokens = token_rates(plan, tokens, timings);
  const StatLine stat = make_stat_line(input, batch, stat_values(timings.stat), extras);
  emit(out, stat);
  const RunPoint point = run_point_of(input, batch, stat.fields);
  // Mixed lengths: the spread at equal work as STAT wrote it, read back as process reads it, so that the
  // NOTE line and process's verdict agree.
  const std::optional<Spread> equal_work = equal_work_spread_of_stat(stat.fields);
  const Verdict verdict = judge(equal_work ? *equal_work : spread_of_durations(timings.durations, timings.dropped),
                                seen.cpu, implausible_reason(point, earlier));
  earlier.push_back(point);
  emit(out, make_note_line(input, batch, verdict));
  return verdict;
}

// Where the device has an energy counter, the last rep's batch again, outside the timed reps, for as long as
// the counter needs (a second or more); nothing runs elsewhere.
std::optional<DeviceEnergy> energy_of(Model& model, Platform& platform, const Batch& batch) {
  return measure_device_energy(platform, [&] {
    model.forward(model.stage(batch));
    platform.synchronize();
  });
}

// The reps' request lengths under --input_lengths (nullopt without), told the warm-up STAT leaves out: sorted's
// windows do not cross it, so that the kept reps of every mode run the same requests.
std::optional<RepLengths> rep_lengths_of(const SweepPlan& plan, int64_t batch) {
  const FixedArgs& a = plan.args;
  if (!a.lengths) return std::nullopt;
  const int64_t warmup = a.warmup ? *a.warmup : static_cast<int64_t>(warmup_reps(static_cast<size_t>(a.reps)));
  return RepLengths(*a.lengths, plan.batching, batch, a.reps, warmup, a.sort_window, a.seed);
}

// One combination; throws whatever the model or the device throws. `where` names it for the progress lines;
// `earlier` holds the run's combinations so far (their STAT numbers), this one's added when it printed STAT.
Outcome run_combination(const SweepPlan& plan, int64_t batch, int64_t input, Model& model, Platform& platform,
                        InputGenerator& inputs, std::ostream& out, const std::string& where,
                        std::vector<RunPoint>& earlier, CpuReferenceCheck& cpu_check) {
  admit(batch, input, model, platform);
  const auto reps = static_cast<size_t>(plan.args.reps);
  std::vector<Nanos> t0s(reps), t1s(reps);  // reserved up front: nothing allocates between t0 and t1
  std::optional<Reference> reference = reference_of(plan, batch, input, model, platform);
  if (const std::optional<CompileFacts> compiled = model.prepare(batch, input)) emit(out, make_compile_line(*compiled));
  std::optional<RepLengths> lengths = rep_lengths_of(plan, batch);
  std::vector<RepTokens> tokens(reps);
  RepsWatch watch(platform);
  RepProgress progress(where, reps);
  const torch::Device device = platform.facts().device;  // read once: the cpu's facts read the thread counts
  Nanos spent = 0;
  Batch batch_inputs;
  torch::IValue outputs;
  for (size_t rep = 0; rep < reps; ++rep) {
    InterruptWatch::throw_if_interrupted();  // Ctrl-C: stopped between reps, where the log can say so
    outputs = torch::IValue();  // the last rep's outputs are freed before the next rep's inputs are made
    batch_inputs = rep_batch(plan, batch, input, reference ? &reference->inputs : nullptr, lengths, inputs, device);
    tokens[rep] = batch_tokens(batch_inputs, plan.batching);
    const Batch& fed = model.stage(batch_inputs);  // into a CUDA graph's static buffers, where there is one
    platform.synchronize();  // the inputs' copy to the device is not part of the measurement

    const Nanos t0 = clock_now();
    outputs = model.forward(fed);
    platform.synchronize();
    const Nanos t1 = clock_now();

    t0s[rep] = t0;
    t1s[rep] = t1;
    emit(out, RepLine{static_cast<int64_t>(rep + 1), plan.args.reps, t0, t1});
    spent += t1 - t0;
    progress.done(rep + 1, spent);
  }

  const RepsWatch::Seen seen = watch.stop(platform);  // the timed reps', not the profiler's
  check_mapped_files();  // weights cut short under the run read as zeros: these reps measured nothing real
  const Timings timings = timings_of(t0s, t1s, plan.args.warmup);
  const Summary& summary = timings.stat;
  const Checked check = outputs_checked(plan, batch, input, model, batch_inputs, outputs,
                                        reference ? &*reference : nullptr, cpu_check, out);
  outputs = torch::IValue();
  const std::optional<DeviceEnergy> energy = energy_of(model, platform, batch_inputs);
  const Profiled profiled = profile_rep(plan, batch, input, model, platform, batch_inputs);
  out << "\n";
  emit(out, make_res_line(t0s.front(), t1s.back(), plan.args.model_name, plan.args.model_class, input, batch,
                          latency_ms(timings.res), throughput(timings.res, batch)));
  const Verdict verdict = emit_stat_and_note(plan, batch, input, model, timings, seen, profiled,
                                             energy ? energy->window : std::nullopt, tokens, earlier, out);
  if (energy && !energy->window)  // a line process skips: the reason there is no energy figure
    out << fmt::format("energy (input {}, batch {}): no figure: {}\n", input, batch, energy->why_not);
  if (seen.mem) emit(out, make_mem_line(input, batch, *seen.mem));
  if (check.line) emit(out, *check.line);
  if (!check.note.empty()) out << log_text(check.note) << "\n";
  if (profiled.profile) emit_profile(out, batch, input, profiled);
  out.flush();
  progress_line(fmt::format("{}: p50 {} over {} kept reps, {}{}", where, duration_text(summary.p50),
                            summary.reps - summary.dropped, verdict_text(verdict.word),
                            profiled.profile ? ", profiled" : ""));
  return {check.pass, profiled.error};
}

// A combination that ran but did not pass: its CHECK line failed, or its --profile rep. Each told; returns how
// many (0 to 2).
int outcome_failures(const Outcome& outcome, const SweepPlan& plan, int64_t input, int64_t batch,
                     const std::function<void(const std::string&)>& tell) {
  int failures = 0;
  if (!outcome.check_pass) {
    ++failures;
    tell(fmt::format("combination input {} / batch {}: outputs differ from {} (see the FMWORK CHECK line); "
                     "the sweep goes on",
                     input, batch, *plan.args.check_outputs));
  }
  if (!outcome.profile_error.empty()) {
    ++failures;
    tell(fmt::format("combination input {} / batch {}: the --profile rep failed: {}; its timed reps stand, the "
                     "sweep goes on",
                     input, batch, outcome.profile_error));
  }
  return failures;
}

// The log's last line when a signal stopped the sweep at combination batch x input, `complete` before it.
void write_interrupt(std::ostream& out, int64_t input, int64_t batch, int signal, size_t complete,
                     size_t combinations) {
  out << "\n";
  emit(out, make_interrupt_line(input, batch, InterruptWatch::signal_name(signal), static_cast<int64_t>(complete),
                                static_cast<int64_t>(combinations)));
  flush_or_throw(out, "the log");
  progress_clear();
}

}  // namespace

Nanos clock_now() {
  static const Nanos offset = clock_ns(CLOCK_REALTIME) - clock_ns(CLOCK_MONOTONIC);
  return clock_ns(CLOCK_MONOTONIC) + offset;
}

int run_sweep(const SweepPlan& plan, Model& model, Platform& platform, InputGenerator& inputs, std::ostream& out,
              const FailureReport& report) {
  int failures = 0;
  auto tell = [&](const std::string& message) {
    progress_clear();
    if (report) report(message);
  };
  const size_t combinations = plan.args.batch_sizes.size() * plan.args.input_sizes.size();
  size_t k = 0;
  std::vector<RunPoint> earlier;  // what the plausibility check holds each combination to
  CpuReferenceCheck cpu_check(plan.cpu_reference, plan.check);
  if (const std::string line = cpu_check.plan_line(); !line.empty()) out << line << "\n";
  if (EnergyMeter* energy = platform.meters().energy.get(); energy && energy->joules())
    out << "energy: each combination's shape is run again after its timed reps, outside them, until the device's "
           "counter has stepped 10 times over at least 1 s (STAT joules_per_rep, watts, energy_window_s)\n";
  for (int64_t batch : plan.args.batch_sizes) {
    for (int64_t input : plan.args.input_sizes) {
      out << banner(fmt::format("RUN {} / {}", input, batch)) << std::flush;
      const std::string where =
          fmt::format("combination {} of {} (input {}, batch {})", ++k, combinations, input, batch);
      progress_live(where + ": preparing");
      if (!cpu_check.judged_wrong().empty()) out << cpu_check.judged_wrong() << "\n";
      std::string error;
      try {
        InterruptWatch::throw_if_interrupted();
        const Outcome outcome =
            run_combination(plan, batch, input, model, platform, inputs, out, where, earlier, cpu_check);
        failures += outcome_failures(outcome, plan, input, batch, tell);
      } catch (const Interrupted& stop) {  // the log's last line says where the sweep stopped
        write_interrupt(out, input, batch, stop.signal, k - 1, combinations);
        throw;
      } catch (const std::bad_alloc&) {
        error = "out of memory (std::bad_alloc)";
      } catch (const std::exception& e) {
        error = exception_cause(e);
      }
      if (!error.empty()) {
        ++failures;
        out << "\n";
        emit(out, make_fail_line(input, batch, error));
        out.flush();
        // A dead device context fails every combination after it the same way, and says nothing new: stop.
        if (const std::optional<std::string> fatal = platform.unrecoverable_error(error)) {
          flush_or_throw(out, "the log");
          progress_clear();
          throw runtime_error(fmt::format("combination input {} / batch {}: {}; the sweep stops ({} of {} "
                                          "combinations not run)",
                                          input, batch, *fatal, combinations - k, combinations));
        }
        tell(combination_failure(input, batch, error));
      }
      flush_or_throw(out, "the log");  // outside the try: a lost log ends the sweep, it is no combination's failure
    }
  }
  return failures;
}

}  // namespace fmwork
