// An environment variable set for a test's scope. Header-only, so that the torch-free core tests use it too.
#pragma once

#include <stdlib.h>

#include <optional>
#include <string>
#include <utility>

namespace fmwork::test_support {

// Sets an environment variable for the life of the object, restoring (or unsetting) it afterwards.
class ScopedEnv {
 public:
  ScopedEnv(std::string name, const std::string& value) : name_(std::move(name)) {
    if (const char* old = std::getenv(name_.c_str())) old_ = old;
    setenv(name_.c_str(), value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_) setenv(name_.c_str(), old_->c_str(), 1);
    else unsetenv(name_.c_str());
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::optional<std::string> old_;
};

}  // namespace fmwork::test_support
