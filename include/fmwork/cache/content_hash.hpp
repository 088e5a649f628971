// Content digests: of files (the model's weights, a cache entry's artifacts) and of texts (a cache key).
// Not cryptographic: they tell changed and damaged files apart, not forged ones. Fast, because the
// weights are hashed at every driver start: XXH64's lane round over four independent 64-bit lanes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace fmwork {

// A streaming 128-bit digest: the same bytes fed in any pieces give the same digest. Words are read in
// host byte order (every host fmwork runs on is little-endian); digests are compared on one machine.
class ContentHasher {
 public:
  void update(const void* data, size_t n);
  void update_u64(uint64_t x) { update(&x, sizeof x); }
  // The length, then the bytes: no two sequences of texts feed the same bytes.
  void update_text(const std::string& s) {
    update_u64(s.size());
    update(s.data(), s.size());
  }
  // 32 lowercase hex digits of what was fed so far.
  std::string hex_digest() const;

 private:
  static constexpr size_t kStripe = 32;
  void stripes(const unsigned char* p, size_t n);
  uint64_t finish(int variant) const;

  // XXH64's start (seed 0): P1 + P2, P2, 0, -P1.
  uint64_t v_[4] = {0x9E3779B185EBCA87ULL + 0xC2B2AE3D27D4EB4FULL, 0xC2B2AE3D27D4EB4FULL, 0, 0 - 0x9E3779B185EBCA87ULL};
  uint64_t total_ = 0;
  unsigned char buf_[kStripe] = {};
  size_t fill_ = 0;
};

// What hash_files does with a path that is a symlink: follow it (the weights in a Hugging Face cache are
// links to blobs), or refuse it as an unreadable file (a cache entry must not reach outside its folder).
enum class Symlinks { follow, refuse };

// The 128-bit digest (32 hex digits) of the files, in their order. Each file's base name and size are
// part of it, so renaming a file changes it; its folder is not. A runtime Error naming the file when one
// cannot be read or is no regular file, or changes size while it is read.
std::string hash_files(const std::vector<std::string>& paths, Symlinks symlinks = Symlinks::follow);

}  // namespace fmwork
