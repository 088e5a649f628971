// Tests of json_input: JSON from outside is refused past 64 levels of nesting (one-line runtime Error naming
// the file, no crash), past its size limit, when not valid; values are quoted at most 80 characters.
#include "fmwork/json_input.hpp"

#include <gtest/gtest.h>

#include "fmwork/error.hpp"
#include "temp_dir.hpp"

namespace fmwork {
namespace {

std::string nested(size_t levels, const std::string& open, const std::string& close) {
  std::string text;
  for (size_t i = 0; i < levels; ++i) text += open;
  text += "1";
  for (size_t i = 0; i < levels; ++i) text += close;
  return text;
}

// The runtime Error a call throws ("" when none).
template <typename F>
std::string runtime_message(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::runtime);
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    return e.what();
  }
  return "";
}

TEST(JsonInput, DeepNestingIsRefusedWithOneLine) {
  TempDir tmp("fmwork-json-test");
  const std::string path = tmp.write("config.json", "{\"a\": " + nested(100000, "[", "]") + "}");
  EXPECT_EQ(runtime_message([&] { read_json_file(path); }),
            path + ": the JSON is nested deeper than 64 levels; it is not a file this program reads");
  EXPECT_EQ(runtime_message([&] { parse_json(nested(100000, "{\"k\":", "}"), "tokenizer.json"); }),
            "tokenizer.json: the JSON is nested deeper than 64 levels; it is not a file this program reads");
  // 64 levels are read; the 65th is refused.
  EXPECT_EQ(parse_json(nested(64, "[", "]"), "x").dump(), nested(64, "[", "]"));
  EXPECT_NE(runtime_message([&] { parse_json(nested(65, "[", "]"), "x"); }), "");
}

TEST(JsonInput, InvalidAndOversizedFiles) {
  TempDir tmp("fmwork-json-test");
  const std::string bad = tmp.write("bad.json", "{\"a\": \n\x1b[2J");
  const std::string message = runtime_message([&] { read_json_file(bad); });
  EXPECT_EQ(message.rfind(bad + ": not valid JSON: ", 0), 0u) << message;
  const std::string big = tmp.write("big.json", "[" + std::string(2 << 20, ' ') + "]");
  EXPECT_EQ(runtime_message([&] { read_json_file(big, 1 << 20); }),
            big + ": larger than 1 MiB; it is not a file this program reads");
  EXPECT_EQ(read_json_file(big).dump(), "[]");
  EXPECT_EQ(runtime_message([&] { read_json_file(tmp.path() + "/absent.json"); }),
            tmp.path() + "/absent.json: cannot open");
}

TEST(JsonInput, ObserverSeesEvents) {
  int keys = 0;
  parse_json(R"({"a": 1, "b": {"c": 2}})", "x", [&](int depth, nlohmann::json::parse_event_t event, const nlohmann::json&) {
    if (event == nlohmann::json::parse_event_t::key && depth == 1) ++keys;
  });
  EXPECT_EQ(keys, 2);
}

TEST(JsonInput, ExcerptQuotesAtMost80CharactersOnOneLine) {
  EXPECT_EQ(json_excerpt(nlohmann::json(std::string(1000, 'x'))), "\"" + std::string(79, 'x') + "...");
  EXPECT_EQ(json_excerpt(nlohmann::json::parse(R"({"a": [1, 2]})")), R"({"a":[1,2]})");
  EXPECT_EQ(json_excerpt(nlohmann::json("\xff")), "\"\xef\xbf\xbd\"");  // invalid UTF-8 does not throw
}

}  // namespace
}  // namespace fmwork
