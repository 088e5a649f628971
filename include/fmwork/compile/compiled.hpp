// What a compile step hands back: the model the sweep times and the notes for the MODEL section.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "fmwork/model/model.hpp"

namespace fmwork {

struct Compiled {
  std::unique_ptr<Model> model;    // compiled, or the model as given when nothing was compiled
  std::vector<std::string> notes;  // what was done, one line each ("compile: torchscript (...)")
};

}  // namespace fmwork
