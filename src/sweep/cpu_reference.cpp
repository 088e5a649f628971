// The check against the CPU eager model (see cpu_reference.hpp).
#include "fmwork/sweep/cpu_reference.hpp"

#include <algorithm>
#include <new>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "fmwork/base/host_memory.hpp"
#include "fmwork/base/text_format.hpp"
#include "fmwork/runtime/exception_cause.hpp"

namespace fmwork {
namespace {

constexpr const char* kNotChecked = "cpu reference: not checked: ";

CpuCheck noted(const std::string& why) {
  CpuCheck c;
  c.note = kNotChecked + why + "; the run goes on unchecked";
  return c;
}

std::vector<std::string> names_of(const NamedTensors& named) {
  std::vector<std::string> names;
  for (const auto& entry : named) names.push_back(entry.first);
  return names;
}

// The host must hold a second copy of the weights: where it plainly cannot, the check is not tried (an OOM kill
// would end the run that the check is only there to vouch for). "" when they fit or cannot be told.
std::string weights_beyond_host(const ModelFacts& facts) {
  const std::optional<c10::ScalarType> dtype = float_dtype_of(facts.dtype_name);
  const std::optional<MemoryBudget> host = host_available_memory();
  if (!dtype || !host || facts.parameter_count <= 0) return "";
  const auto bytes = static_cast<uint64_t>(facts.parameter_count) * c10::elementSize(*dtype);
  if (bytes <= host->bytes) return "";
  return fmt::format("the model's weights ({}) would not fit in the host's available memory ({}, {})",
                     bytes_text(bytes, 2, ByteUnit::GiB), bytes_text(host->bytes, 2, ByteUnit::GiB), host->source);
}

// The run's outputs of the first `rows` rows, on the CPU; an output without a row per sequence cannot be cut to
// them: its name, in `skipped`.
NamedTensors first_rows_of(const NamedTensors& outputs, int64_t batch, int64_t rows, std::vector<std::string>& skipped) {
  NamedTensors out;
  for (const auto& [name, t] : outputs) {
    if (t.dim() >= 1 && t.size(0) == batch)
      out.emplace_back(name, t.detach().narrow(0, 0, rows).cpu());
    else
      skipped.push_back(name);
  }
  return out;
}

}  // namespace

bool holds_against_cpu(bool compiled, const torch::Device& device, bool check_dir, const CheckOptions& options) {
  return (compiled || !device.is_cpu()) && !check_dir && options.cpu;
}

Batch first_rows(const Batch& fed, int64_t rows) {
  Batch b;
  b.input_ids = fed.input_ids.narrow(0, 0, rows).cpu();
  b.attention_mask = fed.attention_mask.narrow(0, 0, rows).cpu();
  b.token_type_ids = fed.token_type_ids.narrow(0, 0, rows).cpu();
  b.padded = fed.padded;
  if (!fed.lengths.empty()) b.lengths.assign(fed.lengths.begin(), fed.lengths.begin() + rows);
  return b;
}

CpuCheck judge_against_cpu(int64_t input, int64_t batch, const NamedTensors& run, const NamedTensors& cpu,
                           const Tolerance& tolerance, const std::string& dtype, const torch::Tensor& real_tokens) {
  NamedTensors got, want;
  for (const auto& [name, reference] : cpu) {
    const auto it = std::find_if(run.begin(), run.end(), [&name = name](const auto& r) { return r.first == name; });
    if (it == run.end()) continue;
    if (it->second.sizes() != reference.sizes())
      return noted(fmt::format("output {} is [{}] from the run's model, [{}] from the CPU's", name,
                               fmt::join(it->second.sizes(), ", "), fmt::join(reference.sizes(), ", ")));
    got.push_back(*it), want.emplace_back(name, reference);
  }
  if (want.empty())
    return noted(fmt::format("no output in common: the run's model gives {}, the CPU's {}",
                             fmt::join(names_of(run), ","), fmt::join(names_of(cpu), ",")));
  const CheckResult r = compare_outputs(got, want, tolerance, real_tokens);
  CheckFacts f;
  f.reference = "cpu";
  f.rows = real_tokens.size(0);
  f.outputs = r.names;
  f.max_abs = r.max_abs, f.max_rel = r.max_rel, f.cosine = r.cosine;
  f.atol = tolerance.atol, f.rtol = tolerance.rtol, f.min_cosine = tolerance.cosine;
  f.pass = r.pass;
  CpuCheck c;
  c.line = make_check_line(input, batch, f);
  c.pass = r.pass;
  if (!r.pass)
    c.failure = fmt::format("outputs differ from the same model eager on the CPU beyond {}'s tolerances (the batch's "
                            "first {} rows; see the FMWORK CHECK line): the run's outputs are judged wrong",
                            dtype, f.rows);
  return c;
}

CpuReferenceCheck::CpuReferenceCheck(std::optional<CpuReference> reference, CheckOptions options)
    : reference_(std::move(reference)), options_(options) {}

std::string CpuReferenceCheck::plan_line() const {
  if (!reference_) return "";
  return fmt::format("cpu reference: after the first combination's reps, its first {} rows run again through the "
                     "same model eager on the CPU, compared in one FMWORK CHECK line (--check_outputs:cpu@ False: "
                     "not checked)",
                     kCpuReferenceRows);
}

CpuCheck CpuReferenceCheck::after_reps(int64_t input, int64_t batch, const Model& model, const Batch& fed,
                                       const torch::IValue& outputs) {
  if (!reference_ || done_) return {};
  done_ = true;
  CpuCheck c;
  try {
    c = judge(input, batch, model, fed, outputs);
  } catch (const std::bad_alloc&) {
    return noted("out of memory on the host (std::bad_alloc)");
  } catch (const std::exception& e) {
    return noted(exception_cause(e));
  }
  if (!c.pass)
    judged_wrong_ = fmt::format("cpu reference: this run's outputs were judged wrong at input {} / batch {} (its "
                                "FMWORK CHECK and FAIL lines): these figures time a model whose outputs differ from "
                                "the CPU's",
                                input, batch);
  return c;
}

CpuCheck CpuReferenceCheck::judge(int64_t input, int64_t batch, const Model& model, const Batch& fed,
                                  const torch::IValue& outputs) {
  const ModelFacts facts = model.facts();
  if (const std::string beyond = weights_beyond_host(facts); !beyond.empty()) return noted(beyond);
  const std::unique_ptr<Model> cpu_model = reference_->load();
  // Without --eval a TorchScript module runs its dropout, if it has one: two runs of it differ by chance alone. A
  // module without the attribute (one defined in C++) has no training mode: is_training() would say it has.
  if (torch::jit::Module* module = cpu_model->torchscript_module();
      module && module->hasattr("training") && module->is_training())
    return noted("the TorchScript model runs in training mode (no --eval), where dropout would make any two runs "
                 "differ; give --eval to check it");
  const int64_t rows = std::min(batch, kCpuReferenceRows);
  const Batch slice = first_rows(fed, rows);
  std::vector<std::string> skipped;
  const NamedTensors run = first_rows_of(name_outputs(outputs, facts.output_names), batch, rows, skipped);
  if (run.empty())
    return noted(fmt::format("the run's outputs ({}) have no row per sequence to compare", fmt::join(skipped, ",")));
  torch::NoGradGuard no_grad;  // the check is no part of what --torch.call:set_grad_enabled measures
  cpu_model->prepare(rows, slice.input_ids.size(1));
  const torch::IValue cpu_outputs = cpu_model->forward(cpu_model->stage(slice));
  const NamedTensors cpu = name_outputs(cpu_outputs, cpu_model->facts().output_names);
  return judge_against_cpu(input, batch, run, cpu, tolerance_for(facts.dtype_name, options_), facts.dtype_name,
                           slice.attention_mask);
}

}  // namespace fmwork
