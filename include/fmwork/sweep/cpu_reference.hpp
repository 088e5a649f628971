// Every run that is not CPU eager (--compile, or a device other than the CPU: CUDA, a plugin) is held against the
// same model eager on the CPU, by default: once a run, after the timed reps of its first combination, the first
// rows of that combination's last batch run again through the model as the loaders load it on the CPU, without
// compiling, and the run's outputs of those rows are compared with the CPU's by --check_outputs' comparison
// (saved_outputs.hpp's compare_outputs, its tolerances) into its CHECK line, with reference=cpu rows=N. A compiler
// or a device that computes wrong (a kernel stub returning uninitialised memory) then fails the run instead of
// timing wrong outputs with exit 0. --check_outputs:cpu@ False turns it off; --check_outputs DIR replaces it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <torch/torch.h>

#include "fmwork/domain/run_options.hpp"
#include "fmwork/log/log_format.hpp"
#include "fmwork/model/model.hpp"
#include "fmwork/sweep/saved_outputs.hpp"

namespace fmwork {

// The most rows of the batch the CPU runs: a row or two keep a big GPU model's reference cheap on the host.
inline constexpr int64_t kCpuReferenceRows = 2;

// How to have the run's model eager on the CPU: the run's LoadRequest with the CPU as device and no compile,
// --eval applied as the run applied it. Throws what the loaders throw (a class with no eager path on the CPU).
struct CpuReference {
  std::function<std::unique_ptr<Model>()> load;
};

// Whether a run is held against the CPU: it is not CPU eager (`compiled`: --compile given and not disabled; or
// `device` is not the CPU), it has no --check_outputs DIR (`check_dir`: that file is its reference then), and
// --check_outputs:cpu@ is not False.
bool holds_against_cpu(bool compiled, const torch::Device& device, bool check_dir, const CheckOptions& options);

// The first `rows` rows of `fed` on the CPU, padded as `fed` is (its mask, lengths and padding; never packed):
// what the CPU model is given. rows must be from 1 to fed's batch.
Batch first_rows(const Batch& fed, int64_t rows);

// What the check made of a combination: its CHECK line when the outputs were compared (`pass` false when they
// differ beyond the tolerances, `failure` then the combination's FAIL reason), or `note`, one line saying why
// they could not be (nothing compared; the run goes on). All empty: no check on this combination.
struct CpuCheck {
  std::optional<CheckLine> line;
  bool pass = true;
  std::string failure;
  std::string note;
};

// Judges `run` (the run's model's outputs of the first rows, on the CPU) against `cpu` (the CPU model's of the
// same rows): the outputs both give, by name, compared as --check_outputs compares them (per-token outputs on the
// real tokens `real_tokens` marks, [rows, tokens]). A note instead of a line when no output is in both or one in
// both differs in shape. `dtype` names the tolerances' dtype in the failure.
CpuCheck judge_against_cpu(int64_t input, int64_t batch, const NamedTensors& run, const NamedTensors& cpu,
                           const Tolerance& tolerance, const std::string& dtype, const torch::Tensor& real_tokens);

// A run's check: made once, on the first combination whose timed reps completed; after a failure, a line for every
// later combination.
class CpuReferenceCheck {
 public:
  // `reference` nullopt: the run is not held against the CPU (holds_against_cpu); every call below does nothing.
  CpuReferenceCheck(std::optional<CpuReference> reference, CheckOptions options);

  // One line for the log before the first combination when the run is held against the CPU; "" otherwise.
  std::string plan_line() const;

  // After a combination's timed reps, before its RES: `fed` its last rep's batch (on the device) and `outputs`
  // what `model` gave for it. The first call loads the CPU model, runs the first rows (min(batch,
  // kCpuReferenceRows)) and judges; later calls return an empty CpuCheck. Never throws for a check that cannot
  // run (loading refused, weights beyond the host's available memory, a TorchScript model in training mode,
  // outputs that are not per row): the CpuCheck's note says why. The CPU model is freed before it returns.
  CpuCheck after_reps(int64_t input, int64_t batch, const Model& model, const Batch& fed,
                      const torch::IValue& outputs);

  // "" until a check failed; then the line each later combination carries: the run's outputs were judged wrong.
  const std::string& judged_wrong() const { return judged_wrong_; }

 private:
  CpuCheck judge(int64_t input, int64_t batch, const Model& model, const Batch& fed, const torch::IValue& outputs);

  std::optional<CpuReference> reference_;
  CheckOptions options_;
  bool done_ = false;
  std::string judged_wrong_;
};

}  // namespace fmwork
