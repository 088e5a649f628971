// The special token ids of a model folder, gathered from every place Hugging Face keeps them, so that the
// input generator can avoid them as upstream's does.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fmwork/hf/config.hpp"

namespace fmwork::hf {

struct SpecialTokens {
  std::vector<int64_t> ids;          // sorted, unique, each in [0, vocab_size)
  std::vector<std::string> sources;  // the files that contributed ("tokenizer.json", "config.json", ...)
};

// One tokenizer file's JSON and its path (what messages name).
struct TokenizerFile {
  std::string path;
  nlohmann::json json;
};

// The tokenizer files of a folder, each absent or as read.
struct TokenizerFiles {
  std::optional<TokenizerFile> tokenizer;           // tokenizer.json
  std::optional<TokenizerFile> tokenizer_config;    // tokenizer_config.json
  std::optional<TokenizerFile> special_tokens_map;  // special_tokens_map.json
};

// What the files and config.json say:
//   tokenizer.json          added_tokens[] with "special": true (their "id")
//   tokenizer_config.json   added_tokens_decoder {"<id>": {"content", "special": true}}, and the
//                           *_token strings (bos_token, ..., also {"content": ...} objects)
//   special_tokens_map.json the *_token strings and additional_special_tokens
//   config.json             pad/bos/eos/cls/sep/unk/mask _token_id
// Token strings are looked up in tokenizer.json (added_tokens, then model.vocab); strings that cannot be
// resolved are skipped. Ids outside [0, vocab_size) are dropped. A file that is not a JSON object, or a
// field of the wrong JSON type ("cls_token": 5, "added_tokens": "x"), is a one-line runtime Error naming
// the file, the field and the type expected: such a file is not what the tokenizer reads either.
SpecialTokens special_tokens_from(const TokenizerFiles& files, const EncoderConfig& config);

// special_tokens_from on the files present in `folder`. Unreadable or invalid files are runtime Errors
// naming the file; a dangling link is refused, not skipped.
SpecialTokens read_special_tokens(const std::string& folder, const EncoderConfig& config);

}  // namespace fmwork::hf
