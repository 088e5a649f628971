// The special token ids of a model folder (hf/special_tokens): every source, and hostile tokenizer files.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fmwork/base/error.hpp"
#include "fmwork/hf/special_tokens.hpp"
#include "support/temp_dir.hpp"

namespace {

using fmwork::Error;
using fmwork::ErrorKind;
using fmwork::hf::EncoderConfig;
using fmwork::hf::read_special_tokens;

// A BERT-like config: vocab 30522, pad 0.
EncoderConfig bert_config() {
  EncoderConfig c;
  c.vocab_size = 30522;
  c.pad_token_id = 0;
  return c;
}

// The message of the runtime Error read_special_tokens throws for the folder, checked to be one line.
std::string tokens_error(const fmwork::TempDir& dir) {
  try {
    read_special_tokens(dir.path(), bert_config());
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::runtime) << e.what();
    std::string m = e.what();
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    return m;
  }
  ADD_FAILURE() << "no error for " << dir.path();
  return "";
}

TEST(HfSpecialTokens, FromEverySource) {
  fmwork::TempDir dir;
  EncoderConfig c = bert_config();
  c.vocab_size = 1000;
  c.sep_token_id = 102;
  // tokenizer.json: special added tokens by id; the vocab for string lookups.
  dir.write("tokenizer.json", R"({
    "added_tokens": [{"id": 100, "content": "[UNK]", "special": true}, {"id": 500, "content": "hello", "special": false},
                     {"id": 5000, "content": "[BIG]", "special": true}],
    "model": {"vocab": {"[CLS]": 101, "[MASK]": 103, "[EXTRA]": 7, "a": 8}}})");
  // tokenizer_config.json: added_tokens_decoder and a token string.
  dir.write("tokenizer_config.json", R"({
    "added_tokens_decoder": {"103": {"content": "[MASK]", "special": true}, "9": {"content": "b", "special": false}},
    "cls_token": "[CLS]"})");
  // special_tokens_map.json: strings, one as an object, one unknown, one null (no such token).
  dir.write("special_tokens_map.json", R"({
    "mask_token": {"content": "[MASK]", "lstrip": true}, "pad_token": null,
    "additional_special_tokens": ["[EXTRA]", "[NOT-IN-VOCAB]"]})");
  auto s = read_special_tokens(dir.path(), c);
  EXPECT_EQ(s.ids, (std::vector<int64_t>{0, 7, 100, 101, 102, 103}));
  EXPECT_EQ(s.sources.size(), 4u);
}

TEST(HfSpecialTokens, UnigramVocabIsAListOfPairs) {
  fmwork::TempDir dir;
  dir.write("tokenizer.json", R"({"model": {"vocab": [["<s>", 0.0], ["<pad>", 0.0], ["</s>", 0.0]]}})");
  dir.write("special_tokens_map.json", R"({"eos_token": "</s>"})");
  EXPECT_EQ(read_special_tokens(dir.path(), bert_config()).ids, (std::vector<int64_t>{0, 2}));
}

TEST(HfSpecialTokens, ConfigOnlyAndBadFiles) {
  fmwork::TempDir dir;
  EncoderConfig c = bert_config();
  c.bos_token_id = 3;
  auto s = read_special_tokens(dir.path(), c);
  EXPECT_EQ(s.ids, (std::vector<int64_t>{0, 3}));
  dir.write("tokenizer_config.json", "{oops");
  EXPECT_NE(tokens_error(dir).find("tokenizer_config.json: not valid JSON"), std::string::npos);
}

// A field of the wrong JSON type is refused, naming the file, the field and the type expected: the
// tokenizer would not read such a file either, and skipping it would change which ids count as special.
TEST(HfSpecialTokens, WrongTypesAreRefusedNamingFileAndField) {
  struct Case {
    const char* file;
    const char* text;
    const char* expect;
  } cases[] = {
      {"tokenizer_config.json", R"({"cls_token": 5})",
       "tokenizer_config.json: cls_token must be a token string or an object with a string \"content\", not 5"},
      {"special_tokens_map.json", R"({"mask_token": {"lstrip": true}})",
       "special_tokens_map.json: mask_token must be a token string or an object with a string \"content\", not {\"lstrip\":true}"},
      {"special_tokens_map.json", R"({"additional_special_tokens": "[X]"})",
       "special_tokens_map.json: additional_special_tokens must be a list of token strings, not \"[X]\""},
      {"special_tokens_map.json", R"({"additional_special_tokens": ["[X]", 7]})",
       "special_tokens_map.json: additional_special_tokens[1] must be a token string or an object"},
      {"tokenizer.json", R"({"added_tokens": "x"})",
       "tokenizer.json: added_tokens must be a list of {\"id\", \"content\", ...} objects, not \"x\""},
      {"tokenizer.json", R"({"added_tokens": [7]})",
       "tokenizer.json: added_tokens[0] must be an object with an integer \"id\" and a string \"content\", not 7"},
      {"tokenizer.json", R"({"added_tokens": [{"id": "1", "content": "a"}]})",
       "tokenizer.json: added_tokens[0].id must be an integer, not \"1\""},
      {"tokenizer.json", R"({"added_tokens": [{"id": 1, "content": "a", "special": 5}]})",
       "tokenizer.json: added_tokens[0].special must be true or false, not 5"},
      {"tokenizer.json", R"({"model": []})", "tokenizer.json: model must be an object, not []"},
      {"tokenizer.json", R"({"model": {"vocab": 3}})",
       "tokenizer.json: model.vocab must be an object {token: id} or a list of [token, score] pairs, not 3"},
      {"tokenizer.json", R"({"model": {"vocab": {"a": "1"}}})",
       "tokenizer.json: model.vocab entry a must be an integer token id, not \"1\""},
      {"tokenizer.json", R"({"model": {"vocab": [["a", 0.0], 2]}})",
       "tokenizer.json: model.vocab[1] must be a [token, score] pair, not 2"},
      {"tokenizer_config.json", R"({"added_tokens_decoder": []})",
       "tokenizer_config.json: added_tokens_decoder must be an object {\"<id>\": {\"content\", \"special\"}}, not []"},
      {"tokenizer_config.json", R"({"added_tokens_decoder": {"x1": {"content": "a"}}})",
       "tokenizer_config.json: added_tokens_decoder key x1 must be a token id (an integer)"},
      {"tokenizer_config.json", R"({"added_tokens_decoder": {"1": "a"}})",
       "tokenizer_config.json: added_tokens_decoder[\"1\"] must be an object with a string \"content\", not \"a\""},
      {"tokenizer_config.json", R"({"added_tokens_decoder": {"1": {"content": "a", "special": "yes"}}})",
       "tokenizer_config.json: added_tokens_decoder[\"1\"].special must be true or false, not \"yes\""},
      {"tokenizer_config.json", "[1, 2]", "tokenizer_config.json: must be a JSON object, not [1,2]"},
  };
  for (const auto& c : cases) {
    fmwork::TempDir dir;
    dir.write(c.file, c.text);
    const std::string m = tokens_error(dir);
    EXPECT_EQ(m.rfind(dir.path() + "/" + c.expect, 0), 0u) << c.text << " -> " << m;
  }
}

}  // namespace
