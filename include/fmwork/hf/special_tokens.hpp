// The special token ids of a model folder, gathered from every place Hugging Face keeps them, so that the
// input generator can avoid them as upstream's does.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fmwork/hf/config.hpp"

namespace fmwork::hf {

struct SpecialTokens {
  std::vector<int64_t> ids;          // sorted, unique, each in [0, vocab_size)
  std::vector<std::string> sources;  // the files that contributed ("tokenizer.json", "config.json", ...)
};

// Reads, when present in `folder`:
//   tokenizer.json          added_tokens[] with "special": true (their "id")
//   tokenizer_config.json   added_tokens_decoder {"<id>": {"content", "special": true}}, and the
//                           *_token strings (bos_token, ..., also {"content": ...} objects)
//   special_tokens_map.json the *_token strings and additional_special_tokens
//   config.json             pad/bos/eos/cls/sep/unk/mask _token_id
// Token strings are looked up in tokenizer.json (added_tokens, then model.vocab); strings that cannot be
// resolved are skipped. Ids outside [0, vocab_size) are dropped. Unreadable or invalid files are runtime
// Errors naming the file.
SpecialTokens read_special_tokens(const std::string& folder, const EncoderConfig& config);

}  // namespace fmwork::hf
