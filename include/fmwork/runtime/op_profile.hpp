// One call under LibTorch's profiler (Kineto): its Chrome trace written to a file, and its operators summed
// by self time, for --profile's PROFILE lines. The sweep calls it for one extra rep after the timed ones.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <c10/core/DeviceType.h>

namespace fmwork {

// One operator (or, on a device, one kernel) summed over its calls.
struct OpTotal {
  std::string name;   // "aten::addmm"; a kernel's name as the device reports it
  std::string on;     // "cpu" for operators; "cuda" (the device type) for device kernels
  int64_t calls = 0;
  double self_ms = 0;   // its time less that of the operators it called (nested on the same thread)
  double total_ms = 0;  // its time with them
  double flops = 0;     // what the profiler's FLOP counter gave it (mm, addmm, bmm, baddbmm, conv; else 0)
};

struct OpProfile {
  std::vector<OpTotal> ops;   // every operator and kernel, by self time, largest first
  double cpu_self_ms = 0;     // all operators' self time together (what an operator's share is of)
  double device_self_ms = 0;  // all device kernels' time together; 0 when the device reported none
  // The FLOP counter over the matrix products (mm, addmm, bmm, baddbmm, convolutions), counted as
  // hf/forward_flops counts them: a lower bound where the model computes products the counter does not
  // know (scaled_dot_product_attention, oneDNN's packed linear layers).
  double counted_flops = 0;
  bool device_activities = false;  // whether the device was asked for its activities (cuda, plugin devices)
};

// Runs `call` once with the profiler on: CPU operators with their input shapes and FLOP counts, plus the
// device's own activities for cuda and plugin (PrivateUse1) devices (a plugin whose profiler cannot start
// is profiled on the CPU side only: device_activities false). Writes the Chrome trace (chrome://tracing,
// Perfetto) to `trace_path` whole: into a temporary file beside it, renamed over it only when `trace_path`
// is absent or a regular file. Kineto's own chatter on stderr ("profiler_start") is kept off the terminal.
// Throws a runtime Error naming trace_path when the trace cannot be written, and whatever `call` throws (the
// profiler stopped first).
OpProfile profile_call(const std::function<void()>& call, c10::DeviceType device, const std::string& trace_path);

// The share of `op`'s self time in its side's total (cpu or device), in [0, 1]; 0 when that total is 0.
double self_share(const OpProfile& profile, const OpTotal& op);

}  // namespace fmwork
