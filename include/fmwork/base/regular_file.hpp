// Regular files: what a loader checks before it opens a file the user named (that it is a regular file: a
// FIFO would block open() forever, a directory or device reads as garbage; a dangling symbolic link says
// where it points), how a file is read whole (bounded: a log or an experiment file is read into memory),
// and how results are written so that no reader sees half of one.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace fmwork {

// Throws a one-line usage Error when `path` exists (following symbolic links) but is no regular file:
// "<path> is a FIFO, not a file; ...", "... is a directory, not a file; ...", or is a dangling symbolic
// link: "<path> is a dangling symbolic link to X; ...". A path that does not exist at all passes: the
// caller says what is missing in its own words. Opens nothing.
void refuse_special_file(const std::string& path);

// The bytes of the file at `path`, read whole. `name` is how messages name it (`path` when empty: "--path
// x.log" where the user gave an option). Throws a runtime Error, "<name>: " followed by "cannot open (<the
// system's reason>)" (a missing file, no permission, a directory: "Is a directory"), "cannot read
// (<reason>)", or "larger than <max_bytes in MiB> MiB; it is not a file this program reads" once more than
// `max_bytes` bytes have been read (so a FIFO or /dev/zero ends too). It does not call
// refuse_special_file: a caller that wants that usage Error first calls it.
std::string read_file(const std::string& path, size_t max_bytes, const std::string& name = "");

// The bytes of the file at `path` handed to `take` in order, in pieces of at most 64 KiB, as they are read:
// a file of any size costs one piece of memory here. Errors as read_file's ("<name>: cannot open|read
// (<reason>)"), with no bound on the size: `take` decides what is too much and throws (its exception goes
// through, the file closed).
void read_file_pieces(const std::string& path, const std::function<void(std::string_view)>& take,
                      const std::string& name = "");

// Writes `text` to `path` whole or not at all: into a new `path`.tmp-<random> file beside it (created
// exclusively, never through a link a stale one left), synced, renamed over `path`; a file it replaces keeps
// its permission bits. On a failure the .tmp file is removed, `path` is untouched, and a runtime Error says
// "<path>: cannot create its .tmp file (<reason>)" (or "write", or "rename its .tmp file into place"). The
// rename replaces whatever `path` names: for a path the user gave, see write_output_file.
void write_file_atomically(const std::string& path, const std::string& text);

// Writes `text` to an output the user named (`--out FILE`) without replacing anything but a regular file:
// - a path that does not exist, or a regular file: write_file_atomically (whole or untouched);
// - a symbolic link to a regular file: write_file_atomically over the file it leads to (the link stays);
// - a FIFO or a character device, or a link to one (/dev/null, /dev/stdout): opened and written as a
//   stream, as a shell's `>` does (a FIFO's open waits for its reader); a reader that has gone away is an
//   Error, never a SIGPIPE;
// - anything else: a usage Error "<path> is a directory (a block device, a socket, a dangling symbolic link
//   to X); name a regular file, a FIFO or a character device".
// A failure to write is a runtime Error "<path>: cannot open|write (<reason>)" or write_file_atomically's.
void write_output_file(const std::string& path, const std::string& text);

// The output write_output_file writes, opened once and written in pieces: what the output of many logs is
// written as, never held whole. Opening decides as write_output_file does (and throws what it throws); a
// regular file is written into its .tmp file beside and takes its place at commit(), a FIFO or a device is
// written as it comes. write() and commit() throw write_output_file's runtime Errors, and after one the
// output is spent. Destroyed without commit() (an Error on the way), a .tmp file is removed: the file named
// is left as it was.
class OutputFile {
 public:
  explicit OutputFile(const std::string& path);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  void write(std::string_view text);
  void commit();

 private:
  friend void write_file_atomically(const std::string& path, const std::string& text);
  struct Atomic {};
  struct Stream {};
  OutputFile(const std::string& target, Atomic);
  OutputFile(const std::string& path, Stream);
  OutputFile& operator=(OutputFile&& o) noexcept;
  [[noreturn]] void fail(const char* what, int err);

  std::string path_;    // as messages name it
  std::string target_;  // the file the .tmp file replaces at commit(); empty for a stream
  std::string tmp_;     // the .tmp file, while it exists
  int fd_ = -1;
};

// Makes the folder `path` and any parent it lacks (a folder that exists is fine): std::filesystem's
// "filesystem error: cannot create directories: ..." told as a runtime Error "<path>: cannot make the
// folder (<the system's reason>)".
void make_folders(const std::string& path);

// Which file a path or an open descriptor is: its device and inode, symbolic links followed.
struct FileId {
  unsigned long long device = 0;
  unsigned long long inode = 0;
  bool operator==(const FileId& o) const { return device == o.device && inode == o.inode; }
};

// The FileId of `path` (stat, following links), or nullopt when it cannot be stat'ed (it does not exist).
std::optional<FileId> file_id(const std::string& path);
// The FileId of the open descriptor `fd` (fstat), or nullopt when it is not open.
std::optional<FileId> file_id_of_descriptor(int fd);

}  // namespace fmwork
