// Tests of the zip checks that run before an AOTInductor package is unpacked: an intact archive's members,
// and each kind of damage refused in one line naming the file and the member (a flipped byte, a cut file,
// a directory that lies, names that climb out, counts past the bounds).
#include "fmwork/base/zip_archive.hpp"

#include <gtest/gtest.h>

#include <string>

#include <fmt/format.h>

#include "fmwork/base/error.hpp"
#include "support/zip_fixtures.hpp"

namespace fmwork {
namespace {

using test_support::put_le;
using test_support::stored_zip;

std::vector<ZipMember> verify_bytes(const std::string& bytes) {
  return verify_zip(bytes.size(), [&](uint64_t offset, size_t length) { return bytes.substr(offset, length); },
                    "p.pt2");
}

std::string refusal(const std::string& bytes) {
  try {
    verify_bytes(bytes);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::runtime);
    return e.what();
  }
  return "";
}

TEST(ZipArchive, Crc32IsZips) {
  EXPECT_EQ(zip_crc32("123456789", 9), 0xCBF43926u);  // the check value of CRC-32/ISO-HDLC
  EXPECT_EQ(zip_crc32("", 0), 0u);
  const std::string long_text(1000, 'x');  // the eight-byte steps and the tail agree with a split
  EXPECT_EQ(zip_crc32(long_text.data(), 1000), zip_crc32(long_text.data() + 3, 997, zip_crc32(long_text.data(), 3)));
}

TEST(ZipArchive, IntactArchiveListsItsMembers) {
  const auto members = verify_bytes(stored_zip({{"m/data/a.so", "ELF bytes"}, {"m/data/b", std::string(5000, 'w')}}));
  ASSERT_EQ(members.size(), 2u);
  EXPECT_EQ(members[0].name, "m/data/a.so");
  EXPECT_EQ(members[1].size, 5000u);
}

TEST(ZipArchive, AFlippedByteFailsItsMembersCrc) {
  std::string bytes = stored_zip({{"m/a.so", "ELF bytes"}, {"m/b", std::string(5000, 'w')}});
  bytes[30 + 6 + 9 + 30 + 3 + 100] = 'X';  // inside m/b's data
  EXPECT_EQ(refusal(bytes),
            "p.pt2: damaged: member 'm/b' fails its CRC-32 check (" +
                fmt::format("{:08x}", zip_crc32(bytes.data() + 30 + 6 + 9 + 30 + 3, 5000)) + ", recorded " +
                fmt::format("{:08x}", zip_crc32(std::string(5000, 'w').data(), 5000)) +
                "); copy or build the file again");
}

TEST(ZipArchive, CutOrForeignFilesAreNotZips) {
  const std::string bytes = stored_zip({{"m/a.so", "ELF bytes"}});
  EXPECT_EQ(refusal(bytes.substr(0, bytes.size() - 1)), "p.pt2: not a valid zip archive: no end of central directory record");
  EXPECT_EQ(refusal("short"), "p.pt2: not a valid zip archive: it is shorter than a zip's end record");
  std::string lying = bytes;
  lying[lying.size() - 6] = 1;  // the directory's offset moved by 1
  EXPECT_EQ(refusal(lying), "p.pt2: not a valid zip archive: its central directory does not end where its end record begins");
}

TEST(ZipArchive, NamesThatClimbOutAreRefused) {
  for (const char* name : {"../evil.so", "m/../../x", "/etc/x", ""}) {
    SCOPED_TRACE(name);
    EXPECT_NE(refusal(stored_zip({{name, "x"}})).find("has a name that is empty, absolute or climbs out"),
              std::string::npos);
  }
  EXPECT_EQ(verify_bytes(stored_zip({{"m/..x/a..", "x"}})).size(), 1u);
}

TEST(ZipArchive, CountsAndSizesAreBoundedBeforeReading) {
  std::string end;  // an end record alone that claims 65535 members: nothing is allocated by the count
  put_le(end, 0x06054b50, 4), put_le(end, 0, 4), put_le(end, 65535, 2), put_le(end, 65535, 2);
  put_le(end, 0, 4), put_le(end, 0, 4), put_le(end, 0, 2);
  EXPECT_EQ(refusal(end), "p.pt2: not a valid zip archive: its central directory entry at byte 0 is damaged");
  std::string member = stored_zip({{"m/a", "abc"}});
  member[36 + 20 + 3] = '\x7f';  // the directory's compressed size: 3 -> 0x7f000003, its uncompressed size 3
  EXPECT_NE(refusal(member).find("member 'm/a' is stored with two different sizes"), std::string::npos);
}

// TorchScript archives deflate their code: accepted, their CRC-32 left to the inflater (none here); a method
// PyTorch never writes is refused.
TEST(ZipArchive, DeflatedMembersAreAcceptedOtherMethodsRefused) {
  const auto with_method = [](int method) {
    std::string bytes = stored_zip({{"ts/code/m.py", "not really deflated"}});
    bytes[8] = static_cast<char>(method);                     // the local header's method
    bytes[30 + 12 + 19 + 10] = static_cast<char>(method);     // the central directory entry's
    return bytes;
  };
  EXPECT_EQ(verify_bytes(with_method(8)).at(0).method, 8);
  EXPECT_EQ(refusal(with_method(12)),
            "p.pt2: not a valid zip archive: member 'ts/code/m.py' is compressed with method 12; PyTorch's archives "
            "store or deflate");
}

}  // namespace
}  // namespace fmwork
