// The safetensors reader (mmap, validated, zero-copy) and writer. See include/fmwork/hf/safetensors.hpp.
#include "fmwork/hf/safetensors.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "fmwork/error.hpp"
#include "fmwork/json_input.hpp"
#include "fmwork/regular_file.hpp"

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "safetensors data is little-endian; this reader maps it as is");

namespace fmwork::hf {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

constexpr uint64_t kMaxHeaderBytes = 100ull << 20;  // the limit of the reference implementation

struct DtypeRow {
  const char* name;
  at::ScalarType type;
};
constexpr DtypeRow kDtypes[] = {
    {"F64", at::kDouble}, {"F32", at::kFloat}, {"F16", at::kHalf}, {"BF16", at::kBFloat16},
    {"I64", at::kLong},   {"I32", at::kInt},   {"I16", at::kShort}, {"I8", at::kChar},
    {"U8", at::kByte},    {"BOOL", at::kBool},
};
// Known to the format, not to this reader.
constexpr const char* kUnsupportedDtypes[] = {"F8_E4M3", "F8_E5M2", "F8_E8M0", "F4", "F6_E2M3", "F6_E3M2",
                                              "U16",     "U32",     "U64",     "C64"};

std::string shape_str(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

std::string mb(uint64_t bytes) {
  std::ostringstream os;
  os.setf(std::ios::fixed);
  os.precision(1);
  os << bytes / 1e6 << " MB";
  return os.str();
}

// A JSON value as an unsigned integer, or a runtime Error naming `what`.
uint64_t as_u64(const json& v, const std::string& what) {
  if (v.is_number_unsigned()) return v.get<uint64_t>();
  if (v.is_number_integer() && v.get<int64_t>() >= 0) return static_cast<uint64_t>(v.get<int64_t>());
  throw runtime_error(what + " must be a non-negative integer, not " + json_excerpt(v));
}

}  // namespace

at::ScalarType scalar_type_of(const std::string& dtype, const std::string& context) {
  for (const auto& row : kDtypes)
    if (dtype == row.name) return row.type;
  for (const char* name : kUnsupportedDtypes)
    if (dtype == name)
      throw runtime_error(context + ": dtype " + dtype +
                          " is not supported (supported: F64 F32 F16 BF16 I64 I32 I16 I8 U8 BOOL)");
  throw runtime_error(context + ": unknown dtype \"" + dtype +
                      "\" (a safetensors dtype is one of F64 F32 F16 BF16 I64 I32 I16 I8 U8 BOOL)");
}

std::string dtype_name_of(at::ScalarType type) {
  for (const auto& row : kDtypes)
    if (row.type == type) return row.name;
  throw runtime_error(std::string("safetensors cannot hold tensors of type ") + c10::toString(type));
}

// ---------------------------------------------------------------------------------------------------------
// SafetensorsFile

namespace {

struct Mapping {
  void* map = nullptr;
  uint64_t size = 0;
};

// The whole regular file at P mapped, at least 8 bytes of it.
Mapping map_file(const std::string& P) {
  refuse_special_file(P);  // a FIFO would block open() forever
  int fd = ::open(P.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw runtime_error(P + ": cannot open: " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    int e = errno;
    ::close(fd);
    throw runtime_error(P + ": cannot stat: " + std::strerror(e));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    throw runtime_error(P + ": not a regular file");
  }
  Mapping m;
  m.size = static_cast<uint64_t>(st.st_size);
  if (m.size < 8) {
    ::close(fd);
    throw runtime_error(P + ": truncated: the file has " + std::to_string(m.size) +
                        " bytes; a safetensors file starts with an 8-byte header length");
  }
  // Private and writable: a tensor written to in place gets its own copy of the page, never the file's.
  void* map = ::mmap(nullptr, m.size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  int map_errno = errno;
  ::close(fd);
  if (map == MAP_FAILED) throw runtime_error(P + ": cannot mmap: " + std::strerror(map_errno));
  m.map = map;
  return m;
}

// The header's length from the first 8 bytes, checked against the file's size.
uint64_t header_length(const unsigned char* base, uint64_t size, const std::string& P) {
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

void read_offsets(const json& off, const std::string& T, TensorEntry& e) {
  if (!off.is_array() || off.size() != 2)
    throw runtime_error(T + ": data_offsets must be [begin, end], not " + json_excerpt(off));
  e.begin = as_u64(off[0], T + ": data_offsets");
  e.end = as_u64(off[1], T + ": data_offsets");
  if (e.end < e.begin)
    throw runtime_error(T + ": data_offsets [" + std::to_string(e.begin) + ", " + std::to_string(e.end) +
                        "] end before they begin");
}

// The byte range holds exactly the shape's bytes and lies inside the data section.
void check_extent(const TensorEntry& e, const std::string& T, ShapeSize s, uint64_t data_size) {
  const uint64_t item = c10::elementSize(e.scalar_type);
  uint64_t need = 0;
  const bool overflow = s.overflow || __builtin_mul_overflow(s.numel, item, &need);
  if (overflow) throw runtime_error(T + ": shape " + shape_str(e.shape) + " is too large");
  if (e.end - e.begin != need)
    throw runtime_error(T + ": data_offsets [" + std::to_string(e.begin) + ", " + std::to_string(e.end) + "] hold " +
                        std::to_string(e.end - e.begin) + " bytes but shape " + shape_str(e.shape) + " of " +
                        e.dtype + " needs " + std::to_string(need));
  if (e.end > data_size)
    throw runtime_error(T + ": data_offsets [" + std::to_string(e.begin) + ", " + std::to_string(e.end) +
                        "] lie past the end of the data section (" + std::to_string(data_size) +
                        " bytes): the file is truncated or the header is wrong");
}

TensorEntry parse_entry(const std::string& name, const json& v, const std::string& P, uint64_t data_size) {
  const std::string T = P + ": tensor " + excerpt(name);
  if (!v.is_object()) throw runtime_error(T + ": entry must be an object with dtype, shape, data_offsets");
  for (const char* key : {"dtype", "shape", "data_offsets"})
    if (!v.contains(key)) throw runtime_error(T + ": entry has no \"" + key + "\"");
  TensorEntry e;
  e.name = name;
  if (!v["dtype"].is_string()) throw runtime_error(T + ": dtype must be a string, not " + json_excerpt(v["dtype"]));
  e.dtype = v["dtype"].get<std::string>();
  e.scalar_type = scalar_type_of(e.dtype, T);
  const ShapeSize s = read_shape(v["shape"], T, e.shape);
  read_offsets(v["data_offsets"], T, e);
  check_extent(e, T, s, data_size);
  return e;
}

// Data order; no two non-empty ranges may overlap.
void sort_and_check_overlaps(std::vector<TensorEntry>& entries, const std::string& P) {
  std::sort(entries.begin(), entries.end(), [](const TensorEntry& a, const TensorEntry& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  const TensorEntry* prev = nullptr;
  for (const auto& e : entries) {
    if (e.begin == e.end) continue;
    if (prev && e.begin < prev->end)
      throw runtime_error(P + ": tensor " + e.name + " (bytes " + std::to_string(e.begin) + ".." +
                          std::to_string(e.end) + ") overlaps tensor " + prev->name + " (bytes " +
                          std::to_string(prev->begin) + ".." + std::to_string(prev->end) + ")");
    prev = &e;
  }
}

}  // namespace

std::shared_ptr<SafetensorsFile> SafetensorsFile::open(const std::string& path) {
  std::shared_ptr<SafetensorsFile> file(new SafetensorsFile());
  file->self_ = file;
  file->path_ = path;
  const std::string& P = path;

  const Mapping m = map_file(P);
  file->size_ = m.size;
  file->map_ = m.map;
  const auto* base = static_cast<const unsigned char*>(m.map);
  const uint64_t n = header_length(base, file->size_, P);
  file->data_start_ = 8 + n;
  const uint64_t data_size = file->size_ - file->data_start_;

  const json header = parse_header(base, n, P);
  for (auto it = header.begin(); it != header.end(); ++it) {
    if (it.key() == "__metadata__")
      read_metadata(it.value(), P, file->metadata_);
    else
      file->entries_.push_back(parse_entry(it.key(), it.value(), P, data_size));
  }
  sort_and_check_overlaps(file->entries_, P);
  for (size_t i = 0; i < file->entries_.size(); ++i) file->index_[file->entries_[i].name] = i;
  return file;
}

SafetensorsFile::~SafetensorsFile() {
  if (map_) ::munmap(map_, size_);
}

const TensorEntry* SafetensorsFile::find(const std::string& name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : &entries_[it->second];
}

at::Tensor SafetensorsFile::tensor(const std::string& name, at::ScalarType dtype) const {
  const TensorEntry* e = find(name);
  if (!e) throw runtime_error(path_ + ": has no tensor " + name);
  if (dtype == at::ScalarType::Undefined) dtype = e->scalar_type;
  auto* ptr = static_cast<unsigned char*>(map_) + data_start_ + e->begin;
  const auto stored = at::TensorOptions().dtype(e->scalar_type);
  if (e->begin == e->end) return at::empty(e->shape, at::TensorOptions().dtype(dtype));
  const uint64_t item = c10::elementSize(e->scalar_type);
  const bool aligned = reinterpret_cast<uintptr_t>(ptr) % item == 0;
  if (e->scalar_type == at::kBool) {
    // Bytes other than 0 and 1 are not valid bools: normalise through U8.
    auto bytes = at::from_blob(ptr, e->shape, at::TensorOptions().dtype(at::kByte));
    return bytes.ne(0).to(dtype);
  }
  if (dtype == e->scalar_type && aligned) {
    auto keep = self_.lock();  // the mapping lives as long as any tensor viewing it
    return at::from_blob(ptr, e->shape, [keep](void*) {}, stored);
  }
  if (aligned) return at::from_blob(ptr, e->shape, stored).to(dtype, /*non_blocking=*/false, /*copy=*/true);
  auto copy = at::empty(e->shape, stored);
  std::memcpy(copy.data_ptr(), ptr, e->end - e->begin);
  return copy.to(dtype);
}

bool SafetensorsFile::holds(const at::Tensor& t) const {
  if (!t.defined() || !t.has_storage()) return false;
  auto p = reinterpret_cast<uintptr_t>(t.data_ptr());
  auto b = reinterpret_cast<uintptr_t>(map_);
  return p >= b && p < b + size_;
}

void SafetensorsFile::release_pages(const std::string& name) const {
  const TensorEntry* e = find(name);
  if (!e) return;
  const uintptr_t page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  auto b = reinterpret_cast<uintptr_t>(map_) + data_start_ + e->begin;
  auto end = reinterpret_cast<uintptr_t>(map_) + data_start_ + e->end;
  uintptr_t first = (b + page - 1) / page * page, last = end / page * page;
  if (last > first) ::madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
}

// ---------------------------------------------------------------------------------------------------------
// Checkpoint

Checkpoint Checkpoint::open_folder(const std::string& folder) {
  const std::string index = folder + "/model.safetensors.index.json";
  const std::string single = folder + "/model.safetensors";
  if (fs::exists(single)) return open_file(single);  // Hugging Face's order: the single file first
  if (fs::exists(index)) return open_index(index);
  throw usage_error(folder + ": no model.safetensors or model.safetensors.index.json");
}

Checkpoint Checkpoint::open_file(const std::string& path) {
  Checkpoint c;
  c.files_.push_back(SafetensorsFile::open(path));
  for (const auto& e : c.files_[0]->entries()) c.where_[e.name] = 0;
  c.label_ = fs::path(path).filename().string();
  return c;
}

Checkpoint Checkpoint::open_index(const std::string& index_path) {
  const std::string& P = index_path;
  const json index = read_json_file(index_path);
  if (!index.is_object() || !index.contains("weight_map") || !index["weight_map"].is_object())
    throw runtime_error(P + ": has no \"weight_map\" object (tensor name -> shard file)");
  const auto dir = fs::path(index_path).parent_path();
  Checkpoint c;
  std::map<std::string, size_t> shard_index;
  std::vector<std::pair<std::string, std::string>> wanted;  // tensor, shard
  for (auto it = index["weight_map"].begin(); it != index["weight_map"].end(); ++it) {
    if (!it.value().is_string())
      throw runtime_error(P + ": weight_map entry " + excerpt(it.key()) + " must name a shard file, not " + json_excerpt(it.value()));
    std::string shard = it.value().get<std::string>();
    if (shard.empty() || shard.find('/') != std::string::npos || shard.find('\\') != std::string::npos ||
        shard == "." || shard == "..")
      throw runtime_error(P + ": weight_map entry " + it.key() + " names shard \"" + shard +
                          "\"; a shard must be a file name in the same folder");
    if (!shard_index.count(shard)) {
      const std::string shard_path = (dir / shard).string();
      if (!fs::exists(shard_path))
        throw runtime_error(P + ": shard " + shard + " (for tensor " + it.key() + ") is missing from the folder");
      shard_index[shard] = c.files_.size();
      c.files_.push_back(SafetensorsFile::open(shard_path));
    }
    wanted.emplace_back(it.key(), shard);
  }
  if (c.files_.empty()) throw runtime_error(P + ": weight_map is empty");
  for (size_t i = 0; i < c.files_.size(); ++i)
    for (const auto& e : c.files_[i]->entries()) {
      auto [pos, fresh] = c.where_.emplace(e.name, i);
      if (!fresh)
        throw runtime_error(P + ": tensor " + e.name + " is in two shards: " + c.files_[pos->second]->path() +
                            " and " + c.files_[i]->path());
    }
  for (const auto& [name, shard] : wanted) {
    auto it = c.where_.find(name);
    if (it == c.where_.end() || it->second != shard_index[shard])
      throw runtime_error(P + ": weight_map puts tensor " + name + " in " + shard + ", which does not hold it");
  }
  c.label_ = std::to_string(c.files_.size()) + " shard" + (c.files_.size() == 1 ? "" : "s") + " via " +
             fs::path(index_path).filename().string();
  return c;
}

std::vector<std::string> Checkpoint::names() const {
  std::vector<std::string> out;
  for (const auto& [name, _] : where_) out.push_back(name);
  return out;
}

const SafetensorsFile& Checkpoint::file_of(const std::string& name) const {
  auto it = where_.find(name);
  if (it == where_.end()) throw runtime_error(label_ + ": has no tensor " + name);
  return *files_[it->second];
}

at::Tensor Checkpoint::tensor(const std::string& name, at::ScalarType dtype) const {
  return file_of(name).tensor(name, dtype);
}

const TensorEntry& Checkpoint::entry(const std::string& name) const { return *file_of(name).find(name); }

uint64_t Checkpoint::total_bytes() const {
  uint64_t total = 0;
  for (const auto& f : files_)
    for (const auto& e : f->entries()) total += e.end - e.begin;
  return total;
}

std::string Checkpoint::description() const {
  return label_ + " (" + std::to_string(where_.size()) + " tensors, " + mb(total_bytes()) + ")";
}

// ---------------------------------------------------------------------------------------------------------
// Writer

void write_safetensors(const std::string& path, const std::vector<std::pair<std::string, at::Tensor>>& tensors,
                       const std::map<std::string, std::string>& metadata) {
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  if (!metadata.empty()) {
    header["__metadata__"] = nlohmann::ordered_json::object();
    for (const auto& [k, v] : metadata) header["__metadata__"][k] = v;
  }
  std::vector<at::Tensor> data;
  std::set<std::string> names;
  uint64_t offset = 0;
  for (const auto& [name, t] : tensors) {
    if (name == "__metadata__") throw runtime_error(path + ": a tensor cannot be named __metadata__");
    if (!names.insert(name).second) throw runtime_error(path + ": tensor " + name + " given twice");
    auto c = t.detach().to(at::kCPU).contiguous();
    const uint64_t bytes = static_cast<uint64_t>(c.numel()) * c.element_size();
    header[name] = {{"dtype", dtype_name_of(c.scalar_type())},
                    {"shape", std::vector<int64_t>(c.sizes().begin(), c.sizes().end())},
                    {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
    data.push_back(std::move(c));
  }
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');  // the data section starts 8-aligned
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw runtime_error(path + ": cannot open for writing");
  const uint64_t n = text.size();
  unsigned char len[8];
  for (int i = 0; i < 8; ++i) len[i] = static_cast<unsigned char>(n >> (8 * i));
  out.write(reinterpret_cast<const char*>(len), 8);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  for (const auto& c : data) {
    if (c.scalar_type() == at::kBool) {
      auto bytes = c.to(at::kByte);
      out.write(static_cast<const char*>(bytes.data_ptr()), static_cast<std::streamsize>(bytes.numel()));
    } else {
      out.write(static_cast<const char*>(c.data_ptr()), static_cast<std::streamsize>(c.numel() * c.element_size()));
    }
  }
  out.flush();
  if (!out) throw runtime_error(path + ": write failed (disk full?)");
}

}  // namespace fmwork::hf
