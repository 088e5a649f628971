// The regular-file check of loaders, the bounded whole-file reader and the atomic writer of results (see
// regular_file.hpp).
#include "fmwork/base/regular_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "fmwork/base/error.hpp"

namespace fmwork {
namespace {

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  return "not a regular file";
}

// Where a symbolic link points, as written in the link.
std::string link_target(const std::string& path) {
  std::vector<char> buf(4096);
  const ssize_t n = ::readlink(path.c_str(), buf.data(), buf.size());
  return n < 0 ? std::string("an unreadable target") : std::string(buf.data(), static_cast<size_t>(n));
}

}  // namespace

void refuse_special_file(const std::string& path) {
  const std::string name = excerpt(path, 200);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const int err = errno;
    struct stat lst {};
    if (err == ENOENT && ::lstat(path.c_str(), &lst) == 0 && S_ISLNK(lst.st_mode))
      throw usage_error(name + " is a dangling symbolic link to " + excerpt(link_target(path), 200) +
                        "; point it at an existing file");
    if (err == ENOENT || err == ENOTDIR) return;  // missing: the caller's message
    throw usage_error(name + " cannot be read: " + std::strerror(err));
  }
  if (!S_ISREG(st.st_mode)) {
    const std::string kind = kind_of(st.st_mode);
    throw usage_error(name + " is " + kind + (kind == "not a regular file" ? "" : ", not a file") +
                      "; give the path of a regular file");
  }
}

std::string read_file(const std::string& path, size_t max_bytes, const std::string& name) {
  const std::string what = (name.empty() ? path : name) + ": ";
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw runtime_error(what + "cannot open (" + std::strerror(errno) + ")");
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {  // open() takes a directory; read() would say EISDIR
    ::close(fd);
    throw runtime_error(what + "cannot open (" + std::strerror(EISDIR) + ")");
  }
  std::string text;
  char buf[1 << 16];
  while (true) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      throw runtime_error(what + "cannot read (" + std::strerror(err) + ")");
    }
    if (n == 0) break;
    text.append(buf, static_cast<size_t>(n));
    if (text.size() > max_bytes) {
      ::close(fd);
      throw runtime_error(what + "larger than " + std::to_string(max_bytes >> 20) + " MiB; it is not a file " +
                          "this program reads");
    }
  }
  ::close(fd);
  return text;
}

void write_file_atomically(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  auto fail = [&](const char* what, int err, int fd) {
    if (fd >= 0) ::close(fd);
    ::unlink(tmp.c_str());
    throw runtime_error(path + ": cannot " + what + " (" + std::strerror(err) + ")");
  };
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail("create its .tmp file", errno, -1);
  for (size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail("write", errno, fd);
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) fail("write", errno, fd);
  if (::close(fd) != 0) fail("write", errno, -1);
  if (::rename(tmp.c_str(), path.c_str()) != 0) fail("rename its .tmp file into place", errno, -1);
}

}  // namespace fmwork
