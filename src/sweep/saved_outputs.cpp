#include "fmwork/sweep/saved_outputs.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "fmwork/base/error.hpp"
#include "fmwork/model/inputs.hpp"
#include "fmwork/model/safetensors.hpp"

namespace fmwork {
namespace {

bool is_input_name(const std::string& name) {
  return std::find(model_input_names().begin(), model_input_names().end(), name) != model_input_names().end();
}

void collect(const torch::IValue& v, const std::string& name, NamedTensors& out) {
  if (v.isTensor()) out.emplace_back(name, v.toTensor());
}

// A per-token output must be [batch, tokens, ...] of the batch's `tokens` ([batch, tokens]) to be cut to its
// real tokens: anything else is an output misnamed, said rather than guessed at.
void require_per_token_shape(const std::string& name, const torch::Tensor& t, const torch::Tensor& tokens,
                             const char* what) {
  if (t.dim() >= 2 && t.size(0) == tokens.size(0) && t.size(1) == tokens.size(1)) return;
  throw runtime_error(fmt::format("{}: output {} is per token by its name, but it is [{}], not [{}, {}, ...] "
                                  "(batch, tokens)",
                                  what, name, fmt::join(t.sizes(), ", "), tokens.size(0), tokens.size(1)));
}

std::string outputs_file_name(int64_t input, int64_t batch) { return fmt::format("{}x{}.safetensors", input, batch); }

}  // namespace

OutputRole output_role(const std::string& name) {
  for (const char* per_token : {"last_hidden_state", "hidden_states", "token_embeddings"})
    if (name == per_token) return OutputRole::per_token;
  for (const char* per_sequence : {"pooler_output", "pooled_output", "sentence_embedding"})
    if (name == per_sequence) return OutputRole::per_sequence;
  return OutputRole::unknown;
}

NamedTensors real_tokens_only(NamedTensors named, const Batch& fed) {
  if (fed.lengths.empty()) return named;
  const torch::Tensor padding = fed.attention_mask.eq(0);
  for (auto& [name, t] : named) {
    if (output_role(name) != OutputRole::per_token) continue;
    require_per_token_shape(name, t, padding, "--save_outputs");
    auto shape = padding.sizes().vec();
    shape.resize(static_cast<size_t>(t.dim()), 1);
    t = t.masked_fill(padding.to(t.device()).view(shape), 0);
  }
  return named;
}

NamedTensors name_outputs(const torch::IValue& outputs, const std::vector<std::string>& names) {
  NamedTensors out;
  auto name_at = [&](size_t i) { return i < names.size() ? names[i] : "output_" + std::to_string(i); };
  if (outputs.isTensor()) {
    collect(outputs, name_at(0), out);
  } else if (outputs.isTuple()) {
    const auto& elements = outputs.toTupleRef().elements();
    for (size_t i = 0; i < elements.size(); ++i) collect(elements[i], name_at(i), out);
  } else if (outputs.isList()) {
    const auto list = outputs.toListRef();
    for (size_t i = 0; i < list.size(); ++i) collect(list[i], name_at(i), out);
  } else if (outputs.isGenericDict()) {
    for (const auto& entry : outputs.toGenericDict())
      collect(entry.value(), entry.key().isString() ? entry.key().toStringRef() : entry.key().tagKind(), out);
  }
  if (out.empty())
    throw runtime_error("the model's outputs (" + outputs.tagKind() + ") hold no tensors to save or check");
  return out;
}

void save_outputs(const std::string& dir, int64_t input, int64_t batch, const Batch& batch_inputs,
                  const std::vector<std::string>& fed, const NamedTensors& outputs) {
  NamedTensors tensors;
  for (const auto& name : fed) {
    const torch::Tensor& t = name == "input_ids"        ? batch_inputs.input_ids
                             : name == "attention_mask" ? batch_inputs.attention_mask
                                                        : batch_inputs.token_type_ids;
    tensors.emplace_back(name, t.cpu());
  }
  for (const auto& [name, t] : outputs) {
    if (is_input_name(name))
      throw runtime_error("--save_outputs: the model has an output named " + name + ", the name of an input");
    tensors.emplace_back(name, t.detach().cpu());
  }
  const std::string path = (std::filesystem::path(dir) / outputs_file_name(input, batch)).string();
  const std::string temporary = path + ".tmp" + std::to_string(::getpid());
  try {
    hf::write_safetensors(temporary, tensors, {{"format", "pt"}, {"writer", "fmwork-cpp driver --save_outputs"}});
    std::filesystem::rename(temporary, path);
  } catch (const std::exception& e) {
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
    throw runtime_error("--save_outputs: cannot write " + path + ": " + e.what());
  }
}

Reference load_reference(const std::string& dir, int64_t input, int64_t batch, int64_t vocab_size,
                         int64_t type_vocab_size) {
  const std::string path = (std::filesystem::path(dir) / outputs_file_name(input, batch)).string();
  if (!std::filesystem::is_regular_file(path))
    throw runtime_error("--check_outputs: " + path + " does not exist; make it with --save_outputs " + dir +
                        " (or a reference tool) for input " + std::to_string(input) + ", batch " + std::to_string(batch));
  auto file = hf::SafetensorsFile::open(path);
  // A batch of mixed lengths (--input_lengths) is saved padded to its longest request: [batch, T], T <= input.
  int64_t padded_to = input;
  if (const hf::TensorEntry* ids = file->find("input_ids");
      ids && ids->shape.size() == 2 && ids->shape[0] == batch && ids->shape[1] >= 1 && ids->shape[1] < input)
    padded_to = ids->shape[1];
  const auto expect_shape = std::vector<int64_t>{batch, padded_to};
  auto read_input = [&](const char* name) -> torch::Tensor {
    const hf::TensorEntry* entry = file->find(name);
    if (!entry) return {};
    if (entry->shape != expect_shape || !c10::isIntegralType(entry->scalar_type, /*includeBool=*/false))
      throw runtime_error(fmt::format("--check_outputs: {}: {} must be [{}, {}] integers; it is {} {}", path, name,
                                      batch, padded_to, entry->dtype, fmt::join(entry->shape, "x")));
    return file->tensor(name, torch::kLong).clone();
  };
  Reference ref;
  ref.inputs.input_ids = read_input("input_ids");
  if (!ref.inputs.input_ids.defined())
    throw runtime_error("--check_outputs: " + path + " has no input_ids: it cannot say what to feed");
  const int64_t lowest = ref.inputs.input_ids.min().item<int64_t>(), highest = ref.inputs.input_ids.max().item<int64_t>();
  if (lowest < 0 || highest >= vocab_size)
    throw runtime_error(fmt::format("--check_outputs: {}: input_ids hold ids {}..{}, outside the model's vocabulary "
                                    "0..{}: the file was made for another model",
                                    path, lowest, highest, vocab_size - 1));
  ref.inputs.attention_mask = read_input("attention_mask");
  if (!ref.inputs.attention_mask.defined()) ref.inputs.attention_mask = torch::ones({batch, padded_to}, torch::kLong);
  // Read on the host, before the move to the device: checking there would synchronise it.
  ref.inputs.padded = ref.inputs.attention_mask.eq(0).any().item<bool>();
  // Right-padded rows: their lengths, so that the outputs are compared on the real tokens and --batching
  // unpadded can pack them.
  if (ref.inputs.padded) ref.inputs.lengths = lengths_of_mask(ref.inputs.attention_mask);
  ref.inputs.token_type_ids = read_input("token_type_ids");
  if (!ref.inputs.token_type_ids.defined()) ref.inputs.token_type_ids = torch::zeros({batch, padded_to}, torch::kLong);
  const int64_t low_type = ref.inputs.token_type_ids.min().item<int64_t>();
  const int64_t high_type = ref.inputs.token_type_ids.max().item<int64_t>();
  if (type_vocab_size > 0 && (low_type < 0 || high_type >= type_vocab_size))  // else "index out of range in self"
    throw runtime_error(fmt::format("--check_outputs: {}: token_type_ids hold ids {}..{}, outside the model's token "
                                    "types 0..{} (type_vocab_size): the file was made for another model",
                                    path, low_type, high_type, type_vocab_size - 1));
  for (const auto& entry : file->entries())
    if (!is_input_name(entry.name)) ref.outputs.emplace_back(entry.name, file->tensor(entry.name).clone());
  if (ref.outputs.empty()) throw runtime_error("--check_outputs: " + path + " holds inputs but no outputs");
  return ref;
}

Tolerance tolerance_for(const std::string& dtype, const CheckOptions& options) {
  Tolerance t{1e-4, 1e-4, 0.99999};
  if (dtype == "float16") t = {2e-2, 2e-2, 0.9999};
  if (dtype == "bfloat16") t = {1e-1, 5e-2, 0.999};
  t.atol = options.atol.value_or(t.atol);
  t.rtol = options.rtol.value_or(t.rtol);
  t.cosine = options.cosine.value_or(t.cosine);
  return t;
}

CheckResult compare_outputs(const NamedTensors& got, const NamedTensors& want, const Tolerance& tolerance,
                            const torch::Tensor& real_tokens) {
  const torch::Tensor real = real_tokens.defined() ? real_tokens.ne(0).cpu() : torch::Tensor();
  CheckResult r;
  bool within = true;
  for (const auto& [name, reference] : want) {
    auto it = std::find_if(got.begin(), got.end(), [&](const auto& g) { return g.first == name; });
    if (it == got.end()) {
      std::vector<std::string> have;
      for (const auto& g : got) have.push_back(g.first);
      throw runtime_error(fmt::format("--check_outputs: the reference has output {}, the model gives {}", name,
                                      fmt::join(have, ", ")));
    }
    if (it->second.sizes() != reference.sizes())
      throw runtime_error(fmt::format("--check_outputs: output {} is [{}], the reference's is [{}]", name,
                                      fmt::join(it->second.sizes(), ", "), fmt::join(reference.sizes(), ", ")));
    auto a = it->second.detach().to(torch::kCPU, torch::kDouble);
    auto b = reference.to(torch::kCPU, torch::kDouble);
    if (real.defined() && output_role(name) == OutputRole::per_token) {
      // The real tokens' rows of both sides, chosen by the reference's own mask: the padding's values differ by
      // batching mode and by tool, and neither side is rewritten first.
      require_per_token_shape(name, b, real, "--check_outputs");
      a = a.index({real}), b = b.index({real});
    }
    a = a.flatten(), b = b.flatten();
    r.names.push_back(name);
    const auto diff = (a - b).abs();
    const auto magnitude = b.abs();
    // NaN anywhere makes the figure NaN (std::max and std::min would drop it) and the check fail.
    auto worst = [](double& slot, double x, bool larger) {
      if (std::isnan(x) || (larger ? x > slot : x < slot)) slot = std::isnan(slot) ? slot : x;
    };
    if (diff.numel() > 0) {
      worst(r.max_abs, diff.max().item<double>(), true);
      const auto nonzero = magnitude.ne(0);
      if (nonzero.any().item<bool>())
        worst(r.max_rel, (diff.masked_select(nonzero) / magnitude.masked_select(nonzero)).max().item<double>(), true);
      within = within && diff.le(magnitude * tolerance.rtol + tolerance.atol).all().item<bool>();
    }
    const double norms = (a.norm() * b.norm()).item<double>();
    worst(r.cosine, std::isnan(norms) ? norms : norms > 0 ? a.dot(b).item<double>() / norms : (a.equal(b) ? 1.0 : 0.0),
          false);
  }
  r.pass = within && r.cosine >= tolerance.cosine && std::isfinite(r.max_abs) && std::isfinite(r.cosine);
  return r;
}

}  // namespace fmwork
