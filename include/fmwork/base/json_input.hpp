// JSON from outside (config.json, tokenizer files, safetensors headers, cache manifests), read with limits:
// nesting depth (a value nested 100,000 deep is refused before anything recurses over it: dump(), the
// message that quotes it, our own walks) and size; and JSON values quoted in messages at most 80 characters.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace fmwork {

// The deepest nesting of objects and arrays accepted (Hugging Face files nest 5 or 6 deep).
constexpr int kMaxJsonDepth = 64;
// The largest JSON files read, by kind, checked against the file's size before anything is read: parsing
// costs about 10 times a file's size in memory (a 230 MB file took ~2.4 GB), so each bound is what its kind
// needs. config.json, experiment files, safetensors indexes and manifests are KBs:
constexpr size_t kMaxJsonFileBytes = size_t{16} << 20;
// tokenizer.json of the largest vocabularies is tens of MB (Gemma 3's: 33 MB):
constexpr size_t kMaxTokenizerJsonBytes = size_t{64} << 20;
// a campaign's plan.json (about 1 KB a run: `driver run` refuses a plan that would not fit):
constexpr size_t kMaxPlanJsonBytes = size_t{64} << 20;

// Sees each object key as it is read, with its depth (1: a key of the top-level object); for checks of the
// caller's own, such as a duplicate tensor name (JSON would silently keep the last one).
using JsonKeyObserver = std::function<void(int depth, const std::string& key)>;

// Parses `text` in time linear in its size (a header of 100,000 entries is read in well under a second);
// throws a one-line runtime Error "<source>: ..." when it is not valid JSON ("not valid JSON at line L,
// column C (<why>)", never the library's text nor the file's bytes; a NUL byte anywhere is one such line),
// nests deeper than kMaxJsonDepth
// (refused as the deeper level opens, before anything recurses over it), or holds one key twice in an
// object ("the key \"runs\" appears twice ...": JSON would silently keep the last).
nlohmann::json parse_json(std::string_view text, const std::string& source, const JsonKeyObserver& observe = {});

// Reads and parses the file at `path`: a usage Error when it is a FIFO, directory or dangling link
// (refuse_special_file), runtime Errors naming the file when it cannot be read, is larger than `max_bytes`
// (read_file: refused from its size, before it is read) or is not valid JSON.
nlohmann::json read_json_file(const std::string& path, size_t max_bytes = kMaxJsonFileBytes);

// The member `key` of `value`; a null when `value` is not an object or has no such key, so that an optional
// field of untrusted JSON reads as absent (nlohmann's const operator[] on a missing key is undefined
// behaviour, and value() on a non-object throws its own type_error).
const nlohmann::json& json_member(const nlohmann::json& value, const char* key);

// The reason a nlohmann exception gives, without its "[json.exception.type_error.302] " prefix, nor the
// bytes of the input its parse errors quote; at most 160 characters.
std::string json_error_reason(const nlohmann::json::exception& e);

// A JSON value for a message: its compact text, at most 80 characters of it (excerpt), never throwing.
std::string json_excerpt(const nlohmann::json& value);

}  // namespace fmwork
