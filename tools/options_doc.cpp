// docs/options.md's reference tables, written from the option tables the driver's parsers read (so the
// page and `driver --help` cannot disagree). Built with the torch-free core, in every build:
//   options_doc                 prints the generated part
//   options_doc --write PAGE    rewrites the part of PAGE between its marker lines (the options_page target)
//   options_doc --check PAGE    exit 1, saying how to regenerate, when PAGE's part differs from the tables
//                               (ctest Docs.OptionsPageMatchesTheTables)
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "fmwork/base/error.hpp"
#include "fmwork/base/regular_file.hpp"
#include "fmwork/cli/options_page.hpp"

namespace {

std::string read_page(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw fmwork::runtime_error(path + ": cannot open");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

int run(int argc, char** argv) {
  const std::string usage = "usage: options_doc [--write PAGE | --check PAGE]";
  if (argc == 1) {
    std::cout << fmwork::options_reference_markdown();
    return 0;
  }
  const std::string mode = argv[1];
  if (argc != 3 || (mode != "--write" && mode != "--check")) throw fmwork::usage_error(usage);
  const std::string path = argv[2];
  const std::string page = read_page(path);
  const std::string wanted = fmwork::with_generated_part(page, fmwork::options_reference_markdown());
  if (mode == "--write") {
    if (wanted != page) fmwork::write_file_atomically(path, wanted);
    return 0;
  }
  if (wanted == page) return 0;
  std::cerr << path << " differs from the option tables (src/cli/options.cpp, src/cli/option_sets.cpp); "
            << "regenerate it: cmake --build <build folder> --target options_page\n";
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const fmwork::Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return e.exit_code();
  }
}
