// What a loader checks before it opens a file the user named: that it is a regular file. A FIFO would
// block open() forever, a directory or device reads as garbage; a dangling symbolic link says where it points.
#pragma once

#include <string>

namespace fmwork {

// Throws a one-line usage Error when `path` exists (following symbolic links) but is no regular file:
// "<path> is a FIFO, not a file; ...", "... is a directory, not a file; ...", or is a dangling symbolic
// link: "<path> is a dangling symbolic link to X; ...". A path that does not exist at all passes: the
// caller says what is missing in its own words. Opens nothing.
void refuse_special_file(const std::string& path);

}  // namespace fmwork
