// Seeded random weights. See random_fill.hpp.
#include "random_fill.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>

#include <ATen/CPUGeneratorImpl.h>

#include "fmwork/base/error.hpp"
#include "fmwork/base/host_memory.hpp"
#include "fmwork/base/text_format.hpp"

namespace fmwork::hf {

NormalFiller::NormalFiller(uint64_t seed, double std_dev, double cutoff) : state_(seed ^ 0x6a09e667f3bcc909ull) {
  at::Generator gen = at::detail::createCPUGenerator(seed);
  const auto options = at::TensorOptions().dtype(at::kFloat);
  if (cutoff <= 0) {
    pool_ = at::empty({kPool + kRun}, options).normal_(0.0, std_dev, gen);
    return;
  }
  // trunc_normal_: u uniform between the normal CDF at -cutoff and +cutoff, then the inverse CDF.
  const double lo = 0.5 * (1 + std::erf(-cutoff / std::sqrt(2.0))), hi = 0.5 * (1 + std::erf(cutoff / std::sqrt(2.0)));
  pool_ = at::empty({kPool + kRun}, options).uniform_(2 * lo - 1, 2 * hi - 1, gen);
  pool_.erfinv_().mul_(std_dev * std::sqrt(2.0)).clamp_(-cutoff * std_dev, cutoff * std_dev);
}

at::Tensor NormalFiller::operator()(const std::vector<int64_t>& shape) {
  at::Tensor t = at::empty(shape, at::TensorOptions().dtype(at::kFloat));
  float* out = t.data_ptr<float>();
  const float* pool = pool_.data_ptr<float>();
  const int64_t n = t.numel();
  for (int64_t i = 0; i < n; i += kRun) {
    const int64_t len = std::min<int64_t>(kRun, n - i);
    std::memcpy(out + i, pool + next() % kPool, static_cast<size_t>(len) * sizeof(float));
  }
  return t;
}

uint64_t NormalFiller::next() {
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

void check_random_weights_fit(const EncoderConfig& c, const NamedShapes& shapes, at::ScalarType dtype) {
  long double bytes = 0, largest = 0;
  for (const auto& [name, shape] : shapes) {
    long double numel = 1;
    for (int64_t d : shape) numel *= static_cast<long double>(d);
    bytes += numel * static_cast<long double>(at::elementSize(dtype));
    largest = std::max(largest, numel * 4);  // each is drawn in float32, then converted
  }
  const std::optional<MemoryBudget> budget = host_available_memory();
  if (!budget || bytes + largest <= static_cast<long double>(budget->bytes)) return;
  const uint64_t need = static_cast<uint64_t>(std::min(bytes + largest, 0x1p63L));
  throw runtime_error(c.source + ": random weights for this config need " + bytes_text(need, 2, ByteUnit::GiB) +
                      " but the host has " + bytes_text(budget->bytes, 2, ByteUnit::GiB) + " available (" + budget->source +
                      "); lower its sizes (" + c.summary() + ")");
}

}  // namespace fmwork::hf
