// A scratch folder for a test: made fresh under the system's temporary folder, removed with everything in
// it when the test ends.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>

namespace fmwork {

class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "fmwork-test") {
    std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
    if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  // Writes `contents` to the file `name` in the folder; returns its path.
  std::string write(const std::string& name, const std::string& contents) const {
    std::string file = path_ + "/" + name;
    std::ofstream(file, std::ios::binary) << contents;
    return file;
  }
  const std::string& path() const { return path_; }
  // The path of `name` in the folder (nothing is created).
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// The whole of a file a test had written ("" when it cannot be read): the one home of this helper, for every
// fixture header (two copies met in one unity batch and made every call ambiguous).
inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace fmwork
