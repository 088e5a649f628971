// A fuzz target without libFuzzer: runs LLVMFuzzerTestOneInput once on every file of the folders (or files)
// given, so that ctest replays the seed corpus and the regression inputs in every build, sanitizers included.
// A folder that does not exist is skipped (a target without findings has no regressions/ folder).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

namespace fs = std::filesystem;

void replay(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.eof() && in.fail()) throw std::runtime_error(file.string() + ": cannot be read");
  // A copy of its own, so that ASan sees a read past the input's end.
  std::vector<uint8_t> copy(bytes.begin(), bytes.end());
  LLVMFuzzerTestOneInput(copy.data(), copy.size());
}

}  // namespace

int main(int argc, char** argv) {
  size_t replayed = 0;
  for (int i = 1; i < argc; ++i) {
    const fs::path arg = argv[i];
    std::vector<fs::path> files;
    if (fs::is_directory(arg)) {
      for (const auto& entry : fs::directory_iterator(arg))
        if (entry.is_regular_file()) files.push_back(entry.path());
    } else if (fs::exists(arg)) {
      files.push_back(arg);
    }
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      std::cout << "replaying " << f.string() << std::endl;  // before it runs: the last line names a crash's input
      replay(f);
      ++replayed;
    }
  }
  std::cout << argv[0] << ": " << replayed << " inputs replayed, none crashed\n";
  return 0;
}
