// JSON from outside, read with depth and size limits (see json_input.hpp).
#include "fmwork/base/json_input.hpp"

#include <algorithm>
#include <string_view>
#include <utility>
#include <unordered_set>
#include <vector>

#include "fmwork/base/error.hpp"
#include "fmwork/base/regular_file.hpp"

namespace fmwork {

using json = nlohmann::json;

namespace {

struct TooDeep {};
struct DuplicateKey {
  std::string key;
};
// nlohmann's parse error with where it happened: the DOM parser rethrows it as its base class, whose type
// (and the byte offset of parse_error) is lost on the way.
struct ParseFailure {
  size_t byte = 0;
  std::string reason;
};

// nlohmann's DOM builder behind a depth count. Not json::parse with a callback: its callback parser scans
// the enclosing object for discarded values at every object's end, quadratic in the object's width
// (a safetensors header of 100,000 tensors took minutes).
class LimitedDomParser {
 public:
  LimitedDomParser(json& result, const JsonKeyObserver& observe) : dom_(result), observe_(observe) {}

  bool null() { return dom_.null(); }
  bool boolean(bool v) { return dom_.boolean(v); }
  bool number_integer(json::number_integer_t v) { return dom_.number_integer(v); }
  bool number_unsigned(json::number_unsigned_t v) { return dom_.number_unsigned(v); }
  bool number_float(json::number_float_t v, const json::string_t& s) { return dom_.number_float(v, s); }
  bool string(json::string_t& v) { return dom_.string(v); }
  bool binary(json::binary_t& v) { return dom_.binary(v); }
  bool start_object(std::size_t n) {
    if (!open()) return false;
    keys_.emplace_back();
    return dom_.start_object(n);
  }
  bool key(json::string_t& k) {
    if (observe_) observe_(depth_, k);
    // JSON would keep the last of two equal keys and drop the first without a word ("runs" twice in an
    // experiment file): refused instead, in every file read through here.
    if (!keys_.back().insert(k).second) throw DuplicateKey{k};
    return dom_.key(k);
  }
  bool end_object() {
    keys_.pop_back();
    return --depth_, dom_.end_object();
  }
  bool start_array(std::size_t n) { return open() && dom_.start_array(n); }
  bool end_array() { return --depth_, dom_.end_array(); }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) {
    throw ParseFailure{position, json_error_reason(e)};
  }

 private:
  bool open() {
    if (++depth_ > kMaxJsonDepth) throw TooDeep{};  // the 65th level is refused as it opens
    return true;
  }
  nlohmann::detail::json_sax_dom_parser<json> dom_;
  const JsonKeyObserver& observe_;
  int depth_ = 0;
  std::vector<std::unordered_set<std::string>> keys_;  // the keys of each object open, innermost last
};

// The line and column of byte `offset` of `text` (1-based, the column in bytes).
std::pair<size_t, size_t> line_and_column(std::string_view text, size_t offset) {
  offset = std::min(offset, text.size());
  size_t line = 1, line_start = 0;
  for (size_t i = 0; i < offset; ++i)
    if (text[i] == '\n') ++line, line_start = i + 1;
  return {line, offset - line_start + 1};
}

}  // namespace

// What nlohmann says, in our words: its own "[json.exception.parse_error.101] " prefix (and a parse error's
// "parse error at line 1, column 3: ") left out, and the "; last read: '...'" part, which echoes the file's
// bytes. "syntax error while parsing value - invalid literal; expected ..." stays.
std::string json_error_reason(const nlohmann::json::exception& e) {
  std::string reason = e.what();
  if (const size_t close = reason.find("] "); reason.rfind("[json.exception.", 0) == 0 && close != std::string::npos)
    reason = reason.substr(close + 2);
  if (const size_t colon = reason.find(": "); reason.rfind("parse error", 0) == 0 && colon != std::string::npos)
    reason = reason.substr(colon + 2);
  if (const size_t last = reason.find("; last read: "); last != std::string::npos) {
    const size_t expected = reason.rfind("; expected ");
    reason = reason.substr(0, last) + (expected != std::string::npos && expected > last ? reason.substr(expected) : "");
  }
  return excerpt(reason, 160);
}

nlohmann::json parse_json(std::string_view text, const std::string& source, const JsonKeyObserver& observe) {
  // nlohmann's lexer takes a NUL byte for the end of the input: what followed one ("{...}\0{junk") was
  // never read, and the file passed. JSON text has no NUL outside a \u0000 escape, so one is refused.
  if (const size_t nul = text.find('\0'); nul != std::string_view::npos) {
    const auto [line, column] = line_and_column(text, nul);
    throw runtime_error(source + ": not valid JSON at line " + std::to_string(line) + ", column " +
                        std::to_string(column) + " (a NUL byte; JSON is text: is it the right file?)");
  }
  try {
    json result;
    LimitedDomParser parser(result, observe);
    json::sax_parse(text.begin(), text.end(), &parser);
    return result;
  } catch (const TooDeep&) {
    throw runtime_error(source + ": the JSON is nested deeper than " + std::to_string(kMaxJsonDepth) +
                        " levels; it is not a file this program reads");
  } catch (const DuplicateKey& d) {
    throw runtime_error(source + ": the key \"" + excerpt(d.key) +
                        "\" appears twice in one object; JSON would keep only the last: remove one");
  } catch (const ParseFailure& e) {
    const auto [line, column] = line_and_column(text, e.byte > 0 ? e.byte - 1 : 0);
    throw runtime_error(source + ": not valid JSON at line " + std::to_string(line) + ", column " +
                        std::to_string(column) + " (" + e.reason + ")");
  } catch (const json::exception& e) {
    throw runtime_error(source + ": not valid JSON (" + json_error_reason(e) + ")");
  }
}

nlohmann::json read_json_file(const std::string& path, size_t max_bytes) {
  refuse_special_file(path);
  return parse_json(read_file(path, max_bytes), path);
}

const nlohmann::json& json_member(const nlohmann::json& value, const char* key) {
  static const nlohmann::json absent;
  const auto it = value.find(key);  // end() for a value that is not an object
  return it == value.end() ? absent : *it;
}

std::string json_excerpt(const nlohmann::json& value) {
  return excerpt(value.dump(-1, ' ', false, json::error_handler_t::replace));
}

}  // namespace fmwork
