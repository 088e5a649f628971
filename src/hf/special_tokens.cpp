// Special token ids of a model folder. See include/fmwork/hf/special_tokens.hpp.
#include "fmwork/hf/special_tokens.hpp"

#include <filesystem>
#include <map>
#include <set>

#include "fmwork/base/error.hpp"
#include "fmwork/base/json_input.hpp"

namespace fmwork::hf {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

const char* const kTokenKeys[] = {"bos_token", "eos_token", "unk_token", "sep_token",
                                  "pad_token", "cls_token", "mask_token"};

[[noreturn]] void wrong_type(const std::string& path, const std::string& key, const std::string& expected,
                             const json& value) {
  throw runtime_error(path + ": " + key + " must be " + expected + ", not " + json_excerpt(value));
}

// A token string from "<s>" or {"content": "<s>", ...}; empty for null (the tokenizer has no such token).
std::string token_string(const json& v, const std::string& path, const std::string& key) {
  if (v.is_null()) return "";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_object() && json_member(v, "content").is_string()) return json_member(v, "content").get<std::string>();
  wrong_type(path, key, "a token string or an object with a string \"content\"", v);
}

// "special": true marks a special added token; absent means false.
bool special_flag(const json& token, const std::string& path, const std::string& key) {
  const json& v = json_member(token, "special");
  if (v.is_null()) return false;
  if (!v.is_boolean()) wrong_type(path, key + ".special", "true or false", v);
  return v.get<bool>();
}

void collect_strings(const TokenizerFile& f, std::vector<std::string>& out) {
  for (const char* key : kTokenKeys) {
    auto s = token_string(json_member(f.json, key), f.path, key);
    if (!s.empty()) out.push_back(s);
  }
  const json& extra = json_member(f.json, "additional_special_tokens");
  if (extra.is_null()) return;
  if (!extra.is_array()) wrong_type(f.path, "additional_special_tokens", "a list of token strings", extra);
  for (size_t i = 0; i < extra.size(); ++i) {
    auto s = token_string(extra[i], f.path, "additional_special_tokens[" + std::to_string(i) + "]");
    if (!s.empty()) out.push_back(s);
  }
}

// What the files say, before token strings are resolved to ids.
struct Gathered {
  std::set<int64_t> ids;
  std::vector<std::string> strings;
  std::map<std::string, int64_t> lookup;  // token string -> id, from tokenizer.json
};

// model.vocab: a {token: id} object (WordPiece, BPE) or a [[token, score], ...] list (Unigram).
void read_vocab(const json& vocab, const std::string& path, std::map<std::string, int64_t>& lookup) {
  if (vocab.is_object()) {
    for (auto it = vocab.begin(); it != vocab.end(); ++it) {
      if (!it.value().is_number_integer())
        wrong_type(path, "model.vocab entry " + excerpt(it.key()), "an integer token id", it.value());
      lookup.emplace(it.key(), it.value().get<int64_t>());
    }
  } else if (vocab.is_array()) {
    for (size_t i = 0; i < vocab.size(); ++i) {
      if (!vocab[i].is_array() || vocab[i].empty() || !vocab[i][0].is_string())
        wrong_type(path, "model.vocab[" + std::to_string(i) + "]", "a [token, score] pair", vocab[i]);
      lookup.emplace(vocab[i][0].get<std::string>(), static_cast<int64_t>(i));
    }
  } else if (!vocab.is_null()) {
    wrong_type(path, "model.vocab", "an object {token: id} or a list of [token, score] pairs", vocab);
  }
}

void read_added_tokens(const TokenizerFile& f, Gathered& g) {
  const json& added = json_member(f.json, "added_tokens");
  if (added.is_null()) return;
  if (!added.is_array()) wrong_type(f.path, "added_tokens", "a list of {\"id\", \"content\", ...} objects", added);
  for (size_t i = 0; i < added.size(); ++i) {
    const std::string key = "added_tokens[" + std::to_string(i) + "]";
    const json& t = added[i];
    if (!t.is_object()) wrong_type(f.path, key, "an object with an integer \"id\" and a string \"content\"", t);
    if (!json_member(t, "id").is_number_integer()) wrong_type(f.path, key + ".id", "an integer", json_member(t, "id"));
    if (!json_member(t, "content").is_string()) wrong_type(f.path, key + ".content", "a string", json_member(t, "content"));
    const auto id = t["id"].get<int64_t>();
    g.lookup[t["content"].get<std::string>()] = id;
    if (special_flag(t, f.path, key)) g.ids.insert(id);
  }
}

void read_tokenizer_json(const TokenizerFile& f, Gathered& g) {
  read_added_tokens(f, g);
  const json& model = json_member(f.json, "model");
  if (model.is_null()) return;
  if (!model.is_object()) wrong_type(f.path, "model", "an object", model);
  read_vocab(json_member(model, "vocab"), f.path, g.lookup);
}

// An added_tokens_decoder key: a whole decimal integer, as Python's int() reads it.
int64_t decoder_id(const std::string& key, const std::string& path) {
  try {
    size_t used = 0;
    const int64_t id = std::stoll(key, &used);
    if (used == key.size()) return id;
  } catch (const std::logic_error&) {  // invalid_argument, out_of_range: refused below
  }
  throw runtime_error(path + ": added_tokens_decoder key " + excerpt(key) + " must be a token id (an integer)");
}

void read_tokenizer_config(const TokenizerFile& f, Gathered& g) {
  const json& decoder = json_member(f.json, "added_tokens_decoder");
  if (!decoder.is_null() && !decoder.is_object())
    wrong_type(f.path, "added_tokens_decoder", "an object {\"<id>\": {\"content\", \"special\"}}", decoder);
  if (decoder.is_object())
    for (auto it = decoder.begin(); it != decoder.end(); ++it) {
      const int64_t id = decoder_id(it.key(), f.path);
      const std::string key = "added_tokens_decoder[\"" + excerpt(it.key()) + "\"]";
      const json& t = it.value();
      if (!t.is_object()) wrong_type(f.path, key, "an object with a string \"content\"", t);
      if (!json_member(t, "content").is_string()) wrong_type(f.path, key + ".content", "a string", json_member(t, "content"));
      g.lookup.emplace(t["content"].get<std::string>(), id);
      if (special_flag(t, f.path, key)) g.ids.insert(id);
    }
  collect_strings(f, g.strings);
}

// The *_token_id fields of config.json; true when any is set.
bool add_config_ids(const EncoderConfig& config, std::set<int64_t>& ids) {
  bool from_config = false;
  for (const auto& id : {config.pad_token_id, config.bos_token_id, config.eos_token_id, config.cls_token_id,
                         config.sep_token_id, config.unk_token_id, config.mask_token_id})
    if (id) {
      ids.insert(*id);
      from_config = true;
    }
  return from_config;
}

void require_object(const std::optional<TokenizerFile>& f) {
  if (f && !f->json.is_object()) throw runtime_error(f->path + ": must be a JSON object, not " + json_excerpt(f->json));
}

// The file `name` of `folder` read, or nothing when absent.
std::optional<TokenizerFile> read_if_present(const std::string& folder, const char* name) {
  const std::string path = folder + "/" + name;
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(path, ec))) return std::nullopt;  // a dangling link is refused, not skipped
  return TokenizerFile{path, read_json_file(path, kMaxTokenizerJsonBytes)};
}

}  // namespace

SpecialTokens special_tokens_from(const TokenizerFiles& files, const EncoderConfig& config) {
  SpecialTokens out;
  Gathered g;
  for (const auto* f : {&files.tokenizer, &files.tokenizer_config, &files.special_tokens_map}) require_object(*f);
  if (files.tokenizer) {
    read_tokenizer_json(*files.tokenizer, g);
    out.sources.push_back("tokenizer.json");
  }
  if (files.tokenizer_config) {
    read_tokenizer_config(*files.tokenizer_config, g);
    out.sources.push_back("tokenizer_config.json");
  }
  if (files.special_tokens_map) {
    collect_strings(*files.special_tokens_map, g.strings);
    out.sources.push_back("special_tokens_map.json");
  }
  for (const auto& s : g.strings) {
    auto it = g.lookup.find(s);
    if (it != g.lookup.end()) g.ids.insert(it->second);
  }
  if (add_config_ids(config, g.ids)) out.sources.push_back("config.json");
  for (int64_t id : g.ids)
    if (id >= 0 && id < config.vocab_size) out.ids.push_back(id);
  return out;
}

SpecialTokens read_special_tokens(const std::string& folder, const EncoderConfig& config) {
  TokenizerFiles files;
  files.tokenizer = read_if_present(folder, "tokenizer.json");
  files.tokenizer_config = read_if_present(folder, "tokenizer_config.json");
  files.special_tokens_map = read_if_present(folder, "special_tokens_map.json");
  return special_tokens_from(files, config);
}

}  // namespace fmwork::hf
