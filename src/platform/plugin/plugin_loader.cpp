// Finding and loading a platform plugin (see plugin_loader.hpp).
#include "fmwork/platform/plugin/plugin_loader.hpp"

#include <dlfcn.h>
#include <torch/version.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "fmwork/base/error.hpp"
#include "fmwork/platform/plugin/plugin_abi.hpp"

namespace fmwork {
namespace {

namespace fs = std::filesystem;

// "2.1.0" -> {2, 1}; nullopt when not of that form.
std::optional<std::pair<int, int>> major_minor(const std::string& version) {
  int major = 0, minor = 0;
  if (std::sscanf(version.c_str(), "%d.%d", &major, &minor) != 2) return std::nullopt;
  return std::make_pair(major, minor);
}

std::string host_torch_version() {
  return std::to_string(TORCH_VERSION_MAJOR) + "." + std::to_string(TORCH_VERSION_MINOR) + "." +
         std::to_string(TORCH_VERSION_PATCH);
}

const fmwork_platform_plugin* entry_table(void* handle, const std::string& prefix, const std::string& path,
                                          const std::string& tried_text) {
  dlerror();
  void* symbol = dlsym(handle, FMWORK_PLUGIN_ENTRY_NAME);
  if (!symbol)
    throw usage_error(prefix + path + " is not an fmwork platform plugin: it exports no " +
                      FMWORK_PLUGIN_ENTRY_NAME + "(); " + tried_text);
  auto entry = reinterpret_cast<fmwork_platform_plugin_entry_fn>(symbol);
  const fmwork_platform_plugin* table = entry();
  if (!table)
    throw usage_error(prefix + path + ": " + FMWORK_PLUGIN_ENTRY_NAME + "() returned no table; " + tried_text);
  return table;
}

// Throws unless the table speaks this host's interface, is complete and was built with this LibTorch.
void check_table(const fmwork_platform_plugin& table, const std::string& prefix, const std::string& path,
                 const std::string& tried_text) {
  if (table.interface_version != FMWORK_PLUGIN_INTERFACE_VERSION)
    throw usage_error(prefix + path + " speaks plugin interface version " +
                      std::to_string(table.interface_version) + ", this driver speaks version " +
                      std::to_string(FMWORK_PLUGIN_INTERFACE_VERSION) +
                      ": rebuild the plugin against this driver's fmwork/platform/plugin/plugin_api.h; " + tried_text);
  if (table.struct_size < sizeof(fmwork_platform_plugin) || !table.create || !table.device || !table.synchronize)
    throw usage_error(prefix + path + " has an incomplete plugin table (struct_size " +
                      std::to_string(table.struct_size) + ", expected " +
                      std::to_string(sizeof(fmwork_platform_plugin)) +
                      ", with create, device and synchronize): rebuild it against fmwork/platform/plugin/plugin_api.h; " +
                      tried_text);
  if (table.torch_version) {
    auto theirs = major_minor(table.torch_version);
    if (!theirs || theirs->first != TORCH_VERSION_MAJOR || theirs->second != TORCH_VERSION_MINOR)
      throw usage_error(prefix + path + " was built with LibTorch " + table.torch_version +
                        ", this driver runs LibTorch " + host_torch_version() +
                        ": rebuild the plugin against the same LibTorch; " + tried_text);
  }
}

}  // namespace

std::optional<PluginLibrary> load_plugin_library(const std::string& name, std::vector<std::string>& tried) {
  const std::string prefix = "--platform " + name + ": ";
  const std::string found = find_plugin_file(name, tried);
  if (found.empty()) return std::nullopt;
  const std::string tried_text = "tried " + fmt::format("{}", fmt::join(tried, ", "));

  // One load per path, never unloaded.
  static std::mutex mutex;
  static std::map<std::string, const fmwork_platform_plugin*> loaded;
  std::lock_guard<std::mutex> lock(mutex);
  const fmwork_platform_plugin*& table = loaded[found];
  if (!table) {
    dlerror();
    void* handle = dlopen(found.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (!handle) {
      const char* why = dlerror();
      throw usage_error(prefix + "cannot load " + found + ": " + one_line(std::string(why ? why : "unknown error")) + "; " +
                        tried_text);
    }
    const fmwork_platform_plugin* entry = entry_table(handle, prefix, found, tried_text);
    check_table(*entry, prefix, found, tried_text);
    table = entry;
  }
  return PluginLibrary{found, table};
}

}  // namespace fmwork
