// The run dtype of a Hugging Face folder, as from_pretrained picks it: shared by the native loader
// (hf_model) and the folders compiled through transformers' own class (transformers_class_model).
#pragma once

#include <optional>
#include <string>

#include <c10/core/ScalarType.h>

namespace fmwork {

// --model:dtype (absent: float32, as from_pretrained; "auto": the config's torch_dtype, float32 when it has
// none), given as "float32" / "torch.float16" / "half" / ...; `config_dtype` is config.json's torch_dtype (or
// dtype) string. A usage Error naming the option for anything but float32, float16, bfloat16 or auto.
at::ScalarType resolve_dtype(const std::optional<std::string>& option, const std::optional<std::string>& config_dtype);

}  // namespace fmwork
