// The --torch.call:NAME and --torch.set:PATH names, one row each: the only list of them. cli/option_sets makes
// each a key row of the torch.call or torch.set table, as every sub-option set's keys are (the name check, the
// value's type and range, --help and docs/options.md); runtime/torch_settings applies each through a switch
// over TorchSetting with no default, compiled with -Werror=switch, so that a row whose LibTorch side is not
// written fails to compile (Python.UnwiredTableRowFailsToCompile) instead of being accepted on the command
// line and refused, or ignored, at run time.
#pragma once

#include "fmwork/base/python_value.hpp"

// TORCH(id, set, name, type, example, check, help)
//   id       the TorchSetting enumerator
//   set      call: upstream's torch.NAME(VALUE); set: torch.PATH = VALUE
//   type     the Value::Type the value must have (a plain value that reads as it is taken as typed)
//   example  what follows the option in an example ("@ True", " high")
//   check    the range check beyond the type (TorchCheck)
#define FMWORK_TORCH_SETTINGS(TORCH)                                                                            \
  TORCH(set_grad_enabled, call, "set_grad_enabled", boolean, "@ True", none,                                   \
        "autograd during the sweep (off unless True here; upstream leaves it on)")                             \
  TORCH(set_num_threads, call, "set_num_threads", integer, "@ 2", thread_count,                                \
        "intra-op threads (default: one per physical core); at most 4 per CPU")                                \
  TORCH(set_num_interop_threads, call, "set_num_interop_threads", integer, "@ 1", thread_count,                \
        "inter-op threads; at most 4 per CPU")                                                                 \
  TORCH(manual_seed, call, "manual_seed", integer, "@ 0", none, "LibTorch's global seed")                      \
  TORCH(set_float32_matmul_precision, call, "set_float32_matmul_precision", string, " high", matmul_precision, \
        "highest, high or medium: how far float32 products may trade precision for speed (TF32 on CUDA)")      \
  TORCH(use_deterministic_algorithms, call, "use_deterministic_algorithms", boolean, "@ True", none,           \
        "deterministic kernels only")                                                                          \
  TORCH(set_flush_denormal, call, "set_flush_denormal", boolean, "@ True", none,                               \
        "flush denormal floats to zero (refused on a CPU that cannot)")                                        \
  TORCH(sdp_flash, call, "backends.cuda.enable_flash_sdp", boolean, "@ False", none,                           \
        "the flash sdpa kernel (CUDA's, and the CPU's too)")                                                    \
  TORCH(sdp_mem_efficient, call, "backends.cuda.enable_mem_efficient_sdp", boolean, "@ False", none,           \
        "the memory-efficient sdpa kernel on CUDA")                                                            \
  TORCH(sdp_math, call, "backends.cuda.enable_math_sdp", boolean, "@ False", none,                             \
        "the math (unfused) sdpa kernel")                                                                      \
  TORCH(sdp_cudnn, call, "backends.cuda.enable_cudnn_sdp", boolean, "@ False", none,                           \
        "cuDNN's sdpa kernel on CUDA (skipped anyway where the shape follows the requests)")                   \
  TORCH(cudnn_benchmark, set, "backends.cudnn.benchmark", boolean, "@ True", none,                             \
        "cuDNN picks the fastest algorithm per shape")                                                         \
  TORCH(cudnn_deterministic, set, "backends.cudnn.deterministic", boolean, "@ True", none,                     \
        "deterministic cuDNN algorithms only")                                                                 \
  TORCH(cudnn_allow_tf32, set, "backends.cudnn.allow_tf32", boolean, "@ False", none,                          \
        "TF32 in cuDNN convolutions")                                                                          \
  TORCH(cudnn_enabled, set, "backends.cudnn.enabled", boolean, "@ False", none, "cuDNN at all")                \
  TORCH(cuda_matmul_allow_tf32, set, "backends.cuda.matmul.allow_tf32", boolean, "@ True", none,               \
        "TF32 in cuBLAS matrix products")                                                                      \
  TORCH(mkldnn_enabled, set, "backends.mkldnn.enabled", boolean, "@ False", none,                              \
        "oneDNN (MKL-DNN) kernels on the CPU")

namespace fmwork {

#define FMWORK_TORCH_ENUMERATOR(id, ...) id,
enum class TorchSetting { FMWORK_TORCH_SETTINGS(FMWORK_TORCH_ENUMERATOR) };
#undef FMWORK_TORCH_ENUMERATOR

// A value's check beyond its type: none, a thread count (1 to kMaxThreadsPerCpu per CPU), a matmul precision
// by name (highest, high, medium).
enum class TorchCheck { none, thread_count, matmul_precision };

}  // namespace fmwork
