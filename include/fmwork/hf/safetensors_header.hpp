// The header of a safetensors file (https://github.com/huggingface/safetensors), read and validated from
// the file's bytes, without LibTorch: what model/safetensors maps, and what the fuzzer feeds hostile bytes.
//
// Layout: 8 bytes little-endian u64 N, N bytes of JSON header (an object, padding spaces allowed after it),
// then the data section. The header maps each tensor name to {"dtype", "shape", "data_offsets": [begin,
// end]} (offsets relative to the data section) and may hold "__metadata__" (string -> string). Like the
// reference implementation, the data section ends exactly where the last tensor ends.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace fmwork::hf {

// One tensor's entry in a header, validated.
struct HeaderEntry {
  std::string name;
  std::string dtype;  // as written, one of the supported dtypes: "F32", "BF16", ...
  size_t element_size = 0;
  std::vector<int64_t> shape;
  uint64_t begin = 0, end = 0;  // byte range in the data section
};

struct SafetensorsHeader {
  uint64_t data_start = 0;          // 8 + N: where the data section starts in the file
  std::vector<HeaderEntry> entries;  // in data order
  std::map<std::string, std::string> metadata;
};

// The supported dtypes, for messages: "F64 F32 F16 BF16 I64 I32 I16 I8 U8 BOOL".
extern const char* const kSupportedDtypes;

// The element size in bytes of a supported dtype name. Throws a runtime Error prefixed with `context` for
// any other name, saying whether it is a known but unsupported safetensors dtype (such as F8_E4M3) or unknown.
size_t dtype_element_size(const std::string& dtype, const std::string& context);

// Reads and validates the header of the `size` bytes at `bytes` (a whole file; `path` names it in errors):
// the header length against the size (and the 100 MB limit of the reference implementation), the JSON
// (json_input's limits; duplicate tensor names refused), each entry's dtype, shape and offsets (each range
// equals numel x element size and lies inside the data section), no two non-empty ranges overlapping, and
// no bytes after the last tensor's end. Every failure is a one-line runtime Error naming the file and,
// where there is one, the tensor.
SafetensorsHeader parse_safetensors_header(const unsigned char* bytes, uint64_t size, const std::string& path);

}  // namespace fmwork::hf
