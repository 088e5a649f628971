// Tests of parse_value: the Python literals of `@` sub-options, read as Python's eval() reads them
// (checked through repr() against CPython's output) and refused with one-line usage errors.
#include "fmwork/base/python_literal.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "fmwork/base/error.hpp"

namespace fmwork {
namespace {

const std::string kUse =
    "; use None, True, False, a number, a quoted string, a list/tuple/dict of these, a dtype like torch.float16, "
    "or args.<option>";

TEST(PythonLiteral, ParseAndReprMatchPython) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"None", "None"},
      {"True", "True"},
      {"False", "False"},
      {"0", "0"},
      {"42", "42"},
      {"-7", "-7"},
      {"00", "0"},
      {"1_000", "1000"},
      {"0x1F", "31"},
      {"0o17", "15"},
      {"0b101", "5"},
      {"0x_ff", "255"},
      {"-9223372036854775808", "-9223372036854775808"},
      {"9223372036854775807", "9223372036854775807"},
      {"-0x8000000000000000", "-9223372036854775808"},
      {"2.5", "2.5"},
      {"2.50", "2.5"},
      {"-0.5", "-0.5"},
      {"1e-05", "1e-05"},
      {"1e-5", "1e-05"},
      {"0.0001", "0.0001"},
      {"0.00001", "1e-05"},
      {"123.0", "123.0"},
      {"1e16", "1e+16"},
      {"1e15", "1000000000000000.0"},
      {"1.5e+16", "1.5e+16"},
      {"1e22", "1e+22"},
      {"0.1", "0.1"},
      {".5", "0.5"},
      {"5.", "5.0"},
      {"1E3", "1000.0"},
      {"1e999", "inf"},
      {"-1e999", "-inf"},
      {"1e-400", "0.0"},
      {"0.30000000000000004", "0.30000000000000004"},
      {"5e-324", "5e-324"},
      {"1.7976931348623157e308", "1.7976931348623157e+308"},
      {"1_0.5_0", "10.5"},
      {"123456789.123", "123456789.123"},
      {"1234567890123456.7", "1234567890123456.8"},
      {"'a'", "'a'"},
      {"\"a\"", "'a'"},
      {"'it\\'s'", "\"it's\""},
      {"\"say \\\"hi\\\"\"", "'say \"hi\"'"},
      {"'a\"b'", "'a\"b'"},
      {"\"a'b\\\"c\"", "'a\\'b\"c'"},
      {"'\\t\\n\\r'", "'\\t\\n\\r'"},
      {"'\\x00\\x7f'", "'\\x00\\x7f'"},
      {"'\\u00e9'", "'é'"},
      {"'é'", "'é'"},
      {"'\\\\d'", "'\\\\d'"},
      {"'\\d'", "'\\\\d'"},
      {"r'\\n'", "'\\\\n'"},
      {"R'a\\'b'", "\"a\\\\'b\""},
      {"u'x'", "'x'"},
      {"'a' 'b'", "'ab'"},
      {"'''a'b'''", "\"a'b\""},
      {"'\\101'", "'A'"},
      {"'\\xa0'", "'\\xa0'"},
      {"'\\u2028'", "'\\u2028'"},
      {"'\\U0001F600'", "'😀'"},
      {"'\\u00ad'", "'\\xad'"},
      {"''", "''"},
      {"[1, 2]", "[1, 2]"},
      {"[]", "[]"},
      {"[1,]", "[1]"},
      {"()", "()"},
      {"(1,)", "(1,)"},
      {"(8, 16)", "(8, 16)"},
      {"((1,), 2)", "((1,), 2)"},
      {"(1)", "1"},
      {"1, 2", "(1, 2)"},
      {"1,", "(1,)"},
      {"{}", "{}"},
      {"{'b': 1, 'a': [None, True]}", "{'b': 1, 'a': [None, True]}"},
      {"{'a': 1, 'a': 2}", "{'a': 2}"},
      {"{\"x\": {\"y\": (1.5, 'z')}}", "{'x': {'y': (1.5, 'z')}}"},
      {"['a', 'b']", "['a', 'b']"},
      {"torch.float16", "torch.float16"},
      {"torch.half", "torch.float16"},
      {"torch.bfloat16", "torch.bfloat16"},
      {"torch.float", "torch.float32"},
      {"torch.float32", "torch.float32"},
      {"torch.double", "torch.float64"},
      {"torch.long", "torch.int64"},
      {"torch.int", "torch.int32"},
      {"torch.int8", "torch.int8"},
      {"torch.bool", "torch.bool"},
      {"torch.uint8", "torch.uint8"},
      {"[torch.float32, torch.int64]", "[torch.float32, torch.int64]"},
      {"-True", "-1"},
      {"+True", "1"},
      {"+1", "1"},
      {"--1", "1"},
      {"- 5", "-5"},
      {"-(2)", "-2"},
      {"-(-9223372036854775807)", "9223372036854775807"},
      {"-1.5", "-1.5"},
      {"-.5", "-0.5"},
      {" [ 1 ,  2 ] ", "[1, 2]"},
      {"[1,\n 2]", "[1, 2]"},
      {"1 # comment", "1"},
  };
  for (const auto& [text, expected] : cases) {
    SCOPED_TRACE(text);
    EXPECT_EQ(repr(parse_value(text, "--x@")), expected);
  }
}

TEST(PythonLiteral, ParsedTypes) {
  EXPECT_EQ(parse_value("None", "--x@"), Value::none());
  EXPECT_EQ(parse_value("True", "--x@"), Value::of_bool(true));
  EXPECT_EQ(parse_value("7", "--x@"), Value::of_int(7));
  EXPECT_EQ(parse_value("7.0", "--x@"), Value::of_float(7.0));
  EXPECT_NE(parse_value("7.0", "--x@"), Value::of_int(7));  // typed: a float is not an int
  EXPECT_EQ(parse_value("'7'", "--x@"), Value::of_string("7"));
  EXPECT_EQ(parse_value("torch.half", "--x@"), Value::of_dtype("float16"));
  EXPECT_EQ(parse_value("[1, 'a']", "--x@"), Value::of_list({Value::of_int(1), Value::of_string("a")}));
  EXPECT_EQ(parse_value("(1,)", "--x@"), Value::of_tuple({Value::of_int(1)}));
  EXPECT_NE(parse_value("(1,)", "--x@"), Value::of_list({Value::of_int(1)}));
  const Value dict = parse_value("{'b': 1, 'a': 2}", "--x@");
  ASSERT_EQ(dict.type, Value::Type::dict);
  ASSERT_EQ(dict.entries.size(), 2u);
  EXPECT_EQ(dict.entries[0].first, "b");  // the order given
  EXPECT_EQ(dict.entries[1].first, "a");
  // Dicts compare as Python's do, whatever their order.
  EXPECT_EQ(dict, Value::of_dict({{"a", Value::of_int(2)}, {"b", Value::of_int(1)}}));
  EXPECT_NE(dict, Value::of_dict({{"a", Value::of_int(2)}, {"b", Value::of_int(2)}}));
  EXPECT_EQ(parse_value("-9223372036854775808", "--x@").integer, std::numeric_limits<int64_t>::min());
  EXPECT_TRUE(std::isinf(parse_value("1e999", "--x@").floating));
  EXPECT_EQ(parse_value("'\\n'", "--x@").text, "\n");
  EXPECT_EQ(parse_value("'\\u00e9'", "--x@").text, "\xc3\xa9");
}

TEST(PythonLiteral, ResolverNames) {
  const NameResolver resolve = [](std::string_view name) -> std::optional<Value> {
    if (name == "args.batch_sizes") return Value::of_list({Value::of_int(1), Value::of_int(4)});
    if (name == "args.model_name") return Value::of_string("bert");
    return std::nullopt;
  };
  EXPECT_EQ(repr(parse_value("args.batch_sizes", "--x@", resolve)), "[1, 4]");
  EXPECT_EQ(repr(parse_value("{args.model_name: (args.batch_sizes,)}", "--x@", resolve)), "{'bert': ([1, 4],)}");
  EXPECT_EQ(repr(parse_value("-args.batch_sizes", "--x@", [](std::string_view) -> std::optional<Value> {
              return Value::of_int(3);
            })),
            "-3");
  try {
    parse_value("args.nope", "--compile:x@", resolve);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "--compile:x@: cannot read 'args.nope' as a value" + kUse);
  }
  // Without a resolver, args.* is unknown like any other name.
  EXPECT_THROW(parse_value("args.batch_sizes", "--x@"), Error);
}

TEST(PythonLiteral, Errors) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"Tru", ""},
      {"", " (it is empty)"},
      {"   ", " (it is empty)"},
      {"[1, Tru]", " (at character 5: unknown name 'Tru')"},
      {"[1, 2", " (it ends before the closing ']')"},
      {"{1: 2}", " (at character 2: dict keys must be quoted strings; got 1)"},
      {"{1, 2}", " (at character 1: sets are not supported)"},
      {"'abc", " (at character 1: the string is not closed)"},
      {"1 2", " (at character 3: unexpected '2')"},
      {"torch.foo", " (torch.foo is not a dtype; the dtypes are torch.float32, torch.float16, torch.bfloat16, torch.float64, torch.int8, torch.int16, torch.int32, torch.int64, torch.bool, torch.uint8)"},
      {"f(1)", " (at character 1: function calls are not supported)"},
      {"01", " (a decimal integer cannot start with 0)"},
      {"1j", " (at character 1: complex numbers are not supported)"},
      {"99999999999999999999", " (99999999999999999999 is out of the 64-bit integer range)"},
      {"b\"x\"", " (at character 1: bytes literals are not supported)"},
      {"-\"a\"", " (at character 1: '-' needs a number, not a str)"},
      {"-9223372036854775809", " (-9223372036854775809 is out of the 64-bit integer range)"},
      {"0x10000000000000000", " (0x10000000000000000 is out of the 64-bit integer range)"},
      {"'\\N{DASH}'", " (at character 2: \\N{...} escapes are not supported)"},
      {"'\\x4'", " (at character 2: malformed \\x escape: it needs 2 hex digits)"},
      {"[1,,]", " (at character 4: unexpected ',')"},
      {"1e", " (at character 1: malformed number)"},
      {"'\\ud800'", " (at character 2: lone surrogate escapes are not supported)"},
      {"True False", " (at character 6: unexpected 'False')"},
      {"{'a': 1", " (it ends before the closing '}')"},
      {" Tru ", ""},
      {"-", " (it ends where a value was expected)"},
      {"[torch.foo]", " (at character 2: torch.foo is not a dtype; the dtypes are torch.float32, torch.float16, torch.bfloat16, torch.float64, torch.int8, torch.int16, torch.int32, torch.int64, torch.bool, torch.uint8)"},
      {"True(", " (at character 5: calls and indexing are not supported)"},
      {"inf", ""},
      {"1, 2 3", " (at character 6: unexpected '3')"},
  };
  for (const auto& [text, detail] : cases) {
    SCOPED_TRACE(text);
    try {
      parse_value(text, "--compile:dynamic@");
      ADD_FAILURE() << "no error for " << text;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::usage);
      EXPECT_EQ(e.exit_code(), 2);
      EXPECT_EQ(std::string(e.what()), "--compile:dynamic@: cannot read '" + text + "' as a value" + detail + kUse);
    }
  }
}

// Lists, tuples, dicts and signs nest up to 100 levels; deeper is a usage error, not a stack overflow
// (10,000 '[' crashed the recursive parser), and the message quotes the first 80 characters only.
TEST(PythonLiteral, NestingIsLimited) {
  const auto nested = [](int levels, const std::string& open, const std::string& inner, const std::string& close) {
    std::string text;
    for (int i = 0; i < levels; ++i) text += open;
    text += inner;
    for (int i = 0; i < levels; ++i) text += close;
    return text;
  };
  EXPECT_EQ(repr(parse_value(nested(100, "[", "1", "]"), "--x@")), nested(100, "[", "1", "]"));
  EXPECT_EQ(repr(parse_value(nested(100, "-", "1", ""), "--x@")), "1");
  const std::vector<std::pair<std::string, size_t>> deep = {
      {nested(101, "[", "", "]"), 101},
      {nested(10000, "[", "", "]"), 101},
      {nested(10000, "(", "1", ")"), 101},
      {nested(10000, "{'a': ", "1", "}"), 101 * 6 - 5},
      {nested(10000, "-", "1", ""), 101},
      {nested(50, "[", nested(51, "-", "1", ""), "]"), 101},
  };
  for (const auto& [text, at] : deep) {
    SCOPED_TRACE(text.substr(0, 20));
    try {
      parse_value(text, "--model:foo@");
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::usage);
      EXPECT_EQ(std::string(e.what()), "--model:foo@: cannot read '" + text.substr(0, 80) + "...' as a value (at character " +
                                           std::to_string(at) + ": it is nested deeper than 100 levels)" + kUse);
    }
  }
}

TEST(PythonLiteral, DtypeAliasesReadAsTheirCanonicalName) {
  EXPECT_EQ(repr(parse_value("torch.half", "--x@")), "torch.float16");
  EXPECT_EQ(repr(parse_value("[torch.long, torch.double]", "--x@")), "[torch.int64, torch.float64]");
}

}  // namespace
}  // namespace fmwork
