// Regular files: what a loader checks before it opens a file the user named (that it is a regular file: a
// FIFO would block open() forever, a directory or device reads as garbage; a dangling symbolic link says
// where it points), how a file is read whole (bounded: a log or an experiment file is read into memory),
// and how results are written so that no reader sees half of one.
#pragma once

#include <cstddef>
#include <string>

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

// Writes `text` to `path` whole or not at all: into `path`.tmp, synced, renamed over `path`. On a failure
// the .tmp file is removed, `path` is untouched, and a runtime Error says "<path>: cannot create its .tmp
// file (<reason>)" (or "write", or "rename its .tmp file into place").
void write_file_atomically(const std::string& path, const std::string& text);

}  // namespace fmwork
