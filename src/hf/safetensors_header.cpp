// The safetensors header, read and validated. See include/fmwork/hf/safetensors_header.hpp.
#include "fmwork/hf/safetensors_header.hpp"

#include <algorithm>
#include <cstring>
#include <set>
#include <string_view>

#include <nlohmann/json.hpp>

#include "fmwork/base/text_format.hpp"
#include "fmwork/base/error.hpp"
#include "fmwork/base/json_input.hpp"

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the header length is little-endian; this reader copies it as is");

namespace fmwork::hf {

const char* const kSupportedDtypes = "F64 F32 F16 BF16 I64 I32 I16 I8 U8 BOOL";

namespace {

using json = nlohmann::json;

constexpr uint64_t kMaxHeaderBytes = 100ull << 20;  // the limit of the reference implementation

struct DtypeRow {
  const char* name;
  size_t element_size;
};
constexpr DtypeRow kDtypes[] = {
    {"F64", 8}, {"F32", 4}, {"F16", 2}, {"BF16", 2}, {"I64", 8}, {"I32", 4}, {"I16", 2}, {"I8", 1}, {"U8", 1}, {"BOOL", 1},
};
// Known to the format, not to this reader.
constexpr const char* kUnsupportedDtypes[] = {"F8_E4M3", "F8_E5M2", "F8_E8M0", "F4", "F6_E2M3", "F6_E3M2",
                                              "U16",     "U32",     "U64",     "C64"};

std::string range_str(const HeaderEntry& e) {
  return "[" + std::to_string(e.begin) + ", " + std::to_string(e.end) + "]";
}

// A JSON value as an unsigned integer, or a runtime Error naming `what`.
uint64_t as_u64(const json& v, const std::string& what) {
  if (v.is_number_unsigned()) return v.get<uint64_t>();
  if (v.is_number_integer() && v.get<int64_t>() >= 0) return static_cast<uint64_t>(v.get<int64_t>());
  throw runtime_error(what + " must be a non-negative integer, not " + json_excerpt(v));
}

// The header's length from the first 8 bytes, checked against the file's size.
uint64_t header_length(const unsigned char* base, uint64_t size, const std::string& P) {
  if (size < 8)
    throw runtime_error(P + ": truncated: the file has " + std::to_string(size) +
                        " bytes; a safetensors file starts with an 8-byte header length");
  uint64_t n = 0;
  std::memcpy(&n, base, 8);  // little-endian, like the host (static_assert above)
  const uint64_t room = size - 8;
  if (n > room)
    throw runtime_error(P + ": header length " + std::to_string(n) + " runs past the end of the file (" +
                        std::to_string(size) + " bytes): the file is truncated or not safetensors");
  if (n > kMaxHeaderBytes)
    throw runtime_error(P + ": header length " + std::to_string(n) + " exceeds the 100 MB limit");
  if (n < 2 || base[8] != '{')
    throw runtime_error(P + ": the header is not a JSON object (it must start with '{')");
  return n;
}

// Parse with json_input's limits, refusing duplicate tensor names (JSON would silently keep the last one).
json parse_header(const unsigned char* base, uint64_t n, const std::string& P) {
  std::set<std::string> seen;
  std::string duplicate;
  const std::string_view text(reinterpret_cast<const char*>(base + 8), n);
  const json header = parse_json(text, P + ": the header", [&](int depth, const std::string& key) {
    if (depth == 1 && !seen.insert(key).second && duplicate.empty()) duplicate = key;
  });
  if (!header.is_object()) throw runtime_error(P + ": the header is not a JSON object");
  if (!duplicate.empty()) throw runtime_error(P + ": tensor " + excerpt(duplicate) + " appears twice in the header");
  return header;
}

void read_metadata(const json& v, const std::string& P, std::map<std::string, std::string>& metadata) {
  if (!v.is_object()) throw runtime_error(P + ": __metadata__ must be an object of strings");
  for (auto m2 = v.begin(); m2 != v.end(); ++m2) {
    if (!m2.value().is_string())
      throw runtime_error(P + ": __metadata__ entry " + excerpt(m2.key()) + " must be a string, not " + json_excerpt(m2.value()));
    metadata[m2.key()] = m2.value().get<std::string>();
  }
}

// The element count of a shape; an overflow is reported only after data_offsets are read (the checks' order).
struct ShapeSize {
  uint64_t numel = 1;
  bool overflow = false;
};

ShapeSize read_shape(const json& shape, const std::string& T, std::vector<int64_t>& out) {
  if (!shape.is_array()) throw runtime_error(T + ": shape must be a list of integers, not " + json_excerpt(shape));
  ShapeSize s;
  for (const auto& d : shape) {
    uint64_t dim = as_u64(d, T + ": shape entries");
    if (dim > (1ull << 62)) s.overflow = true;
    out.push_back(static_cast<int64_t>(dim));
    s.overflow = s.overflow || __builtin_mul_overflow(s.numel, dim, &s.numel);
  }
  return s;
}

void read_offsets(const json& off, const std::string& T, HeaderEntry& e) {
  if (!off.is_array() || off.size() != 2)
    throw runtime_error(T + ": data_offsets must be [begin, end], not " + json_excerpt(off));
  e.begin = as_u64(off[0], T + ": data_offsets");
  e.end = as_u64(off[1], T + ": data_offsets");
  if (e.end < e.begin) throw runtime_error(T + ": data_offsets " + range_str(e) + " end before they begin");
}

// The byte range holds exactly the shape's bytes and lies inside the data section.
void check_extent(const HeaderEntry& e, const std::string& T, ShapeSize s, uint64_t data_size) {
  uint64_t need = 0;
  const bool overflow = s.overflow || __builtin_mul_overflow(s.numel, uint64_t{e.element_size}, &need);
  if (overflow) throw runtime_error(T + ": shape " + shape_text(e.shape) + " is too large");
  if (e.end - e.begin != need)
    throw runtime_error(T + ": data_offsets " + range_str(e) + " hold " + std::to_string(e.end - e.begin) +
                        " bytes but shape " + shape_text(e.shape) + " of " + e.dtype + " needs " + std::to_string(need));
  if (e.end > data_size)
    throw runtime_error(T + ": data_offsets " + range_str(e) + " lie past the end of the data section (" +
                        std::to_string(data_size) + " bytes): the file is truncated or the header is wrong");
}

HeaderEntry parse_entry(const std::string& name, const json& v, const std::string& P, uint64_t data_size) {
  const std::string T = P + ": tensor " + excerpt(name);
  if (!v.is_object()) throw runtime_error(T + ": entry must be an object with dtype, shape, data_offsets");
  for (const char* key : {"dtype", "shape", "data_offsets"})
    if (!v.contains(key)) throw runtime_error(T + ": entry has no \"" + key + "\"");
  HeaderEntry e;
  e.name = name;
  if (!v["dtype"].is_string()) throw runtime_error(T + ": dtype must be a string, not " + json_excerpt(v["dtype"]));
  e.dtype = v["dtype"].get<std::string>();
  e.element_size = dtype_element_size(e.dtype, T);
  const ShapeSize s = read_shape(v["shape"], T, e.shape);
  read_offsets(v["data_offsets"], T, e);
  check_extent(e, T, s, data_size);
  return e;
}

// Data order; no two non-empty ranges may overlap.
void sort_and_check_overlaps(std::vector<HeaderEntry>& entries, const std::string& P) {
  std::sort(entries.begin(), entries.end(), [](const HeaderEntry& a, const HeaderEntry& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  const HeaderEntry* prev = nullptr;
  for (const auto& e : entries) {
    if (e.begin == e.end) continue;
    if (prev && e.begin < prev->end)
      throw runtime_error(P + ": tensor " + excerpt(e.name) + " (bytes " + std::to_string(e.begin) + ".." +
                          std::to_string(e.end) + ") overlaps tensor " + excerpt(prev->name) + " (bytes " +
                          std::to_string(prev->begin) + ".." + std::to_string(prev->end) + ")");
    prev = &e;
  }
}

// Bytes after the last tensor are refused, as the reference implementation refuses them
// (MetadataIncompleteBuffer): they are a truncated rewrite, a concatenation or something hidden.
void check_no_trailing_bytes(const std::vector<HeaderEntry>& entries, uint64_t data_size, const std::string& P) {
  uint64_t last_end = 0;
  for (const auto& e : entries) last_end = std::max(last_end, e.end);
  if (data_size > last_end)
    throw runtime_error(P + ": " + std::to_string(data_size - last_end) + " extra bytes after the last tensor (the " +
                        "tensors end at byte " + std::to_string(last_end) + " of the data section, which has " +
                        std::to_string(data_size) + " bytes): a safetensors file must end where its last tensor ends");
}

}  // namespace

size_t dtype_element_size(const std::string& dtype, const std::string& context) {
  for (const auto& row : kDtypes)
    if (dtype == row.name) return row.element_size;
  for (const char* name : kUnsupportedDtypes)
    if (dtype == name)
      throw runtime_error(context + ": dtype " + dtype + " is not supported (supported: " + kSupportedDtypes + ")");
  throw runtime_error(context + ": unknown dtype \"" + excerpt(dtype) + "\" (a safetensors dtype is one of " +
                      kSupportedDtypes + ")");
}

SafetensorsHeader parse_safetensors_header(const unsigned char* bytes, uint64_t size, const std::string& path) {
  const std::string& P = path;
  SafetensorsHeader out;
  const uint64_t n = header_length(bytes, size, P);
  out.data_start = 8 + n;
  const uint64_t data_size = size - out.data_start;
  const json header = parse_header(bytes, n, P);
  for (auto it = header.begin(); it != header.end(); ++it) {
    if (it.key() == "__metadata__")
      read_metadata(it.value(), P, out.metadata);
    else
      out.entries.push_back(parse_entry(it.key(), it.value(), P, data_size));
  }
  sort_and_check_overlaps(out.entries, P);
  check_no_trailing_bytes(out.entries, data_size, P);
  return out;
}

}  // namespace fmwork::hf
