// Tests of fmwork::Value: repr() / str() against what Python prints, type and dtype names, JSON.
#include "fmwork/base/python_value.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "fmwork/base/error.hpp"

namespace fmwork {
namespace {


// What Python's repr(eval(text)) prints, for each text (generated with CPython 3.11).


TEST(PythonValue, ReprOfBuiltValues) {
  EXPECT_EQ(repr(Value::of_float(1e-5)), "1e-05");
  EXPECT_EQ(repr(Value::of_float(0.1 + 0.2)), "0.30000000000000004");
  EXPECT_EQ(repr(Value::of_float(1e16)), "1e+16");
  EXPECT_EQ(repr(Value::of_float(9999999999999998.0)), "9999999999999998.0");
  EXPECT_EQ(repr(Value::of_float(-1.25e-7)), "-1.25e-07");
  EXPECT_EQ(repr(Value::of_float(1e100)), "1e+100");
  EXPECT_EQ(repr(Value::of_float(std::nan(""))), "nan");
  EXPECT_EQ(repr(Value::of_float(-std::numeric_limits<double>::infinity())), "-inf");
  EXPECT_EQ(repr(Value::of_float(0.0)), "0.0");
  EXPECT_EQ(repr(Value::of_tuple({})), "()");
  EXPECT_EQ(repr(Value::of_tuple({Value::of_tuple({Value::of_int(8)})})), "((8,),)");
  EXPECT_EQ(repr(Value::of_dict({})), "{}");
  EXPECT_EQ(repr(Value::of_dict({{"k'", Value::of_string("v")}, {"x", Value::of_dict({})}})),
            "{\"k'\": 'v', 'x': {}}");
  EXPECT_EQ(repr(Value::of_dtype("bfloat16")), "torch.bfloat16");
  // Bytes that are not UTF-8 come from the command line as Python's surrogateescape decodes them.
  EXPECT_EQ(repr(Value::of_string("a\xff")), "'a\\udcff'");
  EXPECT_EQ(repr(Value::of_string("\x1b[0m")), "'\\x1b[0m'");
}

TEST(PythonValue, StrWritesTopLevelStringsAsIs) {
  EXPECT_EQ(str(Value::of_string("it's")), "it's");
  EXPECT_EQ(str(Value::of_list({Value::of_string("it's")})), "[\"it's\"]");
  EXPECT_EQ(str(Value::of_bool(false)), "False");
  EXPECT_EQ(str(Value::none()), "None");
  EXPECT_EQ(str(Value::of_dtype("float16")), "torch.float16");
}

TEST(PythonValue, TypeNames) {
  EXPECT_EQ(type_name(Value::Type::none), "None");
  EXPECT_EQ(type_name(Value::Type::boolean), "bool");
  EXPECT_EQ(type_name(Value::Type::integer), "int");
  EXPECT_EQ(type_name(Value::Type::floating), "float");
  EXPECT_EQ(type_name(Value::Type::string), "str");
  EXPECT_EQ(type_name(Value::Type::dtype), "torch.dtype");
  EXPECT_EQ(type_name(Value::Type::list), "list");
  EXPECT_EQ(type_name(Value::Type::tuple), "tuple");
  EXPECT_EQ(type_name(Value::Type::dict), "dict");
}




TEST(PythonValue, DtypeNamesAndAliases) {
  EXPECT_EQ(canonical_dtype_name("half"), "float16");
  EXPECT_EQ(canonical_dtype_name("float"), "float32");
  EXPECT_EQ(canonical_dtype_name("long"), "int64");
  EXPECT_EQ(canonical_dtype_name("bfloat16"), "bfloat16");
  EXPECT_EQ(canonical_dtype_name("float8"), std::nullopt);
  EXPECT_EQ(canonical_dtype_name("torch.half"), std::nullopt) << "the name comes without torch.";
  EXPECT_EQ(dtype_name_list(), "torch.float32, torch.float16, torch.bfloat16, torch.float64, torch.int8, "
                               "torch.int16, torch.int32, torch.int64, torch.bool, torch.uint8");
}

TEST(PythonValue, JsonForPlugins) {
  const Value v = Value::of_dict({{"a", Value::of_tuple({Value::of_int(1), Value::none()})},
                                  {"b", Value::of_dtype("float16")},
                                  {"c", Value::of_string("caf\xc3\xa9 \xff")},
                                  {"d", Value::of_float(0.5)}});
  // Invalid UTF-8 (a surrogateescape'd command-line byte) becomes U+FFFD instead of throwing.
  EXPECT_EQ(value_to_json(v), "{\"a\":[1,null],\"b\":\"torch.float16\",\"c\":\"caf\xc3\xa9 \xef\xbf\xbd\",\"d\":0.5}");
}

TEST(PythonValue, JsonOfEachType) {
  EXPECT_EQ(value_to_json(Value::of_dict({{"a", Value::none()},
                                          {"b", Value::of_list({Value::of_bool(true), Value::of_int(-2)})},
                                          {"c", Value::of_tuple({Value::of_float(0.5)})},
                                          {"d", Value::of_dtype("float16")},
                                          {"e", Value::of_string("x\"y")}})),
            R"({"a":null,"b":[true,-2],"c":[0.5],"d":"torch.float16","e":"x\"y"})");
}

}  // namespace
}  // namespace fmwork
