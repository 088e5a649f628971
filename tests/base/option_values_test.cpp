// Tests of the typed option readers: each refusal is one usage line naming the option and what would be right.
#include "fmwork/base/option_values.hpp"

#include <functional>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "fmwork/base/error.hpp"
#include "support/cli_fixtures.hpp"

namespace fmwork {
namespace {

using cli_fixtures::usage_refusal;

TEST(OptionValues, DigitsAndPythonIntegers) {
  EXPECT_EQ(parse_digits("007"), std::optional<int64_t>(7));
  EXPECT_EQ(parse_digits("000000000000000000000001"), std::optional<int64_t>(1));  // zeros are no digits of the value
  EXPECT_EQ(parse_digits("999999999999999999"), std::optional<int64_t>(999999999999999999));
  for (const char* bad : {"", "+1", "-1", " 1", "1_000", "0x10", "1e3", "9999999999999999999"})
    EXPECT_EQ(parse_digits(bad), std::nullopt) << bad;
  EXPECT_EQ(parse_python_int("1_000"), std::optional<int64_t>(1000));
  EXPECT_EQ(parse_python_int("-3"), std::optional<int64_t>(-3));
  EXPECT_EQ(parse_python_int("12345678901234567890123"), std::numeric_limits<int64_t>::max());
  for (const char* bad : {"", "_1", "1_", "1__0", "ten", "1.0"}) EXPECT_EQ(parse_python_int(bad), std::nullopt) << bad;
}

TEST(OptionValues, IntegersSayTheRangeOrWhatWasExpected) {
  const IntegerRule users{1, 100, "a number of users from 1 to 100"};
  EXPECT_EQ(read_integer("--users", "42", users), 42);
  EXPECT_EQ(usage_refusal([&] { read_integer("--users", "0", users); }), "--users expects a number of users from 1 to 100; got '0'");
  EXPECT_EQ(usage_refusal([&] { read_integer("--users", "x", users); }), "--users expects a number of users from 1 to 100; got 'x'");
  const IntegerRule count{0, 9, "a non-negative integer", std::string(" seconds"), true};
  EXPECT_EQ(read_integer("--wait", "0", count), 0);
  EXPECT_EQ(usage_refusal([&] { read_integer("--wait", "-5", count); }), "--wait -5 is out of range: it must be from 0 to 9 seconds");
  EXPECT_EQ(usage_refusal([&] { read_integer("--wait", "two", count); }), "--wait expects a non-negative integer; got 'two'");
  EXPECT_EQ(usage_refusal([&] { read_integer("--wait", "12345678901234567890123", count); }),
            "--wait 12345678901234567890123 is out of range: it must be from 0 to 9 seconds");
  EXPECT_EQ(integer_within("--threads", 4, 1, 8), 4);
  EXPECT_EQ(usage_refusal([] { integer_within("--threads", 0, 1, 8); }), "--threads must be a positive integer; got 0");
  EXPECT_EQ(usage_refusal([] { integer_within("--threads", 9, 1, 8, " (here)"); }), "--threads must be at most 8 (here); got 9");
}

TEST(OptionValues, DecimalsAreStrictAndBounded) {
  const DecimalRule seconds{0, true, 60, "seconds above 0 and at most 60"};
  EXPECT_DOUBLE_EQ(read_decimal("--s", "2.5", seconds), 2.5);
  EXPECT_DOUBLE_EQ(read_decimal("--s", "60", seconds), 60);
  for (const char* bad : {"0", "61", "0x10", "inf", "nan", "-1", " 5", ""})
    EXPECT_EQ(usage_refusal([&] { read_decimal("--s", bad, seconds); }),
              std::string("--s expects seconds above 0 and at most 60; got '") + bad + "'");
}

TEST(OptionValues, ListsHandEachItemOnAndAreBounded) {
  std::vector<std::string> items;
  read_items("a,,b", 3, "too many", [&](const std::string& item) { items.push_back(item); });
  EXPECT_EQ(items, (std::vector<std::string>{"a", "", "b"}));
  EXPECT_EQ(usage_refusal([] { read_items("1,2,3,4", 3, "--x lists more than 3", [](const std::string&) {}); }),
            "--x lists more than 3");
}

TEST(OptionValues, ChoicesOfferTheValueMeant) {
  EXPECT_EQ(read_choice("--format", "csv", {"json", "csv"}), "csv");
  EXPECT_EQ(usage_refusal([] { read_choice("--format", "jsn", {"json", "csv"}); }),
            "--format expects one of json, csv; got 'jsn'; did you mean json?");
  EXPECT_EQ(usage_refusal([] { read_choice("--format", "xml-ish", {"json", "csv"}); }),
            "--format expects one of json, csv; got 'xml-ish'");
}

TEST(OptionValues, TextIsNotEmptyAndAWordHasNoSpaces) {
  EXPECT_EQ(read_text("--name", "a b", "a name"), "a b");
  EXPECT_EQ(usage_refusal([] { read_text("--name", "", "a name"); }), "--name is empty; give a name");
  EXPECT_NE(usage_refusal([] { read_text("--name", "a b", "a name", true); }).find("contains whitespace"),
            std::string::npos);
}

}  // namespace
}  // namespace fmwork
