// Cutting a log back to whole lines after a failed write (see whole_lines.hpp).
#include "fmwork/base/whole_lines.hpp"

#include <fcntl.h>
#include <poll.h>
#include <stdio_ext.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <string>

namespace fmwork {
namespace {

// The offset just after the last '\n' in [start, end), start when there is none, end when the file cannot
// be read back (then nothing is cut): read backwards in blocks, so that a long log costs one block when its
// tail holds a newline. `fd` is the file opened again for reading (a shell's `>` opens it write-only).
uint64_t after_last_newline(int fd, uint64_t start, uint64_t end) {
  char block[4096];
  uint64_t to = end;
  while (to > start) {
    const uint64_t from = std::max<uint64_t>(start, to >= sizeof block ? to - sizeof block : 0);
    const ssize_t got = ::pread(fd, block, static_cast<size_t>(to - from), static_cast<off_t>(from));
    if (got != static_cast<ssize_t>(to - from)) return end;
    for (ssize_t i = got; i > 0; --i)
      if (block[i - 1] == '\n') return from + static_cast<uint64_t>(i);
    to = from;
  }
  return start;
}

}  // namespace

std::optional<uint64_t> whole_lines_start(int fd) {
  struct stat st{};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  const off_t at = ::lseek(fd, 0, SEEK_CUR);
  return at < 0 ? std::nullopt : std::optional<uint64_t>(static_cast<uint64_t>(at));
}

bool finish_whole_lines(std::FILE* stream, int fd, std::optional<uint64_t> start) {
  const bool flushed = std::fflush(stream) == 0 && !std::ferror(stream);
  if (flushed) return true;
  __fpurge(stream);  // glibc keeps the unwritten bytes; exit() would try them again
  struct stat st{};
  if (!start || ::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return false;
  const auto end = static_cast<uint64_t>(st.st_size);
  if (end <= *start) return false;
  const std::string self = "/proc/self/fd/" + std::to_string(fd);
  const int reader = ::open(self.c_str(), O_RDONLY | O_CLOEXEC);
  if (reader < 0) return false;
  const uint64_t keep = after_last_newline(reader, *start, end);
  ::close(reader);
  if (keep < end && ::ftruncate(fd, static_cast<off_t>(keep)) == 0) ::lseek(fd, 0, SEEK_END);
  return false;
}

bool reader_gone(int fd) {
  // A pipe's write end with no reader polls as POLLERR (Linux, and POSIX for FIFOs); a socket whose peer
  // shut down as POLLHUP or POLLERR.
  pollfd p{fd, POLLOUT, 0};
  return ::poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP)) != 0;
}

}  // namespace fmwork
