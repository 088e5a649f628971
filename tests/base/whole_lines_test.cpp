// Tests of whole_lines' reader_gone: a pipe whose reader has gone is told apart from one still read, from a
// file and from a descriptor that is not open (the programs end quietly only in the first case).
#include "fmwork/base/whole_lines.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

namespace fmwork {
namespace {

TEST(WholeLines, ReaderGoneIsAPipeWithNoReaderOnly) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  EXPECT_FALSE(reader_gone(fds[1]));  // read by someone: not gone
  ::close(fds[0]);
  EXPECT_TRUE(reader_gone(fds[1]));  // `| head -1` after head has exited
  ::close(fds[1]);
  EXPECT_FALSE(reader_gone(fds[1]));  // closed: cannot tell
  const int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  ASSERT_GE(null, 0);
  EXPECT_FALSE(reader_gone(null));
  ::close(null);
}

}  // namespace
}  // namespace fmwork
