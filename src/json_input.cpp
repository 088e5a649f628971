// JSON from outside, read with depth and size limits (see json_input.hpp).
#include "fmwork/json_input.hpp"

#include <fstream>

#include "fmwork/error.hpp"
#include "fmwork/regular_file.hpp"

namespace fmwork {

using json = nlohmann::json;

namespace {

struct TooDeep {};

}  // namespace

nlohmann::json parse_json(std::string_view text, const std::string& source, const JsonObserver& observe) {
  try {
    // `depth` of a start event is the number of containers around it: the 65th level is refused as it opens.
    return json::parse(text.begin(), text.end(), [&](int depth, json::parse_event_t event, json& parsed) {
      if ((event == json::parse_event_t::object_start || event == json::parse_event_t::array_start) &&
          depth >= kMaxJsonDepth)
        throw TooDeep{};
      if (observe) observe(depth, event, parsed);
      return true;
    });
  } catch (const TooDeep&) {
    throw runtime_error(source + ": the JSON is nested deeper than " + std::to_string(kMaxJsonDepth) +
                        " levels; it is not a file this program reads");
  } catch (const json::exception& e) {
    throw runtime_error(source + ": not valid JSON: " + excerpt(e.what(), 200));
  }
}

nlohmann::json read_json_file(const std::string& path, size_t max_bytes) {
  refuse_special_file(path);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw runtime_error(path + ": cannot open");
  std::string text;
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    text.append(buffer, static_cast<size_t>(in.gcount()));
    if (text.size() > max_bytes)
      throw runtime_error(path + ": larger than " + std::to_string(max_bytes >> 20) + " MiB; it is not a file "
                          "this program reads");
  }
  if (in.bad()) throw runtime_error(path + ": cannot be read");
  return parse_json(text, path);
}

std::string json_excerpt(const nlohmann::json& value) {
  return excerpt(value.dump(-1, ' ', false, json::error_handler_t::replace));
}

}  // namespace fmwork
