// Memory admission (admission.hpp).
#include "fmwork/sweep/admission.hpp"

#include <optional>
#include <string>

#include <fmt/format.h>

#include "fmwork/base/error.hpp"
#include "fmwork/base/host_memory.hpp"
#include "fmwork/base/text_format.hpp"

namespace fmwork {

void admit(int64_t batch, int64_t input, const Model& model, Platform& platform) {
  const ModelFacts facts = model.facts();
  std::optional<uint64_t> activations =
      facts.activation_bytes ? std::optional<uint64_t>(facts.activation_bytes(batch, input)) : std::nullopt;
  AvailableMemoryMeter* meter = platform.meters().available_memory.get();
  std::optional<MemoryBudget> budget = meter ? meter->read() : std::nullopt;
  std::string where = platform.facts().name;
  const bool on_host = !budget;
  if (on_host) {
    // A platform that reports no memory (a plugin): the inputs are still made on the host before they move,
    // so they at least are held to the host's memory; the activations, on the device, are not.
    budget = host_available_memory();
    activations.reset();
    where = "the host (where --platform " + platform.facts().name + "'s inputs are made)";
  }
  if (!budget) return;
  const long double inputs = 3.0L * static_cast<long double>(batch) * static_cast<long double>(input) * sizeof(int64_t);
  const long double need = inputs + static_cast<long double>(activations.value_or(0));
  if (need <= static_cast<long double>(budget->bytes)) return;
  const auto size = [](long double b) {  // in GiB, so that the estimate and the limit compare at a glance
    return b >= 0x1p63L ? std::string("over 8 EiB") : bytes_text(static_cast<uint64_t>(b), 2, ByteUnit::GiB);
  };
  const std::string parts = on_host      ? size(inputs) + " of inputs"
                            : activations ? size(inputs) + " of inputs + " + size(*activations) + " of activations"
                                          : size(inputs) + " of inputs; the model gives no activation estimate";
  throw runtime_error(fmt::format("batch {} x input {} needs an estimated {} ({}) but {} has {} available ({}); "
                                  "lower --batch_sizes or --input_sizes",
                                  batch, input, size(need), parts, where, size(budget->bytes), budget->source));
}

}  // namespace fmwork
