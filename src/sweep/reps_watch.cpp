// What a combination's reps were given (see reps_watch.hpp).
#include "fmwork/sweep/reps_watch.hpp"

#include <ATen/Parallel.h>

#include "fmwork/base/host_memory.hpp"

namespace fmwork {

RepsWatch::RepsWatch(Platform& platform) {
  if (MemoryPeakMeter* peaks = platform.meters().memory_peaks.get()) peaks->reset();
  host_peak_reset_ = reset_host_rss_peak();
  if (platform.facts().device.is_cpu()) cpu_before_ = sample_cpu();
}

RepsWatch::Seen RepsWatch::stop(Platform& platform) const {
  Seen seen;
  if (cpu_before_) seen.cpu = cpu_use(*cpu_before_, sample_cpu(), at::get_num_threads());
  MemoryPeakMeter* meter = platform.meters().memory_peaks.get();
  const std::optional<MemoryPeaks> peaks = meter ? meter->read() : std::nullopt;
  const std::optional<uint64_t> host_peak = host_rss_peak();
  if (!peaks && !host_peak) return seen;
  MemFacts& mem = seen.mem.emplace();
  if (peaks) {
    mem.allocated_peak_bytes = peaks->allocated_bytes, mem.reserved_peak_bytes = peaks->reserved_bytes;
    mem.weights_bytes = peaks->resident_bytes;
  }
  if (host_peak) mem.host_rss_peak_bytes = static_cast<int64_t>(*host_peak);
  mem.host_rss_of_reps = host_peak_reset_;
  return seen;
}

}  // namespace fmwork
