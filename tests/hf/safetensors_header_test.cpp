// The safetensors header reader without LibTorch (hf/safetensors_header), on bytes made by hand: what it
// returns for a valid file, and a message naming the file for each kind of hostile one. The reader's file
// side (mapping, tensors) is tested in tests/model/safetensors_test.cpp.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "fmwork/base/error.hpp"
#include "fmwork/hf/safetensors_header.hpp"

namespace {

using fmwork::Error;
using fmwork::ErrorKind;
using fmwork::hf::parse_safetensors_header;

// A file's bytes: 8-byte length, the header text exactly as given, then `data`.
std::string file_bytes(const std::string& header, const std::string& data) {
  std::string out;
  for (int i = 0; i < 8; ++i) out += static_cast<char>(static_cast<uint64_t>(header.size()) >> (8 * i));
  return out + header + data;
}

fmwork::hf::SafetensorsHeader parse(const std::string& bytes) {
  return parse_safetensors_header(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), "m/w.safetensors");
}

// The one-line runtime Error message for `bytes`, which must name the file first.
std::string header_error(const std::string& bytes) {
  try {
    parse(bytes);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::runtime);
    std::string m = e.what();
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    EXPECT_EQ(m.rfind("m/w.safetensors: ", 0), 0u) << m;
    return m;
  }
  ADD_FAILURE() << "no error";
  return "";
}

TEST(HfSafetensorsHeader, EntriesInDataOrderWithSizes) {
  const auto h = parse(file_bytes(
      R"({"__metadata__":{"format":"pt"},"b":{"dtype":"BF16","shape":[2],"data_offsets":[8,12]},)"
      R"("a":{"dtype":"F64","shape":[1],"data_offsets":[0,8]},"e":{"dtype":"I8","shape":[0,3],"data_offsets":[12,12]}}  )",
      std::string(12, 'x')));
  EXPECT_EQ(h.data_start, 8u + 198u);
  ASSERT_EQ(h.entries.size(), 3u);
  EXPECT_EQ(h.entries[0].name, "a");
  EXPECT_EQ(h.entries[0].element_size, 8u);
  EXPECT_EQ(h.entries[1].name, "b");
  EXPECT_EQ(h.entries[1].dtype, "BF16");
  EXPECT_EQ(h.entries[1].element_size, 2u);
  EXPECT_EQ(h.entries[2].shape, (std::vector<int64_t>{0, 3}));
  EXPECT_EQ(h.metadata.at("format"), "pt");
}

TEST(HfSafetensorsHeader, DtypeTable) {
  EXPECT_EQ(fmwork::hf::dtype_element_size("BOOL", "t"), 1u);
  EXPECT_EQ(fmwork::hf::dtype_element_size("I64", "t"), 8u);
  try {
    fmwork::hf::dtype_element_size("F8_E5M2", "t");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "t: dtype F8_E5M2 is not supported (supported: F64 F32 F16 BF16 I64 I32 I16 I8 U8 BOOL)");
  }
}

TEST(HfSafetensorsHeader, HostileBytes) {
  const std::string w4 = R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})";
  EXPECT_NE(header_error("abc").find("truncated: the file has 3 bytes"), std::string::npos);
  EXPECT_NE(header_error(std::string(8, '\xff')).find("runs past the end of the file (8 bytes)"), std::string::npos);
  EXPECT_NE(header_error(file_bytes(" {}", "")).find("must start with '{'"), std::string::npos);
  EXPECT_NE(header_error(file_bytes("{} x", "")).find("the header: not valid JSON"), std::string::npos);
  EXPECT_NE(header_error(file_bytes(std::string(100, '[') + std::string(100, ']'), "")).find("must start with '{'"),
            std::string::npos);
  EXPECT_NE(header_error(file_bytes("{\"a\":" + std::string(100, '[') + std::string(100, ']') + "}", ""))
                .find("nested deeper than 64"),
            std::string::npos);
  EXPECT_NE(header_error(file_bytes(w4, "ab")).find("lie past the end of the data section (2 bytes)"), std::string::npos);
  EXPECT_EQ(header_error(file_bytes(w4, "abcdXYZ")),
            "m/w.safetensors: 3 extra bytes after the last tensor (the tensors end at byte 4 of the data section, "
            "which has 7 bytes): a safetensors file must end where its last tensor ends");
  EXPECT_NE(header_error(file_bytes(R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,18446744073709551615]}})", ""))
                .find("hold 18446744073709551615 bytes but shape [1] of F32 needs 4"),
            std::string::npos);
  EXPECT_NE(header_error(file_bytes(R"({"w":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,0]}})", ""))
                .find("is too large"),
            std::string::npos);
}

}  // namespace
