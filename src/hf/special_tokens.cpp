// Special token ids of a model folder. See include/fmwork/hf/special_tokens.hpp.
#include "fmwork/hf/special_tokens.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include "fmwork/error.hpp"
#include "fmwork/json_input.hpp"

namespace fmwork::hf {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

const char* const kTokenKeys[] = {"bos_token", "eos_token", "unk_token", "sep_token",
                                  "pad_token", "cls_token", "mask_token"};

// A token string from "<s>" or {"content": "<s>", ...}; empty when neither.
std::string token_string(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_object() && v.contains("content") && v["content"].is_string()) return v["content"].get<std::string>();
  return "";
}

void collect_strings(const json& j, std::vector<std::string>& out) {
  if (!j.is_object()) return;
  for (const char* key : kTokenKeys)
    if (j.contains(key)) {
      auto s = token_string(j[key]);
      if (!s.empty()) out.push_back(s);
    }
  if (j.contains("additional_special_tokens") && j["additional_special_tokens"].is_array())
    for (const auto& v : j["additional_special_tokens"]) {
      auto s = token_string(v);
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
void read_vocab(const json& vocab, std::map<std::string, int64_t>& lookup) {
  if (vocab.is_object()) {
    for (auto it = vocab.begin(); it != vocab.end(); ++it)
      if (it.value().is_number_integer()) lookup.emplace(it.key(), it.value().get<int64_t>());
  } else if (vocab.is_array()) {
    for (size_t i = 0; i < vocab.size(); ++i)
      if (vocab[i].is_array() && !vocab[i].empty() && vocab[i][0].is_string())
        lookup.emplace(vocab[i][0].get<std::string>(), static_cast<int64_t>(i));
  }
}

void read_tokenizer_json(const json& j, Gathered& g) {
  if (j.is_object() && j.contains("added_tokens") && j["added_tokens"].is_array())
    for (const auto& t : j["added_tokens"]) {
      if (!t.is_object() || !t.contains("id")) continue;
      if (t.contains("content") && t["content"].is_string() && t["id"].is_number_integer())
        g.lookup[t["content"].get<std::string>()] = t["id"].get<int64_t>();
      if (t.value("special", false) && t["id"].is_number_integer()) g.ids.insert(t["id"].get<int64_t>());
    }
  if (j.is_object() && j.contains("model") && j["model"].is_object() && j["model"].contains("vocab"))
    read_vocab(j["model"]["vocab"], g.lookup);
}

// An added_tokens_decoder key: a whole decimal integer, or nothing.
std::optional<int64_t> decoder_id(const std::string& key) {
  try {
    size_t used = 0;
    int64_t id = std::stoll(key, &used);
    if (used != key.size()) return std::nullopt;
    return id;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

void read_tokenizer_config(const json& j, Gathered& g) {
  if (j.is_object() && j.contains("added_tokens_decoder") && j["added_tokens_decoder"].is_object())
    for (auto it = j["added_tokens_decoder"].begin(); it != j["added_tokens_decoder"].end(); ++it) {
      const std::optional<int64_t> id = decoder_id(it.key());
      if (!id) continue;
      const json& t = it.value();
      if (t.is_object()) {
        if (t.contains("content") && t["content"].is_string()) g.lookup.emplace(t["content"].get<std::string>(), *id);
        if (t.value("special", false)) g.ids.insert(*id);
      }
    }
  collect_strings(j, g.strings);
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

}  // namespace

SpecialTokens read_special_tokens(const std::string& folder, const EncoderConfig& config) {
  SpecialTokens out;
  Gathered g;
  const std::string tok = folder + "/tokenizer.json";
  if (fs::exists(fs::symlink_status(tok))) {  // a dangling link is refused, not skipped
    read_tokenizer_json(read_json_file(tok), g);
    out.sources.push_back("tokenizer.json");
  }
  const std::string tc = folder + "/tokenizer_config.json";
  if (fs::exists(fs::symlink_status(tc))) {  // a dangling link is refused, not skipped
    read_tokenizer_config(read_json_file(tc), g);
    out.sources.push_back("tokenizer_config.json");
  }
  const std::string sm = folder + "/special_tokens_map.json";
  if (fs::exists(fs::symlink_status(sm))) {  // a dangling link is refused, not skipped
    collect_strings(read_json_file(sm), g.strings);
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

}  // namespace fmwork::hf
