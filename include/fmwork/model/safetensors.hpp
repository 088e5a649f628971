// The safetensors format (https://github.com/huggingface/safetensors): a memory-mapped, bounds-checked
// reader that hands out tensors viewing the mapping (zero-copy) when the dtype matches, a reader of sharded
// checkpoints (model.safetensors.index.json), and a byte-by-byte writer for tests and tools.
//
// The header's layout and checks are hf/safetensors_header's (without LibTorch); files are untrusted: every
// check failure is a one-line runtime Error naming the file and, where there is one, the tensor.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <ATen/ATen.h>

#include "fmwork/hf/safetensors_header.hpp"

namespace fmwork::hf {

// One tensor's entry in a header, validated, with its ATen type.
struct TensorEntry : HeaderEntry {
  at::ScalarType scalar_type;
};

// A safetensors file, memory-mapped (private, copy-on-write: writing into a zero-copy tensor never reaches
// the file) and validated when opened. Tensors handed out keep the mapping alive.
class SafetensorsFile {
 public:
  // Maps and validates the file (parse_safetensors_header: header length against the file size, JSON,
  // dtypes, shapes, offsets, no overlaps, no bytes after the last tensor).
  static std::shared_ptr<SafetensorsFile> open(const std::string& path);
  ~SafetensorsFile();
  SafetensorsFile(const SafetensorsFile&) = delete;
  SafetensorsFile& operator=(const SafetensorsFile&) = delete;

  const std::string& path() const { return path_; }
  const std::vector<TensorEntry>& entries() const { return entries_; }  // in data order
  const TensorEntry* find(const std::string& name) const;               // nullptr when absent
  const std::map<std::string, std::string>& metadata() const { return metadata_; }
  uint64_t file_size() const { return size_; }

  // The tensor, as `dtype` (Undefined: as stored). Zero-copy (a view of the mapping) when the dtype matches
  // and the data is aligned for its element size; otherwise a converted copy. Throws a runtime Error
  // naming the file when the name is absent.
  at::Tensor tensor(const std::string& name, at::ScalarType dtype = at::ScalarType::Undefined) const;
  // Whether `t` views this file's mapping (the zero-copy test).
  bool holds(const at::Tensor& t) const;
  // Drops the resident pages lying wholly inside the tensor's byte range from this process (they stay in
  // the page cache): call after copying a tensor's data elsewhere, so that peak RSS does not count it twice.
  void release_pages(const std::string& name) const;

 private:
  SafetensorsFile() = default;
  std::string path_;
  void* map_ = nullptr;
  uint64_t size_ = 0;
  uint64_t data_start_ = 0;  // 8 + N
  std::vector<TensorEntry> entries_;
  std::map<std::string, size_t> index_;
  std::map<std::string, std::string> metadata_;
  std::weak_ptr<SafetensorsFile> self_;
};

// The weights of a model folder: a single model.safetensors, or the shards that
// model.safetensors.index.json lists (each shard opened once).
class Checkpoint {
 public:
  // `folder`/model.safetensors if present, else the shards `folder`/model.safetensors.index.json lists (the
  // order from_pretrained uses). Throws a usage Error when neither exists.
  static Checkpoint open_folder(const std::string& folder);
  static Checkpoint open_file(const std::string& path);
  static Checkpoint open_index(const std::string& index_path);

  std::vector<std::string> names() const;  // every tensor name, sorted
  bool contains(const std::string& name) const { return where_.count(name) > 0; }
  const SafetensorsFile& file_of(const std::string& name) const;
  at::Tensor tensor(const std::string& name, at::ScalarType dtype = at::ScalarType::Undefined) const;
  const TensorEntry& entry(const std::string& name) const;
  const std::vector<std::shared_ptr<SafetensorsFile>>& files() const { return files_; }
  std::string description() const;  // "model.safetensors (199 tensors, 498.6 MB)" / "3 shards via ..."
  uint64_t total_bytes() const;

 private:
  std::vector<std::shared_ptr<SafetensorsFile>> files_;
  std::map<std::string, size_t> where_;  // name -> index in files_
  std::string label_;
};

// Writes `tensors` (name -> tensor, in the order given: the data section follows it) as a safetensors file,
// byte by byte: header padded with spaces to a multiple of 8, data little-endian, C order. Tensors of any
// device/layout are copied to contiguous CPU memory first. Throws a runtime Error on I/O failure or a
// duplicate name.
void write_safetensors(const std::string& path, const std::vector<std::pair<std::string, at::Tensor>>& tensors,
                       const std::map<std::string, std::string>& metadata = {});

}  // namespace fmwork::hf
