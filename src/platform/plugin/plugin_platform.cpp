// The Platform of a loaded plugin (see plugin_platform.hpp): its facts read from the plugin's C table once,
// when the instance is made.
#include "fmwork/platform/plugin/plugin_platform.hpp"

#include "fmwork/cli/platform_rules.hpp"

#include <algorithm>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "fmwork/base/error.hpp"
#include "fmwork/platform/plugin/plugin_abi.hpp"
#include "fmwork/platform/plugin/plugin_model.hpp"
#include "fmwork/base/python_value.hpp"

namespace fmwork {
namespace {

PlatformConstraints read_constraints(const PluginInstance& instance) {
  PlatformConstraints out;
  if (!instance.table->constraints) return out;
  fmwork_constraints c{};
  instance.table->constraints(instance.handle, &c);
  out.single_input_size = c.single_input_size != 0;
  out.single_input_reason = c.single_input_reason ? c.single_input_reason : "";
  out.single_batch_size = c.single_batch_size != 0;
  out.single_batch_reason = c.single_batch_reason ? c.single_batch_reason : "";
  for (size_t i = 0; c.required && i < c.required_count; ++i) {
    const fmwork_requirement& r = c.required[i];
    out.required.push_back({r.option ? r.option : "", r.value ? r.value : "", r.typed != 0,
                            r.reason ? r.reason : ""});
  }
  return out;
}

// The LibTorch device the plugin names: PrivateUse1 under its own name or the one the plugin registered
// (refdev, spyre), or cpu / cuda for runtimes that keep tensors there.
torch::Device plugin_device(const PluginInstance& instance) {
  const std::string prefix = "--platform " + instance.name + ": ";
  fmwork_device d{};
  MessageBuffer message;
  fmwork_status status = instance.table->device(instance.handle, &d, &message.message);
  if (status != FMWORK_OK) throw status_error(status, prefix, message);
  const std::string type = d.type ? d.type : "";
  const auto index = static_cast<c10::DeviceIndex>(d.index < 0 ? 0 : d.index);
  if (type == "privateuseone" || (c10::is_privateuse1_backend_registered() && type == c10::get_privateuse1_backend()))
    return torch::Device(c10::DeviceType::PrivateUse1, index);
  if (type == "cpu") return torch::Device(torch::kCPU);
  if (type == "cuda") return torch::Device(torch::kCUDA, index);
  throw runtime_error(prefix + "the plugin names device type '" + type +
                      "'; expected privateuseone (or its registered name), cpu or cuda");
}

bool has_key(const Value& dict, const std::string& key) {
  if (dict.type != Value::Type::dict) return false;
  for (const auto& entry : dict.entries)
    if (entry.first == key) return true;
  return false;
}

std::string compile_options_json(const CompileOptions& options) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  if (options.raw.type == Value::Type::dict && !options.raw.entries.empty()) {
    j = nlohmann::ordered_json::parse(value_to_json(options.raw));
  } else {
    if (options.mode) j["mode"] = *options.mode;
    if (options.dynamic) j["dynamic"] = *options.dynamic;
    if (options.fullgraph) j["fullgraph"] = true;
    if (options.disable) j["disable"] = true;
    j["options"] = nlohmann::ordered_json::parse(value_to_json(options.options));
  }
  j["backend"] = options.backend;
  return j.dump();
}

// The plugin's memory peaks, where its table has memory_peaks (reset_memory_peaks may be absent: then the
// peaks run from wherever the plugin starts them).
class PluginMemoryPeaks : public MemoryPeakMeter {
 public:
  explicit PluginMemoryPeaks(std::shared_ptr<PluginInstance> instance) : instance_(std::move(instance)) {}
  void reset() override {
    if (instance_->table->reset_memory_peaks) instance_->table->reset_memory_peaks(instance_->handle);
  }
  std::optional<MemoryPeaks> read() override {
    MemoryPeaks peaks;
    if (!instance_->table->memory_peaks(instance_->handle, &peaks.allocated_bytes, &peaks.reserved_bytes))
      return std::nullopt;
    return peaks;
  }

 private:
  std::shared_ptr<PluginInstance> instance_;
};

// The meters the plugin's table provides: memory peaks at most (the interface has no energy counter and no
// available memory).
PlatformMeters plugin_meters(const std::shared_ptr<PluginInstance>& instance) {
  PlatformMeters meters;
  if (instance->table->memory_peaks) meters.memory_peaks = std::make_unique<PluginMemoryPeaks>(instance);
  return meters;
}

std::vector<std::string> read_compile_backends(const PluginInstance& instance) {
  std::vector<std::string> backends;
  if (!instance.table->compile_backends) return backends;
  size_t count = 0;
  const char* const* names = instance.table->compile_backends(instance.handle, &count);
  for (size_t i = 0; names && i < count; ++i)
    if (names[i]) backends.emplace_back(names[i]);
  return backends;
}

// The plugin's facts, read from its table once, when the instance is made.
PlatformFacts read_plugin_facts(const PluginInstance& instance) {
  PlatformFacts facts;
  facts.name = instance.name;
  facts.device = plugin_device(instance);
  facts.constraints = read_constraints(instance);
  for (const auto& r : facts.constraints.required) validate_requirement(instance.name, r);
  facts.compile_backends = read_compile_backends(instance);
  const char* text = instance.table->description ? instance.table->description(instance.handle) : nullptr;
  facts.description = (text ? one_line(std::string(text)) : "plugin " + instance.name) + " [" + instance.path + "]";
  return facts;
}

class PluginPlatform : public Platform {
 public:
  explicit PluginPlatform(std::shared_ptr<PluginInstance> instance)
      : Platform(plugin_meters(instance)), instance_(std::move(instance)), facts_(read_plugin_facts(*instance_)) {}

  void synchronize() override {
    MessageBuffer message;
    fmwork_status status = instance_->table->synchronize(instance_->handle, &message.message);
    if (status != FMWORK_OK)
      throw status_error(status, "--platform " + instance_->name + ": synchronize: ", message);
  }

  // The interface has no call for it: a plugin's runtime keeps its own cache.
  void release_cached_memory() override {}
  // The interface has no call for it: every failure is taken as the combination's own.
  std::optional<std::string> unrecoverable_error(const std::string&) override { return std::nullopt; }

  std::unique_ptr<Model> compile(std::unique_ptr<Model> model, const CompileOptions& given,
                                 const ModelSource& source) override {
    const std::string prefix = "--platform " + instance_->name + ": ";
    const std::vector<std::string>& backends = facts_.compile_backends;
    CompileOptions options = given;
    // Without --compile:backend, the plugin's first backend (options.backend still holds torch.compile's
    // default then).
    if (!has_key(options.raw, "backend") && !backends.empty()) options.backend = backends.front();
    if (!instance_->table->compile || backends.empty())
      throw usage_error(prefix + "--compile:backend " + options.backend + ": this plugin compiles nothing");
    if (std::find(backends.begin(), backends.end(), options.backend) == backends.end())
      throw usage_error(prefix + "--compile:backend " + options.backend + " is not one of this plugin's backends (" +
                        fmt::format("{}", fmt::join(backends, ", ")) + ")");
    return compile_in_plugin(instance_, options.backend, compile_options_json(options), std::move(model), source);
  }

 protected:
  PlatformFacts own_facts() const override { return facts_; }

 private:
  std::shared_ptr<PluginInstance> instance_;
  PlatformFacts facts_;
};

}  // namespace

std::unique_ptr<Platform> make_plugin_platform(const std::string& name, const PluginLibrary& library,
                                               const PlatformOptions& options) {
  auto instance = std::make_shared<PluginInstance>();
  instance->name = name;
  instance->path = library.path;
  std::vector<fmwork_option> c_options;
  for (const auto& [key, value] : options.entries) c_options.push_back({key.c_str(), value.c_str()});
  MessageBuffer message;
  void* handle = nullptr;
  fmwork_status status = library.table->create(c_options.data(), c_options.size(), &handle, &message.message);
  if (status != FMWORK_OK) throw status_error(status, "--platform " + name + ": ", message);
  instance->table = library.table;
  instance->handle = handle;
  return std::make_unique<PluginPlatform>(std::move(instance));
}

}  // namespace fmwork
