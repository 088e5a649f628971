// The content digest: XXH64's lane round over four 64-bit lanes (32-byte stripes), so that four multiply
// chains run side by side (several GB/s); two differently merged 64-bit halves make 128 bits.
#include "fmwork/cache/content_hash.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "fmwork/base/error.hpp"

namespace fmwork {

namespace {

constexpr uint64_t P1 = 0x9E3779B185EBCA87ULL, P2 = 0xC2B2AE3D27D4EB4FULL, P3 = 0x165667B19E3779F9ULL,
                   P4 = 0x85EBCA77C2B2AE63ULL, P5 = 0x27D4EB2F165667C5ULL;

inline uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
inline uint64_t read64(const unsigned char* p) {
  uint64_t w;
  std::memcpy(&w, p, 8);
  return w;
}
inline uint64_t lane_round(uint64_t acc, uint64_t w) { return rotl(acc + w * P2, 31) * P1; }
inline uint64_t avalanche(uint64_t h) {
  h = (h ^ (h >> 33)) * P2;
  h = (h ^ (h >> 29)) * P3;
  return h ^ (h >> 32);
}

struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

// Feeds the file's base name, size and bytes.
void hash_file_into(ContentHasher& h, const std::string& path, Symlinks symlinks, std::vector<unsigned char>& buf) {
  const Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC | (symlinks == Symlinks::refuse ? O_NOFOLLOW : 0))};
  if (f.fd < 0) throw runtime_error(path + ": cannot read (" + std::strerror(errno) + ")");
  struct stat st {};
  if (::fstat(f.fd, &st) != 0 || !S_ISREG(st.st_mode))
    throw runtime_error(path + ": cannot read (not a regular file)");
  ::posix_fadvise(f.fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  h.update_text(std::filesystem::path(path).filename().string());
  h.update_u64(static_cast<uint64_t>(st.st_size));
  uint64_t seen = 0;
  for (;;) {
    const ssize_t got = ::read(f.fd, buf.data(), buf.size());
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw runtime_error(path + ": cannot read (" + std::strerror(errno) + ")");
    if (got == 0) break;
    h.update(buf.data(), static_cast<size_t>(got));
    seen += static_cast<uint64_t>(got);
  }
  if (seen != static_cast<uint64_t>(st.st_size))
    throw runtime_error(path + ": changed while it was read (" + std::to_string(st.st_size) + " bytes, then " +
                        std::to_string(seen) + ")");
}

}  // namespace

void ContentHasher::update(const void* data, size_t n) {
  auto p = static_cast<const unsigned char*>(data);
  total_ += n;
  if (fill_ > 0) {
    const size_t take = std::min(n, kStripe - fill_);
    std::memcpy(buf_ + fill_, p, take);
    fill_ += take, p += take, n -= take;
    if (fill_ < kStripe) return;
    stripes(buf_, kStripe);
    fill_ = 0;
  }
  const size_t whole = n - n % kStripe;
  stripes(p, whole);
  std::memcpy(buf_, p + whole, n - whole);
  fill_ = n - whole;
}

void ContentHasher::stripes(const unsigned char* p, size_t n) {
  uint64_t a = v_[0], b = v_[1], c = v_[2], d = v_[3];  // in registers: four independent chains
  for (const unsigned char* end = p + n; p < end; p += kStripe) {
    a = lane_round(a, read64(p));
    b = lane_round(b, read64(p + 8));
    c = lane_round(c, read64(p + 16));
    d = lane_round(d, read64(p + 24));
  }
  v_[0] = a, v_[1] = b, v_[2] = c, v_[3] = d;
}

// XXH64's merge and tail, in two variants (other rotations, the lanes in reverse order, another start), so
// that both halves depend on every lane and every byte.
uint64_t ContentHasher::finish(int variant) const {
  static constexpr int kRot[2][4] = {{1, 7, 12, 18}, {5, 17, 29, 43}};
  uint64_t h = variant ? P3 + P5 : P5;
  if (total_ >= kStripe) {
    h = 0;
    for (int i = 0; i < 4; ++i) h += rotl(v_[variant ? 3 - i : i], kRot[variant][i]);
    for (int i = 0; i < 4; ++i) h = (h ^ lane_round(0, v_[variant ? 3 - i : i])) * P1 + P4;
  }
  h += total_;
  const unsigned char* p = buf_;
  size_t n = fill_;
  for (; n >= 8; n -= 8, p += 8) h = rotl(h ^ lane_round(0, read64(p)), 27) * P1 + P4;
  if (n >= 4) {
    uint32_t w;
    std::memcpy(&w, p, 4);
    h = rotl(h ^ (uint64_t{w} * P1), 23) * P2 + P3;
    n -= 4, p += 4;
  }
  for (; n > 0; --n, ++p) h = rotl(h ^ (*p * P5), 11) * P1;
  return avalanche(h);
}

std::string ContentHasher::hex_digest() const { return fmt::format("{:016x}{:016x}", finish(0), finish(1)); }

std::string hash_files(const std::vector<std::string>& paths, Symlinks symlinks) {
  ContentHasher h;
  std::vector<unsigned char> buf(size_t{1} << 20);  // one read() per MiB: the system calls cost nothing
  h.update_u64(paths.size());
  for (const auto& p : paths) hash_file_into(h, p, symlinks, buf);
  return h.hex_digest();
}

}  // namespace fmwork
