// Fuzz target: the tokenizer files (hf/special_tokens). The input is up to three texts separated by NUL bytes:
// tokenizer.json, tokenizer_config.json, special_tokens_map.json; an empty text is a file that is absent.
#include <optional>
#include <string>
#include <string_view>

#include "fmwork/hf/special_tokens.hpp"
#include "fmwork/base/json_input.hpp"
#include "fuzz_support.hpp"

namespace {

std::optional<fmwork::hf::TokenizerFile> file_of(std::string_view text, const std::string& path) {
  if (text.empty()) return std::nullopt;
  return fmwork::hf::TokenizerFile{path, fmwork::parse_json(text, path)};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view rest = fmwork::fuzz::as_text(data, size);
  std::string_view parts[3];
  for (auto& part : parts) {
    const size_t cut = rest.find('\0');
    part = rest.substr(0, cut);
    rest = cut == std::string_view::npos ? std::string_view() : rest.substr(cut + 1);
  }
  fmwork::fuzz::refusal_allowed([&] {
    fmwork::hf::TokenizerFiles files;
    files.tokenizer = file_of(parts[0], "m/tokenizer.json");
    files.tokenizer_config = file_of(parts[1], "m/tokenizer_config.json");
    files.special_tokens_map = file_of(parts[2], "m/special_tokens_map.json");
    fmwork::hf::EncoderConfig config;
    config.vocab_size = 30522;
    config.pad_token_id = 0;
    const auto tokens = fmwork::hf::special_tokens_from(files, config);
    for (const int64_t id : tokens.ids)
      if (id < 0 || id >= config.vocab_size) __builtin_trap();
  });
  return 0;
}
