// Tests of python_text: Python's UTF-8 decoding, repr() of str and float, json.dumps, byte for byte.
#include "fmwork/base/python_text.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace fmwork {
namespace {

TEST(PyText, DecodeUtf8LikePythonArgv) {
  EXPECT_EQ(decode_utf8("a\xc3\xa9", BadBytes::surrogateescape), std::u32string(U"a\u00e9"));
  EXPECT_EQ(decode_utf8("\xf0\x9f\x98\x80", BadBytes::surrogateescape), std::u32string(U"\U0001F600"));
  EXPECT_EQ(decode_utf8("\xff" "b", BadBytes::surrogateescape), std::u32string(U"\xdcff" U"b"));
  EXPECT_EQ(decode_utf8("\xe2\x82" "A", BadBytes::surrogateescape), std::u32string(U"\xdce2\xdc82" U"A"));  // truncated sequence
  EXPECT_EQ(decode_utf8("\xc0\x80", BadBytes::surrogateescape), std::u32string(U"\xdcc0\xdc80"));           // overlong
  EXPECT_EQ(decode_utf8("\xed\xa0\x80", BadBytes::surrogateescape), std::u32string(U"\xdced\xdca0\xdc80"));  // encoded surrogate
}

TEST(PyText, DecodeUtf8WithReplacementLikePythonOpen) {
  EXPECT_EQ(decode_utf8("a\xff" "b", BadBytes::replace), std::u32string(U"a\ufffd" U"b"));
  EXPECT_EQ(decode_utf8("\xe2\x82" "A", BadBytes::replace), std::u32string(U"\ufffd\ufffd" U"A"));
  EXPECT_EQ(decode_utf8("\xed\xa0\x80", BadBytes::replace), std::u32string(U"\ufffd\ufffd\ufffd"));
}

TEST(PyText, StrReprLikePython) {
  EXPECT_EQ(python_str_repr("abc"), "'abc'");
  EXPECT_EQ(python_str_repr("it's"), "\"it's\"");
  EXPECT_EQ(python_str_repr("'\""), "'\\'\"'");
  EXPECT_EQ(python_str_repr("a\tb\n\x01\x7f caf\xc3\xa9 \xff"), "'a\\tb\\n\\x01\\x7f caf\xc3\xa9 \\udcff'");
}

TEST(PyText, ArgvBytesInJsonAsPythonWritesThem) {
  EXPECT_EQ(python_json_dumps("\xff", BadBytes::surrogateescape), "\"\\udcff\"");
  EXPECT_EQ(python_json_dumps("\xff", BadBytes::replace), "\"\\ufffd\"");
}

TEST(PyText, FloatReprLikePython) {
  EXPECT_EQ(python_float_repr(270.0), "270.0");
  EXPECT_EQ(python_float_repr(270.9), "270.9");
  EXPECT_EQ(python_float_repr(3.691), "3.691");
  EXPECT_EQ(python_float_repr(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(python_float_repr(1e16), "1e+16");
  EXPECT_EQ(python_float_repr(1e15), "1000000000000000.0");
  EXPECT_EQ(python_float_repr(1234567890123456.0), "1234567890123456.0");
  EXPECT_EQ(python_float_repr(0.0001), "0.0001");
  EXPECT_EQ(python_float_repr(0.00001), "1e-05");
  EXPECT_EQ(python_float_repr(1.5e-7), "1.5e-07");
  EXPECT_EQ(python_float_repr(0.0), "0.0");
  EXPECT_EQ(python_float_repr(-0.0), "-0.0");
  EXPECT_EQ(python_float_repr(-2.5), "-2.5");
  EXPECT_EQ(python_float_repr(5e-324), "5e-324");
  EXPECT_EQ(python_float_repr(1.7976931348623157e308), "1.7976931348623157e+308");
  EXPECT_EQ(python_float_repr(123456789.123), "123456789.123");
}

TEST(PyText, JsonDumpsLikePython) {
  nlohmann::ordered_json v = nlohmann::ordered_json::array();
  v.push_back("a\xc3\xa8\xf0\x9f\x98\x80\x7f\x01\"\\/\t");
  v.push_back(std::numeric_limits<double>::quiet_NaN());
  v.push_back(std::numeric_limits<double>::infinity());
  v.push_back(-std::numeric_limits<double>::infinity());
  v.push_back(nlohmann::ordered_json::object({{"a", nlohmann::ordered_json::array()},
                                              {"b", nlohmann::ordered_json::object()}}));
  v.push_back(true);
  v.push_back("\xff");
  EXPECT_EQ(python_json_dumps(v, BadBytes::replace),
            "[\n"
            "    \"a\\u00e8\\ud83d\\ude00\\u007f\\u0001\\\"\\\\/\\t\",\n"
            "    NaN,\n"
            "    Infinity,\n"
            "    -Infinity,\n"
            "    {\n"
            "        \"a\": [],\n"
            "        \"b\": {}\n"
            "    },\n"
            "    true,\n"
            "    \"\\ufffd\"\n"
            "]");
  EXPECT_EQ(python_json_dumps(nlohmann::ordered_json::array(), BadBytes::replace), "[]");
}

}  // namespace
}  // namespace fmwork
