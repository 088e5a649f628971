// The regular-file check of loaders, the bounded whole-file reader, the atomic writer of results and the
// writer of a user's --out (see regular_file.hpp).
#include "fmwork/base/regular_file.hpp"

#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <random>
#include <vector>

#include "fmwork/base/error.hpp"
#include "fmwork/base/text_format.hpp"

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

// Writes all of `text` to `fd`: 0, or the errno of the write that failed. SIGPIPE is held back meanwhile
// (a FIFO whose reader left is EPIPE, an Error, rather than the death of the process) and one it raised is
// taken out of the pending set before the mask is restored.
int write_all(int fd, std::string_view text) {
  sigset_t pipe_only, old;
  sigemptyset(&pipe_only);
  sigaddset(&pipe_only, SIGPIPE);
  ::pthread_sigmask(SIG_BLOCK, &pipe_only, &old);
  int err = 0;
  for (size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      err = errno;
      break;
    }
    done += static_cast<size_t>(n);
  }
  if (err == EPIPE && !sigismember(&old, SIGPIPE)) {
    const timespec zero{0, 0};
    while (::sigtimedwait(&pipe_only, nullptr, &zero) == SIGPIPE) {
    }
  }
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
  return err;
}

// Creates a new file beside `path` for write_file_atomically: `path`.tmp-<random>, exclusively (O_EXCL does
// not follow a link someone left under that name), mode 0644 less the umask. Sets `tmp`; -1 with errno set
// on failure (`tmp` then empty).
int create_beside(const std::string& path, std::string& tmp) {
  std::random_device rng;
  for (int attempt = 0; attempt < 16; ++attempt) {
    char suffix[32];
    std::snprintf(suffix, sizeof suffix, ".tmp-%08x", static_cast<unsigned>(rng()));
    tmp = path + suffix;
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd >= 0) return fd;
    if (errno != EEXIST) break;
  }
  const int err = errno;
  tmp.clear();
  errno = err;
  return -1;
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

void read_file_pieces(const std::string& path, const std::function<void(std::string_view)>& take,
                      const std::string& name) {
  const std::string what = (name.empty() ? path : name) + ": ";
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw runtime_error(what + "cannot open (" + std::strerror(errno) + ")");
  // Closed on every way out, `take`'s exceptions included.
  const std::unique_ptr<const int, void (*)(const int*)> closer(&fd, [](const int* f) { ::close(*f); });
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode))  // open() takes a directory; read() would say EISDIR
    throw runtime_error(what + "cannot open (" + std::strerror(EISDIR) + ")");
  std::vector<char> buf(size_t{1} << 16);
  while (true) {
    const ssize_t n = ::read(fd, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw runtime_error(what + "cannot read (" + std::strerror(errno) + ")");
    if (n == 0) return;
    take(std::string_view(buf.data(), static_cast<size_t>(n)));
  }
}

std::string read_file(const std::string& path, size_t max_bytes, const std::string& name) {
  const std::string what = name.empty() ? path : name;
  struct stat st {};
  // Refused from its size before a byte is read (what it would cost is what parsing it costs, ~10x).
  if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) > max_bytes)
    throw runtime_error(what + ": " + bytes_text(static_cast<uint64_t>(st.st_size), 1) + " is more than the " +
                        bytes_text(max_bytes, 0) + " this program reads from a file of its kind; is it the right file?");
  std::string text;
  read_file_pieces(
      path,
      [&](std::string_view piece) {
        text.append(piece);
        if (text.size() > max_bytes)  // so a FIFO or /dev/zero ends too
          throw runtime_error(what + ": more than the " + bytes_text(max_bytes, 0) +
                              " this program reads from a file of its kind; is it the right file?");
      },
      name);
  return text;
}

OutputFile::OutputFile(const std::string& target, Atomic) : path_(target), target_(target) {
  fd_ = create_beside(target, tmp_);
  if (fd_ < 0) fail("create its .tmp file", errno);
  struct stat old {};
  // A report rewritten keeps the permissions its owner gave it (mode 0644 less the umask when it is new).
  if (::stat(target.c_str(), &old) == 0 && S_ISREG(old.st_mode)) (void)::fchmod(fd_, old.st_mode & 07777);
}

OutputFile::OutputFile(const std::string& path, Stream) : path_(path) {
  // As a shell's `>` would: opened, never created or renamed (a FIFO's open waits for its reader).
  fd_ = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_NOCTTY | O_CLOEXEC);
  if (fd_ < 0) fail("open", errno);
}

// What write_output_file writes: the decision of its contract, made once as the output is opened.
OutputFile::OutputFile(const std::string& path) {
  struct stat lst {};
  if (::lstat(path.c_str(), &lst) != 0 || S_ISREG(lst.st_mode)) {  // missing (its own message) or a file
    *this = OutputFile(path, Atomic{});
    return;
  }
  struct stat st {};
  const std::string name = excerpt(path, 200);
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT)
      throw usage_error(name + " is a dangling symbolic link to " + excerpt(link_target(path), 200) +
                        "; name a regular file, a FIFO or a character device");
    throw runtime_error(name + ": cannot open (" + std::strerror(errno) + ")");
  }
  if (S_ISREG(st.st_mode)) {
    // A link to a file: replace the file it leads to, never the link. A target that does not resolve to the
    // same file (a /proc/self/fd link to a deleted file) is written in place instead.
    std::vector<char> real(PATH_MAX + 1);
    const std::optional<FileId> id = file_id(path);
    if (::realpath(path.c_str(), real.data()) && file_id(real.data()) == id) *this = OutputFile(real.data(), Atomic{});
    else *this = OutputFile(path, Stream{});
    return;
  }
  if (!S_ISFIFO(st.st_mode) && !S_ISCHR(st.st_mode))
    throw usage_error(name + " is " + kind_of(st.st_mode) + "; name a regular file, a FIFO or a character device");
  *this = OutputFile(path, Stream{});
}

OutputFile& OutputFile::operator=(OutputFile&& o) noexcept {
  std::swap(path_, o.path_);
  std::swap(target_, o.target_);
  std::swap(tmp_, o.tmp_);
  std::swap(fd_, o.fd_);
  return *this;
}

OutputFile::~OutputFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!tmp_.empty()) ::unlink(tmp_.c_str());
}

void OutputFile::fail(const char* what, int err) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!tmp_.empty()) ::unlink(tmp_.c_str());
  tmp_.clear();
  throw runtime_error(path_ + ": cannot " + what + " (" + std::strerror(err) + ")");
}

void OutputFile::write(std::string_view text) {
  if (fd_ < 0) throw runtime_error(path_ + ": cannot write (it is closed)");
  if (const int err = write_all(fd_, text); err != 0) fail("write", err);
}

void OutputFile::commit() {
  if (fd_ < 0) throw runtime_error(path_ + ": cannot write (it is closed)");
  if (!target_.empty() && ::fsync(fd_) != 0) fail("write", errno);
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) fail("write", errno);
  if (target_.empty()) return;
  if (::rename(tmp_.c_str(), target_.c_str()) != 0) fail("rename its .tmp file into place", errno);
  tmp_.clear();
}

void write_file_atomically(const std::string& path, const std::string& text) {
  OutputFile file(path, OutputFile::Atomic{});
  file.write(text);
  file.commit();
}

void write_output_file(const std::string& path, const std::string& text) {
  OutputFile file(path);
  file.write(text);
  file.commit();
}

void make_folders(const std::string& path) {
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec) throw runtime_error(path + ": cannot make the folder (" + ec.message() + ")");
}

std::optional<FileId> file_id(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return FileId{static_cast<unsigned long long>(st.st_dev), static_cast<unsigned long long>(st.st_ino)};
}

std::optional<FileId> file_id_of_descriptor(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return std::nullopt;
  return FileId{static_cast<unsigned long long>(st.st_dev), static_cast<unsigned long long>(st.st_ino)};
}

}  // namespace fmwork
