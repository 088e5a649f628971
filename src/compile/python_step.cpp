// The Python step of the compile backends (see python_step.hpp).
#include "fmwork/compile/python_step.hpp"

#include <torch/version.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>

#include "fmwork/base/error.hpp"
#include "fmwork/base/subprocess.hpp"
#include "fmwork/base/text_format.hpp"

namespace fmwork {

namespace fs = std::filesystem;

std::string env_or(const char* name, const std::string& fallback) {
  const char* value = std::getenv(name);
  return value && *value ? std::string(value) : fallback;
}

std::string tools_python() { return env_or("FMWORK_PYTHON", FMWORK_DEFAULT_PYTHON); }

std::string tool_path(const std::string& name) { return (fs::path(FMWORK_TOOLS_DIR) / name).string(); }

std::string libtorch_version() {
  return fmt::format("{}.{}.{}", TORCH_VERSION_MAJOR, TORCH_VERSION_MINOR, TORCH_VERSION_PATCH);
}

std::vector<std::string> folder_model_files(const std::string& folder) {
  std::vector<std::string> files = {(fs::path(folder) / "config.json").string()};
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(folder, error)) {
    const std::string name = entry.path().filename().string();
    const std::string index = ".safetensors.index.json";
    const bool is_index = name.size() > index.size() && name.compare(name.size() - index.size(), index.size(), index) == 0;
    if (entry.is_regular_file(error) && (entry.path().extension() == ".safetensors" || is_index))
      files.push_back(entry.path().string());
  }
  std::sort(files.begin() + 1, files.end());
  return files;
}

std::string option_text(const Value& tree, const std::string& key) {
  if (tree.type != Value::Type::dict) return "";
  for (const auto& [k, v] : tree.entries)
    if (k == key) return str(v);
  return "";
}

nlohmann::json run_python_tool(const std::vector<std::string>& argv, const std::string& prefix,
                               const std::string& needs) {
  SubprocessResult r;
  try {
    r = run_subprocess(argv);
  } catch (const Error& e) {
    throw usage_error(fmt::format("{}cannot run {} with {} ({}); set FMWORK_PYTHON to a Python with {}", prefix,
                                  argv.size() > 1 ? argv[1] : "the tool", argv.front(), e.what(), needs));
  }
  if (r.exit_code != 0) {
    std::string why = last_line(r.err);
    if (starts_with(why, "error: ")) why = why.substr(7);
    const std::string message = prefix + (why.empty() ? fmt::format("the tool failed (exit {})", r.exit_code) : why);
    throw r.exit_code == 2 ? usage_error(message) : runtime_error(message);
  }
  nlohmann::json report = nlohmann::json::parse(last_line(r.out), nullptr, false);
  if (!report.is_object()) throw runtime_error(prefix + "the tool reported no result");
  return report;
}

}  // namespace fmwork
