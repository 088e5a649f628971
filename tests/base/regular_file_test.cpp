// Tests of refuse_special_file: a FIFO, a directory or a dangling symbolic link given as a file is a
// one-line usage error before anything opens it (a FIFO would block open() forever).
#include "fmwork/base/regular_file.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "fmwork/base/error.hpp"
#include "support/temp_dir.hpp"

namespace fmwork {
namespace {

std::string usage_message(const std::string& path) {
  try {
    refuse_special_file(path);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    return e.what();
  }
  return "";
}

TEST(RegularFile, RefusesFifoDirectoryAndDanglingLink) {
  TempDir tmp("fmwork-regular-test");
  const std::string fifo = tmp.path() + "/model.pt";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(usage_message(fifo), fifo + " is a FIFO, not a file; give the path of a regular file");
  const std::string via_link = tmp.path() + "/link.pt";
  ASSERT_EQ(::symlink(fifo.c_str(), via_link.c_str()), 0);
  EXPECT_EQ(usage_message(via_link), via_link + " is a FIFO, not a file; give the path of a regular file");
  EXPECT_EQ(usage_message(tmp.path()), tmp.path() + " is a directory, not a file; give the path of a regular file");
  const std::string dangling = tmp.path() + "/config.json";
  ASSERT_EQ(::symlink("gone.json", dangling.c_str()), 0);
  EXPECT_EQ(usage_message(dangling),
            dangling + " is a dangling symbolic link to gone.json; point it at an existing file");
}

TEST(RegularFile, RegularFilesAndMissingPathsPass) {
  TempDir tmp("fmwork-regular-test");
  EXPECT_EQ(usage_message(tmp.write("config.json", "{}")), "");
  EXPECT_EQ(usage_message(tmp.path() + "/absent.json"), "");  // the caller says what is missing
}

// Whole or not at all: the new text replaces the old; a failure leaves the old file and no .tmp behind.
TEST(RegularFile, WritesAtomicallyOrLeavesTheFileAlone) {
  TempDir tmp;
  const std::string file = tmp.write("plan.json", "old");
  write_file_atomically(file, "new text\n");
  std::ifstream in(file);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "new text\n");
  EXPECT_EQ(::access((file + ".tmp").c_str(), F_OK), -1);
  const std::string missing = tmp.path() + "/no/folder/x";
  try {
    write_file_atomically(missing, "x");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::runtime);
    EXPECT_EQ(std::string(e.what()), missing + ": cannot create its .tmp file (No such file or directory)");
  }
  ::mkdir((tmp.path() + "/dir").c_str(), 0755);
  tmp.write("dir/inside", "");
  try {
    write_file_atomically(tmp.path() + "/dir", "x");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/dir: cannot rename its .tmp file into place ("), std::string::npos) << e.what();
  }
  EXPECT_EQ(::access((tmp.path() + "/dir.tmp").c_str(), F_OK), -1);
}

std::string read_error(const std::string& path, size_t max_bytes, const std::string& name = "") {
  try {
    read_file(path, max_bytes, name);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::runtime);
    return e.what();
  }
  return "";
}

TEST(RegularFile, ReadsAWholeFileWithinItsBound) {
  TempDir tmp;
  const std::string text(100000, 'x');  // more than one read()
  EXPECT_EQ(read_file(tmp.write("a.log", text), 100000), text);
  EXPECT_EQ(read_file(tmp.write("empty.log", ""), 0), "");
}

TEST(RegularFile, ReadErrorsNameTheFileAndTheReason) {
  TempDir tmp;
  const std::string absent = tmp.path() + "/absent.log";
  EXPECT_EQ(read_error(absent, 1 << 20), absent + ": cannot open (No such file or directory)");
  EXPECT_EQ(read_error(absent, 1 << 20, "--path x.log"), "--path x.log: cannot open (No such file or directory)");
  EXPECT_EQ(read_error(tmp.path(), 1 << 20), tmp.path() + ": cannot open (Is a directory)");
  const std::string big = tmp.write("big.json", std::string((2 << 20) + 1, ' '));
  EXPECT_EQ(read_error(big, 2 << 20), big + ": larger than 2 MiB; it is not a file this program reads");
  // A bound also ends what has no end.
  EXPECT_EQ(read_error("/dev/zero", 1 << 20), "/dev/zero: larger than 1 MiB; it is not a file this program reads");
}

}  // namespace
}  // namespace fmwork
