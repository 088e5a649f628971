// Shared by the runner's tests: a shell script standing in for the driver, the experiment it runs, and the
// tree's files read back.
#pragma once

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "support/temp_dir.hpp"

namespace fmwork::campaign_fixtures {

namespace fs = std::filesystem;

inline const std::vector<std::string> kArgv = {"--platform",    "cpu",  "--model_class", "C", "--model_name", "m",
                                               "--reps",        "2",    "--input_sizes", "8,16",
                                               "--batch_sizes", "1"};

// A driver stand-in: prints its platform, then a RES line per input size of --input_sizes (batch 1), and
// fails (exit 1 after a FAIL line for input 16) when its model is named "bad".
inline const char* const kFakeDriver = R"(#!/bin/sh
platform=; inputs=; model=
while [ $# -gt 0 ]; do
  case "$1" in --platform) platform=$2;; --input_sizes) inputs=$2;; --model_name) model=$2;; esac; shift
done
echo "platform $platform"
for i in $(echo "$inputs" | tr , ' '); do
  if [ "$model" = bad ] && [ "$i" = 16 ]; then echo "FMWORK FAIL input=16 batch=1 error=no"; echo "error: no" >&2; exit 1; fi
  if [ "$model" = quiet ]; then exit 0; fi  # exit 0 without a result
  echo "FMWORK RES 1.000000000 2.000000000 $model c $i 1 1.000 1000.0"
done
)";

inline std::string fake_driver(const TempDir& dir) {
  const std::string path = dir.write("driver.sh", kFakeDriver);
  ::chmod(path.c_str(), 0755);
  return path;
}

// The experiment of the runner's tests, with its three model files beside it (the runner checks that each
// model exists before it makes the tree; the fake driver never opens them).
inline std::string experiment(const TempDir& dir) {
  for (const char* model : {"m1", "m2", "bad"}) dir.write(model, "");
  return dir.write("exp.json", R"({"defaults": {"options": {"--platform": "cpu", "--model_class": "C", "--reps": 2,
      "--input_sizes": "8,16", "--batch_sizes": "1"}},
    "runs": [{"id": "a", "matrix": {"--model_name": ["m1", "m2", "bad"]}}]})");
}

inline std::string only_child(const std::string& dir) {
  std::vector<fs::path> entries{fs::directory_iterator(dir), fs::directory_iterator()};
  EXPECT_EQ(entries.size(), 1u) << dir;
  return entries.empty() ? "" : entries[0].string();
}

// The current folder set to `dir` for the object's life, then restored: `driver run --slurm` writes it on an
// #SBATCH line, which refuses a path with spaces, so the tests do not depend on where the build runs them.
class ScopedCurrentPath {
 public:
  explicit ScopedCurrentPath(const std::string& dir) : old_(fs::current_path()) { fs::current_path(dir); }
  ~ScopedCurrentPath() {
    std::error_code ignored;
    fs::current_path(old_, ignored);
  }
  ScopedCurrentPath(const ScopedCurrentPath&) = delete;
  ScopedCurrentPath& operator=(const ScopedCurrentPath&) = delete;

 private:
  fs::path old_;
};

}  // namespace fmwork::campaign_fixtures
