// The safetensors reader (mmap, validated, zero-copy) and writer. See include/fmwork/model/safetensors.hpp.
#include "fmwork/model/safetensors.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "fmwork/base/error.hpp"
#include "fmwork/base/mapped_files.hpp"
#include "fmwork/hf/safetensors_header.hpp"
#include "fmwork/base/json_input.hpp"
#include "fmwork/base/regular_file.hpp"

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "safetensors data is little-endian; this reader maps it as is");

namespace fmwork::hf {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

struct DtypeRow {
  const char* name;
  at::ScalarType type;
};
// The ATen types of safetensors_header's supported dtypes.
constexpr DtypeRow kDtypes[] = {
    {"F64", at::kDouble}, {"F32", at::kFloat}, {"F16", at::kHalf}, {"BF16", at::kBFloat16},
    {"I64", at::kLong},   {"I32", at::kInt},   {"I16", at::kShort}, {"I8", at::kChar},
    {"U8", at::kByte},    {"BOOL", at::kBool},
};

std::string mb(uint64_t bytes) {
  std::ostringstream os;
  os.setf(std::ios::fixed);
  os.precision(1);
  os << bytes / 1e6 << " MB";
  return os.str();
}

at::ScalarType scalar_type_of(const std::string& dtype, const std::string& context) {
  dtype_element_size(dtype, context);  // the message for a dtype outside the table
  for (const auto& row : kDtypes)
    if (dtype == row.name) return row.type;
  throw runtime_error(context + ": dtype " + dtype + " has no ATen type here");
}

std::string dtype_name_of(at::ScalarType type) {
  for (const auto& row : kDtypes)
    if (row.type == type) return row.name;
  throw runtime_error(std::string("safetensors cannot hold tensors of type ") + c10::toString(type));
}

// ---------------------------------------------------------------------------------------------------------
// SafetensorsFile

struct Mapping {
  void* map = nullptr;
  uint64_t size = 0;
};

// The whole regular file at P mapped; nothing mapped when it is shorter than the 8-byte header length.
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
  if (m.size < 8) {  // too short to hold a header length: parse_safetensors_header says so
    ::close(fd);
    return m;
  }
  // Private and writable: a tensor written to in place gets its own copy of the page, never the file's.
  void* map = ::mmap(nullptr, m.size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  int map_errno = errno;
  ::close(fd);
  if (map == MAP_FAILED) throw runtime_error(P + ": cannot mmap: " + std::strerror(map_errno));
  m.map = map;
  return m;
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
  register_mapped_file(m.map, m.size, P);  // a file cut short later: zero pages and a FAIL line, not SIGBUS
  SafetensorsHeader header = parse_safetensors_header(static_cast<const unsigned char*>(m.map), m.size, P);
  file->data_start_ = header.data_start;
  file->metadata_ = std::move(header.metadata);
  for (auto& e : header.entries) {
    const at::ScalarType type = scalar_type_of(e.dtype, P + ": tensor " + excerpt(e.name));
    file->entries_.push_back(TensorEntry{std::move(e), type});
  }
  for (size_t i = 0; i < file->entries_.size(); ++i) file->index_[file->entries_[i].name] = i;
  return file;
}

SafetensorsFile::~SafetensorsFile() {
  unregister_mapped_file(map_);
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
  if (!out) throw runtime_error(path + ": cannot open for writing (" + std::strerror(errno) + ")");
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
  errno = 0;
  out.flush();
  if (!out) throw runtime_error(path + ": cannot write (" + std::strerror(errno ? errno : EIO) + ")");
}

}  // namespace fmwork::hf
