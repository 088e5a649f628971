// Tests of the content digest: of files (base name, size and bytes) and of text fed in pieces; a printed
// throughput on 256 MiB.
#include "fmwork/cache/content_hash.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>

#include "fmwork/base/error.hpp"
#include "support/temp_dir.hpp"

namespace fmwork {
namespace {

namespace fs = std::filesystem;

TEST(HashFiles, SameContentSameHashAndEachChangeShows) {
  TempDir tmp("fmwork-hash-test");
  fs::create_directory(tmp.path() + "/b");
  const std::string big(3 * (1 << 20) + 5, 'w');  // spans several read buffers and ends in a partial stripe
  const std::string a = tmp.write("weights.bin", big);
  const std::string same = tmp.write("b/weights.bin", big);
  const std::string renamed = tmp.write("other.bin", big);

  const std::string h = hash_files({a});
  EXPECT_EQ(h.size(), 32u);
  EXPECT_EQ(h.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_EQ(h, hash_files({a}));
  EXPECT_EQ(h, hash_files({same}));  // the same name and content in another folder
  EXPECT_NE(h, hash_files({renamed}));
  EXPECT_NE(hash_files({a, renamed}), hash_files({renamed, a}));
  EXPECT_NE(hash_files({a}), hash_files({a, a}));
  std::string changed = big;
  changed[2 * (1 << 20) + 3] = 'x';
  tmp.write("b/weights.bin", changed);
  EXPECT_NE(h, hash_files({same}));  // one byte changed, same size, same name
}

// The sizes mark where each file ends: moving bytes from one file's end into the next one's header (as
// if a content ended in a name) changes the digest.
TEST(HashFiles, FileBoundariesAreUnambiguous) {
  TempDir tmp("fmwork-hash-test");
  fs::create_directories(tmp.path() + "/one");
  fs::create_directories(tmp.path() + "/two");
  const uint64_t one = 1;
  const std::string len_one(reinterpret_cast<const char*>(&one), sizeof one);  // a name's length, as fed
  const std::vector<std::string> first = {tmp.write("one/a", "x"), tmp.write("one/b", "z"),
                                          tmp.write("one/c", len_one + "d")};
  const std::vector<std::string> second = {tmp.write("two/a", "x" + len_one + "bz"), tmp.write("two/c", ""),
                                           tmp.write("two/d", "")};
  EXPECT_NE(hash_files(first), hash_files(second));
}

TEST(HashFiles, EveryLengthAndEveryByteCounts) {
  TempDir tmp("fmwork-hash-test");
  std::set<std::string> seen;
  std::string text;
  for (int n = 0; n <= 100; ++n) {  // every tail length, with and without whole stripes
    const std::string h = hash_files({tmp.write("f", text)});
    EXPECT_TRUE(seen.insert(h).second) << "length " << n;
    text += static_cast<char>('a' + n % 26);
  }
  const std::string base(64, '\0');
  for (size_t i = 0; i < base.size(); ++i) {  // a single bit anywhere, lanes and tail alike
    std::string t = base;
    t[i] = 1;
    EXPECT_TRUE(seen.insert(hash_files({tmp.write("f", t)})).second) << "byte " << i;
  }
}

TEST(HashFiles, AMissingFileIsARuntimeErrorNamingIt) {
  TempDir tmp("fmwork-hash-test");
  const std::string good = tmp.write("good.bin", "x");
  const std::string missing = tmp.path() + "/missing.bin";
  try {
    hash_files({good, missing});
    FAIL() << "hash_files returned";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::runtime);
    EXPECT_NE(std::string(e.what()).find(missing), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
  }
  EXPECT_THROW(hash_files({tmp.path()}), Error);  // a folder is no file
}

TEST(HashFiles, SymlinksAreFollowedOrRefused) {
  TempDir tmp("fmwork-hash-test");
  const std::string blob = tmp.write("blob", "weights");
  const std::string link = tmp.path() + "/weights.bin";
  std::filesystem::create_symlink(blob, link);
  std::filesystem::create_directory(tmp.path() + "/real");
  // Followed, under the link's name: as the same file with that name, not as the blob.
  EXPECT_EQ(hash_files({link}), hash_files({tmp.write("real/weights.bin", "weights")}));
  EXPECT_NE(hash_files({link}), hash_files({blob}));
  try {
    hash_files({link}, Symlinks::refuse);
    FAIL() << "a symlink was followed";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(link + ": cannot read"), std::string::npos) << e.what();
  }
}

TEST(ContentHasher, PiecesDoNotMatter) {
  std::string text(1000, '\0');
  for (size_t i = 0; i < text.size(); ++i) text[i] = static_cast<char>(i * 7 + 3);
  ContentHasher whole;
  whole.update(text.data(), text.size());
  for (size_t piece : {1, 3, 31, 32, 33, 100}) {
    ContentHasher parts;
    for (size_t at = 0; at < text.size(); at += piece)
      parts.update(text.data() + at, std::min(piece, text.size() - at));
    EXPECT_EQ(parts.hex_digest(), whole.hex_digest()) << "pieces of " << piece;
  }
  ContentHasher other;
  other.update(text.data(), text.size() - 1);
  EXPECT_NE(other.hex_digest(), whole.hex_digest());
}

}  // namespace
}  // namespace fmwork
