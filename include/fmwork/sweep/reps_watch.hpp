// What a combination's reps were given, read before the first rep and after the last, never inside one: the
// CPU the process got (on the CPU only: a device's reps leave the host threads waiting on purpose) and the
// memory peaks (the device's, the host's resident set, reset first where the kernel allows). The device's
// energy is measured after the reps, over a window of its own (device_energy.hpp): theirs is too short.
#pragma once

#include <optional>

#include "fmwork/base/cpu_use.hpp"
#include "fmwork/log/log_format.hpp"
#include "fmwork/platform/platform.hpp"

namespace fmwork {

class RepsWatch {
 public:
  struct Seen {
    std::optional<CpuUse> cpu;      // on the CPU only
    std::optional<MemFacts> mem;    // nullopt: neither the device nor the host reports a peak
  };
  // Before the first rep: resets the device's peaks (where it has a meter) and the host's, and samples the CPU.
  explicit RepsWatch(Platform& platform);
  // After the last rep's synchronisation: what the reps were given since the constructor.
  Seen stop(Platform& platform) const;

 private:
  bool host_peak_reset_ = false;
  std::optional<CpuSample> cpu_before_;
};

}  // namespace fmwork
