// JSON from outside, read with depth and size limits (see json_input.hpp).
#include "fmwork/base/json_input.hpp"


#include "fmwork/base/error.hpp"
#include "fmwork/base/regular_file.hpp"

namespace fmwork {

using json = nlohmann::json;

namespace {

struct TooDeep {};

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
  bool start_object(std::size_t n) { return open() && dom_.start_object(n); }
  bool key(json::string_t& k) {
    if (observe_) observe_(depth_, k);
    return dom_.key(k);
  }
  bool end_object() { return --depth_, dom_.end_object(); }
  bool start_array(std::size_t n) { return open() && dom_.start_array(n); }
  bool end_array() { return --depth_, dom_.end_array(); }
  bool parse_error(std::size_t position, const std::string& token, const nlohmann::detail::exception& e) {
    return dom_.parse_error(position, token, e);  // throws e: the message names line, column and token
  }

 private:
  bool open() {
    if (++depth_ > kMaxJsonDepth) throw TooDeep{};  // the 65th level is refused as it opens
    return true;
  }
  nlohmann::detail::json_sax_dom_parser<json> dom_;
  const JsonKeyObserver& observe_;
  int depth_ = 0;
};

}  // namespace

nlohmann::json parse_json(std::string_view text, const std::string& source, const JsonKeyObserver& observe) {
  try {
    json result;
    LimitedDomParser parser(result, observe);
    json::sax_parse(text.begin(), text.end(), &parser);
    return result;
  } catch (const TooDeep&) {
    throw runtime_error(source + ": the JSON is nested deeper than " + std::to_string(kMaxJsonDepth) +
                        " levels; it is not a file this program reads");
  } catch (const json::exception& e) {
    throw runtime_error(source + ": not valid JSON: " + excerpt(e.what(), 200));
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
