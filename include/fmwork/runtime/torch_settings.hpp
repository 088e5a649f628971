// What --torch.call:NAME VALUE and --torch.set:PATH VALUE do: each row of cli/torch_setting_table.hpp reaches
// the LibTorch function or global setting upstream's `torch.NAME(VALUE)` / `torch.PATH = VALUE` would.
// Validation runs before anything is loaded; application happens in RUNTIME.
#pragma once

#include <c10/core/Device.h>

#include <functional>
#include <string>
#include <vector>

#include "fmwork/domain/run_options.hpp"

namespace fmwork {

// Checks every name and value (cli/option_sets.hpp's torch_setting_value, through the tables the builders
// torch_calls_from and torch_sets_from read them with already); throws a usage Error naming the option
// (`--torch.call:set_num_threads`) and listing the known names or the expected type.
void validate_torch_settings(const TorchCalls& calls, const TorchSets& sets);

// The thread counts the math runtimes read from the environment, checked before anything runs:
// OMP_NUM_THREADS (a comma-separated list, OpenMP's nesting levels) and MKL_NUM_THREADS (one number), each a
// whole number from 1 to 4 per CPU when set. A bad value is otherwise ignored by libgomp after one raw line
// ("libgomp: Invalid value ...") or taken by MKL as 1 thread, silently. `getenv` reads a variable (nullptr:
// unset). Throws a one-line usage Error naming the variable, its value and what would be right.
void check_thread_environment(const std::function<const char*(const char*)>& getenv);

// Applies them in order (calls first, then sets, as upstream does) and returns one RUNTIME line each,
// e.g. "torch.call set_num_threads(2)". Throws a runtime Error when LibTorch refuses a value.
std::vector<std::string> apply_torch_settings(const TorchCalls& calls, const TorchSets& sets);

// Throws a usage Error when the backends.cuda.enable_*_sdp switches (applied by apply_torch_settings) leave
// scaled_dot_product_attention no kernel on `device` (the platform's, PlatformFacts::device; `platform` its
// --platform name, for the message): on the CPU its flash kernel (enable_flash_sdp switches it there too) and
// math; on CUDA those and the memory-efficient and cuDNN kernels. Another device (a plugin's) is not checked.
// Without it every combination failed with LibTorch's "No viable backend" line.
void check_sdpa_kernels(const c10::Device& device, const std::string& platform);

// Whether autograd should be on during the sweep: off unless --torch.call:set_grad_enabled@ True.
bool grad_enabled_requested(const TorchCalls& calls);

}  // namespace fmwork
