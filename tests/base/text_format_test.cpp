// Tests of text_format: byte sizes in each unit and the aligned tables of the cache report, the summary and
// the comparison (header measured or not, right-aligned columns, minimum widths, trimming, UTF-8 widths).
#include "fmwork/base/text_format.hpp"

#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include "fmwork/base/error.hpp"

namespace fmwork {
namespace {

TEST(TextFormat, BytesInTheLargestUnitReached) {
  EXPECT_EQ(bytes_text(0, 1), "0 B");
  EXPECT_EQ(bytes_text(1023, 1), "1023 B");
  EXPECT_EQ(bytes_text(1024, 1), "1.0 KiB");
  EXPECT_EQ(bytes_text(3ull << 29, 1), "1.5 GiB");
  EXPECT_EQ(bytes_text(5ull << 40, 1), "5.0 TiB");
  EXPECT_EQ(bytes_text(5ull << 50, 1), "5120.0 TiB");  // no unit past TiB
}

TEST(TextFormat, BytesInAGivenUnit) {
  EXPECT_EQ(bytes_text(3ull << 30, 2, ByteUnit::GiB), "3.00 GiB");
  EXPECT_EQ(bytes_text(0, 2, ByteUnit::GiB), "0.00 GiB");
  EXPECT_EQ(bytes_text(700ull << 20, 0, ByteUnit::MiB), "700 MiB");
  EXPECT_EQ(bytes_text(512, 0, ByteUnit::MiB), "0 MiB");
  EXPECT_EQ(bytes_text(1536, 1, ByteUnit::KiB), "1.5 KiB");
  EXPECT_EQ(bytes_text(80ull << 30, 1, ByteUnit::GiB), "80.0 GiB");
}

TEST(TextFormat, TableColumnsAsWideAsTheirWidestCell) {
  TableLayout layout;
  layout.right = {false, true};
  EXPECT_EQ(aligned_table({{"name", "size", "note"}, {"a", "1.0 KiB", "x"}, {"longer", "2 B", ""}}, layout),
            "name       size  note\n"
            "a       1.0 KiB  x\n"
            "longer      2 B\n");
  EXPECT_EQ(aligned_table({}), "");
}

TEST(TextFormat, TableMarginShortRowsAndUtf8) {
  TableLayout layout;
  layout.margin = "  ";
  EXPECT_EQ(aligned_table({{"k", "v"}, {"\xc3\xa9t\xc3\xa9", "1"}, {"x"}, {"y", "2", "dropped"}}, layout),
            "  k    v\n"
            "  \xc3\xa9t\xc3\xa9  1\n"
            "  x\n"
            "  y    2\n");
}

TEST(TextFormat, TableWithAnUnmeasuredHeaderMinimumWidthsAndNoTrim) {
  TableLayout layout;
  layout.right = {false, true, false};
  layout.min_width = {3, 6};
  layout.first_row_sets_width = false;
  layout.trim = false;
  EXPECT_EQ(aligned_table({{"a long header", "n", "flag"}, {"ab", "1.5", ""}, {"abcd", "12.25", "?"}}, layout),
            "a long header       n  flag\n"
            "ab       1.5  \n"
            "abcd   12.25  ?\n");
}

TEST(TextFormat, DisplayWidthCountsCharacters) {
  EXPECT_EQ(display_width(""), 0u);
  EXPECT_EQ(display_width("abc"), 3u);
  EXPECT_EQ(display_width("\xc3\xa9\xe2\x82\xac"), 2u);  // é€
}

}  // namespace
}  // namespace fmwork

namespace fmwork {
namespace {

TEST(TextFormat, SmallHelpersWrittenOnce) {
  EXPECT_EQ(plural(1, "log"), "1 log");
  EXPECT_EQ(plural(0, "log"), "0 logs");
  EXPECT_EQ(joined({}), "");
  EXPECT_EQ(joined({"a", "b", "c"}), "a, b, c");
  EXPECT_EQ(joined({"a", "b"}, "|"), "a|b");
  using Pieces = std::vector<std::string_view>;
  EXPECT_EQ(split("", ','), Pieces({""}));
  EXPECT_EQ(split("a", ','), Pieces({"a"}));
  EXPECT_EQ(split("a,,b,", ','), Pieces({"a", "", "b", ""}));
  EXPECT_EQ(split(",", ','), Pieces({"", ""}));
  EXPECT_EQ(shape_text({}), "[]");
  EXPECT_EQ(shape_text({2, 128, 384}), "[2, 128, 384]");
  EXPECT_TRUE(starts_with("--model:dtype", "--model:"));
  EXPECT_FALSE(starts_with("-m", "--model:"));
  EXPECT_TRUE(ends_with("x.safetensors", ".safetensors"));
  EXPECT_FALSE(ends_with("s", ".safetensors"));
  EXPECT_TRUE(ends_with("", ""));
}

TEST(TextFormat, LastLineSkipsBlankLinesAndTrailingSpace) {
  EXPECT_EQ(last_line("Traceback ...\n  File x\nerror: no torch \r\n\n  \n"), "error: no torch");
  EXPECT_EQ(last_line("one line"), "one line");
  EXPECT_EQ(last_line("\n \n\t\n"), "");
  EXPECT_EQ(last_line(""), "");
  EXPECT_EQ(last_line("first\n\n"), "first");
}

TEST(ClosestOption, EditDistanceAndTheNameMeant) {
  EXPECT_EQ(edit_distance("--formt", "--format"), 1u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance(std::string(10000, 'a'), std::string(10000, 'b')), 64u) << "words are cut to 64 bytes";
  const std::vector<std::string> names = {"--format", "--compare", "--match", "--fail-if-slower"};
  EXPECT_EQ(closest_option("--formt", names), std::optional<std::string>("--format"));
  EXPECT_EQ(closest_option("--fail-if-slow", names), std::optional<std::string>("--fail-if-slower"));
  EXPECT_EQ(closest_option("--reps", names), std::nullopt) << "nothing close: no guess";
  EXPECT_EQ(closest_option("SDPA", {"eager", "sdpa"}), std::optional<std::string>("sdpa")) << "case is no distance";
  EXPECT_EQ(closest_option("--FORMAT", names), std::optional<std::string>("--format"));
  // Defect: a word of 100,000 characters was "within a third of its length" of every name.
  EXPECT_EQ(closest_option("--" + std::string(100000, 'a'), names), std::nullopt) << "a pasted value is no typo";
}

TEST(TextFormat, OneTypoFromTakesOneSlipOnlyAndIgnoresCase) {
  const std::vector<std::string> classes = {"BertModel", "RobertaModel", "XLMRobertaModel", "AutoModel"};
  EXPECT_EQ(one_typo_from("BertModle", classes), std::optional<std::string>("BertModel")) << "two letters swapped";
  EXPECT_EQ(one_typo_from("BertMdel", classes), std::optional<std::string>("BertModel")) << "one letter missing";
  EXPECT_EQ(one_typo_from("BertModell", classes), std::optional<std::string>("BertModel")) << "one letter extra";
  EXPECT_EQ(one_typo_from("BertMudel", classes), std::optional<std::string>("BertModel")) << "one letter wrong";
  EXPECT_EQ(one_typo_from("bertmodel", classes), std::optional<std::string>("BertModel")) << "case only";
  // Classes of their own, two edits from a native one: no "correction".
  EXPECT_EQ(one_typo_from("AlbertModel", classes), std::nullopt);
  EXPECT_EQ(one_typo_from("DebertaModel", classes), std::nullopt);
  EXPECT_EQ(one_typo_from("BertMedol", classes), std::nullopt) << "a swap of letters apart is two edits";
  EXPECT_EQ(one_typo_from("cup", {"cpu", "cuda"}), std::optional<std::string>("cpu"));
  EXPECT_EQ(one_typo_from("", {"cpu"}), std::nullopt);
  EXPECT_EQ(one_typo_from(std::string(10000, 'x'), {"cpu"}), std::nullopt);
  EXPECT_EQ(one_typo_from(std::string(64, 'a') + "b", {std::string(64, 'a') + "c"}), std::nullopt)
      << "past the 64 bytes edit_distance reads, nothing is a typo of anything";
}

TEST(TextFormat, DidYouMeanIsTheHintOrNothing) {
  EXPECT_EQ(did_you_mean(std::optional<std::string>("--reps")), "; did you mean --reps?");
  EXPECT_EQ(did_you_mean(std::nullopt), "");
}

// A command line's word with a control character is refused naming its option, whichever way it was given.
TEST(TextFormat, ControlCharactersInWordsAreRefusedNamingTheOption) {
  const auto error_of = [](const std::vector<std::string>& words) -> std::string {
    try {
      refuse_control_characters(words);
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::usage) << fmt::format("words {}", fmt::join(words, " "));
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(error_of({"--model_name", "m", "--reps", "2", "plain"}), "");
  EXPECT_EQ(error_of({"--model_name", "m\nFMWORK RES 1"}),
            "--model_name: the value contains a line break; give it on one line, without control characters");
  EXPECT_EQ(error_of({"--model_name=m\r"}),
            "--model_name: the value contains a line break; give it on one line, without control characters");
  EXPECT_EQ(error_of({"--seed", "1\t2"}), "--seed: the value contains a control character (\\t); give it on one "
                                          "line, without control characters");
  EXPECT_EQ(error_of({"log\x1b[2J.txt"}), "'log\\x1b[2J.txt': the value contains a control character (\\x1b); give "
                                           "it on one line, without control characters");
  EXPECT_NE(error_of({"--a\nb"}).find("--a\\nb: the value contains a line break"), std::string::npos)
      << fmt::format("an option name with a line break is named, escaped: {}", error_of({"--a\nb"}));
  for (int c = 0; c < 0x20; ++c) {
    EXPECT_NE(error_of({"--x", std::string("a") + static_cast<char>(c)}), "") << fmt::format("byte {:#x} passed", c);
  }
  EXPECT_NE(error_of({"--x", "\x7f"}), "") << "DEL passed";
  EXPECT_EQ(error_of({"--x", "caf\xc3\xa9"}), "") << "UTF-8 is text, not a control character";
}

// The serving options' numbers: decimal as people type it, and nothing strtod would read besides ("0x10" was 16).
TEST(TextFormat, ParseDecimalTakesDecimalNumbersOnly) {
  for (const auto& [text, value] : std::vector<std::pair<std::string, double>>{
           {"20", 20}, {"2.5", 2.5}, {".5", 0.5}, {"5.", 5}, {"1e3", 1000}, {"1E-2", 0.01}, {"007", 7}}) {
    EXPECT_EQ(parse_decimal(text), std::optional<double>(value)) << fmt::format("'{}'", text);
  }
  for (const char* text : {"0x10", "0X1p4", "inf", "nan", "infinity", "+1", "-1", "1e", "1e+", "1.2.3", " 1", "1 ",
                           "", ".", "e3", "1,5", "1e999", "20qps"}) {
    EXPECT_EQ(parse_decimal(text), std::nullopt) << fmt::format("'{}' was read as {}", text, parse_decimal(text).value_or(-1));
  }
}

}  // namespace
}  // namespace fmwork
