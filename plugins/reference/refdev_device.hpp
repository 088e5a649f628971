// refdev's device memory statistics (the device itself registers with LibTorch when the library loads).
#pragma once

#include <cstdint>
#include <string>

namespace refdev {

// Names PrivateUse1 "refdev" and registers its hooks, once per process; "" on success, else why not.
std::string register_device();

int64_t current_bytes();  // bytes allocated on the device now
int64_t peak_bytes();     // the most allocated at once since the last reset_peak_bytes()
void reset_peak_bytes();  // starts a new peak from what is allocated now
// Operators run so far through the CPU fallback (every operator except empty, copy, views and resize):
// device work, as opposed to moving tensors.
uint64_t fallback_calls();

}  // namespace refdev
