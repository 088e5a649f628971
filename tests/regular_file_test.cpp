// Tests of refuse_special_file: a FIFO, a directory or a dangling symbolic link given as a file is a
// one-line usage error before anything opens it (a FIFO would block open() forever).
#include "fmwork/regular_file.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "fmwork/error.hpp"
#include "temp_dir.hpp"

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

}  // namespace
}  // namespace fmwork
