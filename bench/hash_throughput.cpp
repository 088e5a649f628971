// bench/hash_throughput.sh: hash_files (the content digest that keys the artifact cache and names a model's
// weights) on one file of N MiB, twice: the first pass as it comes, the second from the page cache, as at a
// driver start. A benchmark, not a test: the figures depend on the machine and its load.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "fmwork/cache/content_hash.hpp"

int main(int argc, char** argv) {
  const long mib = argc > 1 ? std::atol(argv[1]) : 256;
  if (mib <= 0 || mib > 65536) {
    std::fprintf(stderr, "usage: hash_throughput [MiB, 1 to 65536]\n");
    return 2;
  }
  const std::string path = (std::filesystem::temp_directory_path() / "fmwork-hash-throughput.bin").string();
  {
    std::string block(1 << 20, '\0');
    for (size_t i = 0; i < block.size(); ++i) block[i] = static_cast<char>(i * 2654435761u >> 13);
    std::ofstream out(path, std::ios::binary);
    for (long i = 0; i < mib; ++i) out << block;
  }
  for (int pass = 1; pass <= 2; ++pass) {
    const auto start = std::chrono::steady_clock::now();
    const std::string digest = fmwork::hash_files({path});
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("hash_files on %ld MiB, pass %d: %.3f s, %.2f GB/s (%s)\n", mib, pass, s, mib * 1048576.0 / s / 1e9,
                digest.c_str());
  }
  std::filesystem::remove(path);
  return 0;
}
