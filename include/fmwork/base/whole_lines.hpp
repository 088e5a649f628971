// A log written to standard output keeps whole lines only. stdout is written in large blocks; when a block
// is written only in part (a full disk, a file size limit), the file would end in half a line, and a line
// cut inside a field reads as a different number. The driver records where its output began and, when a
// write failed, cuts the file back to its last whole line before it exits.
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>

namespace fmwork {

// Where `fd` stands now when it is a regular file (the offset the run's first byte goes to; with O_APPEND,
// the file's size); nullopt for a pipe, a terminal, a device. Never throws.
std::optional<uint64_t> whole_lines_start(int fd);

// Flushes `stream` (whose descriptor is `fd`). When that or an earlier write of it failed: drops what is
// still buffered (written at exit, it would cut a line again) and, for a regular file (`start` given),
// truncates the file back to just after its last '\n' at or after `start` (to `start` when none). Returns
// true when every write succeeded. Never throws: it runs on the way out, after an error was reported.
bool finish_whole_lines(std::FILE* stream, int fd, std::optional<uint64_t> start);

// Whether `fd` is a pipe or socket whose reader has gone (`process ... | head -1` after head exits): a write
// failed because nobody reads, not because something broke. The programs ignore SIGPIPE and, where a
// write to standard output failed and this is true, end quietly: the reader has taken what it wanted.
// Never throws; false for anything it cannot tell.
bool reader_gone(int fd);

}  // namespace fmwork
