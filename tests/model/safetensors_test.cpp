// The safetensors reader and writer: round trips, zero-copy, conversion, shards, and every kind of bad file.
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "fmwork/base/error.hpp"
#include "fmwork/base/mapped_files.hpp"
#include "fmwork/model/safetensors.hpp"
#include "support/test_support.hpp"

namespace {

using fmwork::Error;
using fmwork::ErrorKind;
using fmwork::hf::Checkpoint;
using fmwork::hf::SafetensorsFile;
using fmwork::hf::write_safetensors;
using fmwork::TempDir;

// A file made by hand: 8-byte length, the header text exactly as given, then `data`.
void write_raw(const std::string& path, const std::string& header, const std::string& data, int64_t length = -1) {
  std::ofstream out(path, std::ios::binary);
  uint64_t n = length < 0 ? header.size() : static_cast<uint64_t>(length);
  for (int i = 0; i < 8; ++i) out.put(static_cast<char>(n >> (8 * i)));
  out << header << data;
}

// The message of the Error that opening `path` throws (fails the test when none is thrown).
std::string open_error(const std::string& path, ErrorKind kind = ErrorKind::runtime) {
  try {
    SafetensorsFile::open(path);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind);
    std::string m = e.what();
    EXPECT_EQ(m.find('\n'), std::string::npos) << "one line: " << m;
    EXPECT_NE(m.find(path), std::string::npos) << "names the file: " << m;
    return m;
  }
  ADD_FAILURE() << "no error for " << path;
  return "";
}

TEST(HfSafetensors, RoundTripEveryDtype) {
  TempDir dir;
  std::vector<std::pair<std::string, at::Tensor>> tensors = {
      {"f32", at::randn({3, 5})},
      {"f64", at::randn({4}, at::kDouble)},
      {"f16", at::randn({2, 3}).to(at::kHalf)},
      {"bf16", at::randn({7}).to(at::kBFloat16)},
      {"i64", at::arange(6, at::kLong).view({2, 3})},
      {"i32", at::arange(5, at::kInt)},
      {"i16", at::arange(3, at::kShort)},
      {"i8", at::arange(-3, 3, at::kChar)},
      {"u8", at::arange(9, at::kByte)},
      {"bool", at::tensor({1, 0, 1}).to(at::kBool)},
      {"scalar", at::scalar_tensor(2.5)},
      {"empty", at::empty({0, 4})},
      {"strided", at::randn({4, 6}).t()},  // non-contiguous input: written in C order
  };
  write_safetensors(dir.file("a.safetensors"), tensors, {{"format", "pt"}});
  auto f = SafetensorsFile::open(dir.file("a.safetensors"));
  EXPECT_EQ(f->metadata().at("format"), "pt");
  EXPECT_EQ(f->entries().size(), tensors.size());
  for (const auto& [name, t] : tensors) {
    auto r = f->tensor(name);
    EXPECT_EQ(r.scalar_type(), t.scalar_type()) << name;
    EXPECT_EQ(r.sizes(), t.sizes()) << name;
    EXPECT_TRUE(r.equal(t.contiguous())) << name;
  }
  EXPECT_EQ(f->find("f16")->dtype, "F16");
  EXPECT_EQ(f->find("bool")->dtype, "BOOL");
  EXPECT_EQ(f->find("nope"), nullptr);
}

TEST(HfSafetensors, HeaderIsPaddedAndDataIsAligned) {
  TempDir dir;
  write_safetensors(dir.file("a.safetensors"), {{"x", at::randn({5})}});
  std::string bytes = fmwork::test_support::read_file(dir.file("a.safetensors"));
  uint64_t n = 0;
  std::memcpy(&n, bytes.data(), 8);
  EXPECT_EQ(n % 8, 0u);
  EXPECT_EQ(bytes.size(), 8 + n + 5 * 4);
  auto header = nlohmann::json::parse(bytes.substr(8, n));
  EXPECT_EQ(header["x"]["dtype"], "F32");
  EXPECT_EQ(header["x"]["data_offsets"], nlohmann::json::array({0, 20}));
}

TEST(HfSafetensors, ZeroCopyWhenDtypeMatchesAndMappingOutlivesFile) {
  TempDir dir;
  auto w = at::randn({64, 32});
  write_safetensors(dir.file("a.safetensors"), {{"w", w}, {"b", at::randn({64})}});
  at::Tensor t;
  {
    auto f = SafetensorsFile::open(dir.file("a.safetensors"));
    t = f->tensor("w");
    EXPECT_TRUE(f->holds(t)) << "the tensor views the mapping";
    auto converted = f->tensor("w", at::kBFloat16);
    EXPECT_FALSE(f->holds(converted));
    EXPECT_EQ(converted.scalar_type(), at::kBFloat16);
    EXPECT_TRUE(at::allclose(converted.to(at::kFloat), w, 1e-2, 1e-2));
    auto d = f->tensor("w", at::kDouble);
    EXPECT_TRUE(at::allclose(d.to(at::kFloat), w));
  }
  // The file object is gone; the tensor still reads the mapping.
  EXPECT_TRUE(t.equal(w));
  // Writing into it copies the page (private mapping): the file keeps its bytes.
  t.zero_();
  auto again = SafetensorsFile::open(dir.file("a.safetensors"));
  EXPECT_TRUE(again->tensor("w").equal(w));
}

// A file cut short after it was mapped: touching the lost pages raised SIGBUS and killed the process. They
// now read as zeros, and check_mapped_files() names the file, until the mapping is gone.
TEST(HfSafetensors, FileCutShortUnderAMappingReadsZerosAndIsReported) {
  TempDir dir;
  const std::string path = dir.file("a.safetensors");
  write_safetensors(path, {{"w", at::ones({512, 1024})}});  // 2 MiB of data
  {
    auto f = SafetensorsFile::open(path);
    const at::Tensor w = f->tensor("w");
    ASSERT_TRUE(f->holds(w));
    fmwork::check_mapped_files();
    ASSERT_EQ(::truncate(path.c_str(), 1 << 20), 0);  // the header and half the data stay
    const double sum = w.sum().item<double>();         // every page touched, on LibTorch's threads
    EXPECT_LT(sum, 512.0 * 1024);
    EXPECT_GT(sum, 0.0);
    const Error e = fmwork::test_support::expect_error([] { fmwork::check_mapped_files(); });
    EXPECT_EQ(e.kind(), ErrorKind::runtime);
    EXPECT_EQ(std::string(e.what()), path + ": the file was cut short while the run read it in place (its missing "
                                            "pages read as zeros); restore it and run again");
  }
  fmwork::check_mapped_files();  // the mapping is gone, and its mark with it
}

TEST(HfSafetensors, UnalignedDataIsCopiedNotMisread) {
  TempDir dir;
  // A header whose length puts the F32 data at an address that is not a multiple of 4.
  std::string header = R"({"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
  if ((8 + header.size()) % 4 == 0) header += " ";
  float v[2] = {1.5f, -2.25f};
  write_raw(dir.file("u.safetensors"), header, std::string(reinterpret_cast<const char*>(v), 8));
  auto f = SafetensorsFile::open(dir.file("u.safetensors"));
  auto t = f->tensor("x");
  EXPECT_FALSE(f->holds(t));
  EXPECT_FLOAT_EQ(t[0].item<float>(), 1.5f);
  EXPECT_FLOAT_EQ(t[1].item<float>(), -2.25f);
}

TEST(HfSafetensors, BoolBytesAreNormalised) {
  TempDir dir;
  write_raw(dir.file("b.safetensors"), R"({"m":{"dtype":"BOOL","shape":[3],"data_offsets":[0,3]}})",
            std::string("\x00\x01\x07", 3));
  auto t = SafetensorsFile::open(dir.file("b.safetensors"))->tensor("m");
  EXPECT_TRUE(t.equal(at::tensor({0, 1, 1}).to(at::kBool)));
}

TEST(HfSafetensors, WriterRefusesDuplicateNames) {
  TempDir dir;
  EXPECT_THROW(write_safetensors(dir.file("d.safetensors"), {{"a", at::ones({1})}, {"a", at::ones({1})}}), Error);
}

// ---- bad files ----

TEST(HfSafetensorsBad, TruncatedBeforeTheHeaderLength) {
  TempDir dir;
  fmwork::test_support::write_file(dir.file("t.safetensors"), "abc");
  EXPECT_NE(open_error(dir.file("t.safetensors")).find("truncated"), std::string::npos);
}

TEST(HfSafetensorsBad, HeaderLengthPastTheEnd) {
  TempDir dir;
  write_raw(dir.file("h.safetensors"), R"({"x":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", "abcd", 1000);
  EXPECT_NE(open_error(dir.file("h.safetensors")).find("header length 1000 runs past the end"), std::string::npos);
}

TEST(HfSafetensorsBad, TruncatedData) {
  TempDir dir;
  write_safetensors(dir.file("ok.safetensors"), {{"a", at::randn({16})}, {"b", at::randn({16})}});
  std::string bytes = fmwork::test_support::read_file(dir.file("ok.safetensors"));
  fmwork::test_support::write_file(dir.file("t.safetensors"), bytes.substr(0, bytes.size() - 10));
  auto m = open_error(dir.file("t.safetensors"));
  EXPECT_NE(m.find("tensor b"), std::string::npos) << m;
  EXPECT_NE(m.find("past the end of the data section"), std::string::npos) << m;
}

TEST(HfSafetensorsBad, NotJson) {
  TempDir dir;
  write_raw(dir.file("j.safetensors"), R"({"x": {"dtype": "F32", )", "");
  EXPECT_NE(open_error(dir.file("j.safetensors")).find("not valid JSON"), std::string::npos);
  write_raw(dir.file("k.safetensors"), "[1, 2]", "");
  EXPECT_NE(open_error(dir.file("k.safetensors")).find("JSON object"), std::string::npos);
}

TEST(HfSafetensorsBad, UnknownAndUnsupportedDtypes) {
  TempDir dir;
  write_raw(dir.file("u.safetensors"), R"({"w":{"dtype":"F7","shape":[1],"data_offsets":[0,4]}})", "abcd");
  auto m = open_error(dir.file("u.safetensors"));
  EXPECT_NE(m.find("tensor w"), std::string::npos) << m;
  EXPECT_NE(m.find("unknown dtype \"F7\""), std::string::npos) << m;
  write_raw(dir.file("f8.safetensors"), R"({"w":{"dtype":"F8_E4M3","shape":[4],"data_offsets":[0,4]}})", "abcd");
  EXPECT_NE(open_error(dir.file("f8.safetensors")).find("F8_E4M3 is not supported"), std::string::npos);
}

TEST(HfSafetensorsBad, OffsetsDoNotMatchShape) {
  TempDir dir;
  write_raw(dir.file("s.safetensors"), R"({"w":{"dtype":"F32","shape":[2,3],"data_offsets":[0,20]}})",
            std::string(24, '\0'));
  auto m = open_error(dir.file("s.safetensors"));
  EXPECT_NE(m.find("tensor w"), std::string::npos) << m;
  EXPECT_NE(m.find("hold 20 bytes but shape [2, 3] of F32 needs 24"), std::string::npos) << m;
}

TEST(HfSafetensorsBad, OverlappingTensors) {
  TempDir dir;
  write_raw(dir.file("o.safetensors"),
            R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},"b":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}})",
            std::string(16, '\0'));
  auto m = open_error(dir.file("o.safetensors"));
  EXPECT_NE(m.find("tensor b"), std::string::npos) << m;
  EXPECT_NE(m.find("overlaps tensor a"), std::string::npos) << m;
}

TEST(HfSafetensorsBad, MalformedEntries) {
  TempDir dir;
  struct Case {
    const char* header;
    const char* expect;
  } cases[] = {
      {R"({"w":{"shape":[1],"data_offsets":[0,4]}})", "entry has no \"dtype\""},
      {R"({"w":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})", "shape entries must be a non-negative integer"},
      {R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[4]}})", "data_offsets must be [begin, end]"},
      {R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[4,0]}})", "end before they begin"},
      {R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})",
       "appears twice"},
      {R"({"w":{"dtype":"F32","shape":[4611686018427387904,4],"data_offsets":[0,4]}})", "too large"},
      {R"({"__metadata__":{"a":1}})", "__metadata__ entry a must be a string"},
      {R"({"w":[1,2]})", "entry must be an object"},
  };
  int i = 0;
  for (const auto& c : cases) {
    const std::string path = dir.file("m" + std::to_string(i++) + ".safetensors");
    write_raw(path, c.header, std::string(8, '\0'));
    auto m = open_error(path);
    EXPECT_NE(m.find(c.expect), std::string::npos) << c.header << " -> " << m;
  }
}

// The reference implementation refuses a file whose data section runs on past the last tensor
// (MetadataIncompleteBuffer); so do we, saying how many bytes are extra and where the file should end.
TEST(HfSafetensorsBad, BytesAfterTheLastTensor) {
  TempDir dir;
  write_safetensors(dir.file("ok.safetensors"), {{"a", at::randn({4})}, {"b", at::randn({2})}});
  const std::string bytes = fmwork::test_support::read_file(dir.file("ok.safetensors"));
  fmwork::test_support::write_file(dir.file("g.safetensors"), bytes + "garbage");
  EXPECT_EQ(open_error(dir.file("g.safetensors")),
            dir.file("g.safetensors") + ": 7 extra bytes after the last tensor (the tensors end at byte 24 of the "
            "data section, which has 31 bytes): a safetensors file must end where its last tensor ends");
  write_raw(dir.file("e.safetensors"), "{}", "xy");
  EXPECT_NE(open_error(dir.file("e.safetensors")).find(": 2 extra bytes after the last tensor (the tensors end at byte 0"),
            std::string::npos);
}

TEST(HfSafetensorsBad, EmptyHeaderIsAnEmptyFile) {
  TempDir dir;
  write_raw(dir.file("e.safetensors"), "{}", "");
  EXPECT_TRUE(SafetensorsFile::open(dir.file("e.safetensors"))->entries().empty());
}

// ---- shards ----

TEST(HfSafetensorsShards, IndexJoinsShards) {
  TempDir dir;
  write_safetensors(dir.file("model-00001-of-00002.safetensors"), {{"a", at::ones({2})}, {"b", at::zeros({3})}});
  write_safetensors(dir.file("model-00002-of-00002.safetensors"), {{"c", at::full({4}, 7.0)}});
  fmwork::test_support::write_file(dir.file("model.safetensors.index.json"),
                              R"({"metadata":{"total_size":36},"weight_map":{"a":"model-00001-of-00002.safetensors",)"
                              R"("b":"model-00001-of-00002.safetensors","c":"model-00002-of-00002.safetensors"}})");
  auto ck = Checkpoint::open_folder(dir.path());
  EXPECT_EQ(ck.names(), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(ck.files().size(), 2u);
  EXPECT_TRUE(ck.tensor("c").equal(at::full({4}, 7.0)));
  EXPECT_EQ(ck.total_bytes(), 36u);
  EXPECT_NE(ck.description().find("2 shards"), std::string::npos);
}

TEST(HfSafetensorsShards, BadIndexes) {
  TempDir dir;
  write_safetensors(dir.file("s1.safetensors"), {{"a", at::ones({2})}});
  write_safetensors(dir.file("s2.safetensors"), {{"a", at::ones({2})}});
  auto expect = [&](const std::string& index, const std::string& what) {
    fmwork::test_support::write_file(dir.file("model.safetensors.index.json"), index);
    try {
      Checkpoint::open_folder(dir.path());
      ADD_FAILURE() << "no error for " << index;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("model.safetensors.index.json"), std::string::npos) << e.what();
    }
  };
  expect(R"({"weight_map":{"a":"missing.safetensors"}})", "shard missing.safetensors (for tensor a) is missing");
  expect(R"({"weight_map":{"a":"../s1.safetensors"}})", "a shard must be a file name in the same folder");
  expect(R"({"weight_map":{"b":"s1.safetensors"}})", "puts tensor b in s1.safetensors, which does not hold it");
  expect(R"({"weight_map":{"a":"s1.safetensors","x":"s2.safetensors"}})", "tensor a is in two shards");
  expect(R"({"nothing":{}})", "has no \"weight_map\"");
  expect(R"({"weight_map":)", "not valid JSON");
}

TEST(HfSafetensorsShards, FolderWithoutSafetensorsIsAUsageError) {
  TempDir dir;
  try {
    Checkpoint::open_folder(dir.path());
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
  }
}

}  // namespace
