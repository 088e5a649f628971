// A zip archive written byte by byte (stored members, the layout AOTInductor packages use), for tests that
// need a package-shaped file without building a model: the zip checks, the .pt2 loader's failures.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "fmwork/base/zip_archive.hpp"

namespace fmwork::test_support {

inline void put_le(std::string& out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

// The bytes of a zip holding `members` (name, data), stored, with their CRC-32s; no zip64 records.
inline std::string stored_zip(const std::vector<std::pair<std::string, std::string>>& members) {
  std::string body, directory;
  for (const auto& [name, data] : members) {
    const uint32_t crc = zip_crc32(data.data(), data.size());
    const uint64_t offset = body.size();
    put_le(body, 0x04034b50, 4);
    put_le(body, 20, 2), put_le(body, 0, 2), put_le(body, 0, 2), put_le(body, 0, 4);  // version, flags, method, time
    put_le(body, crc, 4), put_le(body, data.size(), 4), put_le(body, data.size(), 4);
    put_le(body, name.size(), 2), put_le(body, 0, 2);
    body += name + data;
    put_le(directory, 0x02014b50, 4);
    put_le(directory, 20, 2), put_le(directory, 20, 2), put_le(directory, 0, 2), put_le(directory, 0, 2);
    put_le(directory, 0, 4), put_le(directory, crc, 4), put_le(directory, data.size(), 4);
    put_le(directory, data.size(), 4), put_le(directory, name.size(), 2), put_le(directory, 0, 2);
    put_le(directory, 0, 2), put_le(directory, 0, 2), put_le(directory, 0, 2), put_le(directory, 0, 4);
    put_le(directory, offset, 4);
    directory += name;
  }
  std::string end;
  put_le(end, 0x06054b50, 4), put_le(end, 0, 2), put_le(end, 0, 2);
  put_le(end, members.size(), 2), put_le(end, members.size(), 2);
  put_le(end, directory.size(), 4), put_le(end, body.size(), 4), put_le(end, 0, 2);
  return body + directory + end;
}

}  // namespace fmwork::test_support
