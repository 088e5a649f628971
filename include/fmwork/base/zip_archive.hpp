// Zip archives checked before a library that trusts them opens them. An AOTInductor package (.pt2) is a zip
// that LibTorch's loader unpacks without checking CRC-32s and then dlopen()s: a damaged byte in its shared
// object killed the driver with SIGSEGV. verify_zip() reads the end records (zip64 included) and the
// central directory with a bound on every count and size, checks each member's local header against the
// directory, its bytes' range inside the file and its CRC-32, before anything is unpacked.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace fmwork {

// One member as the central directory lists it, checked (see verify_zip).
struct ZipMember {
  std::string name;
  uint16_t method = 0;         // 0: stored, 8: deflated (TorchScript writes its code so)
  uint32_t crc32 = 0;          // as recorded
  uint64_t size = 0;           // bytes of data in the archive (stored: as uncompressed)
  uint64_t header_offset = 0;  // of its local header
};

// The bounds: a package holds a handful of members; a directory beyond these is not one.
inline constexpr uint64_t kZipMaxMembers = 65536;
inline constexpr uint64_t kZipMaxDirectoryBytes = 64ull << 20;

// Reads `length` bytes at `offset` of the archive (the caller has checked they lie inside it); throws an
// fmwork Error when it cannot.
using ZipReadAt = std::function<std::string(uint64_t offset, size_t length)>;

// The central directory of an archive of `size` bytes. Throws a runtime Error "<name>: not a valid zip
// archive: <what is wrong>" for: no end record, an archive split over disks, more than kZipMaxMembers
// members or a directory over kZipMaxDirectoryBytes, a directory that does not lie inside the file or whose
// entries do not fill it exactly, an encrypted member or one compressed otherwise than deflate, a member name that is empty, absolute
// or climbs out with "..", member sizes that add up to more than the file.
std::vector<ZipMember> read_zip_directory(uint64_t size, const ZipReadAt& read, const std::string& name);

// read_zip_directory, then each member's local header (its signature, name and method as the directory
// says, its data inside the file before the directory) and its CRC-32 over its bytes, read in blocks of
// 4 MiB. Not checked: a member recorded with CRC 0 (PyTorch's writer records 0 when told to skip it) and a
// deflated one (its CRC is over inflated bytes; no inflater here). AOTInductor packages and tensor data are
// stored, so their bytes are all checked. Throws a runtime Error "<name>: damaged: member '<member>' ..." naming what does not match.
std::vector<ZipMember> verify_zip(uint64_t size, const ZipReadAt& read, const std::string& name);

// verify_zip over the file at `path` (read with pread). Throws a runtime Error naming the path.
std::vector<ZipMember> verify_zip_file(const std::string& path);

// The CRC-32 (zip's, ISO-HDLC) of `n` bytes, continuing from `crc` (0 to start).
uint32_t zip_crc32(const void* data, size_t n, uint32_t crc = 0);

}  // namespace fmwork
