// Fuzz target: a zip archive's end records, central directory and local headers (base/zip_archive), the
// checks that run before an AOTInductor package (.pt2) is unpacked; the input is the whole file.
#include "fmwork/base/zip_archive.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  const fmwork::ZipReadAt read = [&](uint64_t offset, size_t length) {
    if (offset > bytes.size() || length > bytes.size() - offset) __builtin_trap();  // a read outside the file
    return bytes.substr(offset, length);
  };
  fmwork::fuzz::refusal_allowed([&] {
    const auto members = fmwork::verify_zip(bytes.size(), read, "fuzz.pt2");
    uint64_t total = 0;  // what the loader then relies on: the members' bytes lie inside the file
    for (const auto& m : members) total += m.size;
    if (total > bytes.size()) __builtin_trap();
  });
  return 0;
}
