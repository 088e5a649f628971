// Platform plugins, host side: the search path, dlopen and the checks of the entry point's table, and
// PluginPlatform, a Platform over the C interface of plugin_api.h.
#include "fmwork/plugin.hpp"

#include <dlfcn.h>
#include <torch/version.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "fmwork/error.hpp"
#include "fmwork/plugin_api.h"
#include "fmwork/python_literal.hpp"
#include "fmwork/value.hpp"

namespace fmwork {
namespace {

namespace fs = std::filesystem;


// Messages are one line: a plugin's newlines become spaces.
std::string one_line(std::string text) {
  for (char& c : text)
    if (c == '\n' || c == '\r') c = ' ';
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

// The host side of fmwork_message: keeps what the plugin set. Not copyable (the plugin gets &message).
class MessageBuffer {
 public:
  MessageBuffer() {
    message.host = this;
    message.set = &MessageBuffer::set;
  }
  MessageBuffer(const MessageBuffer&) = delete;
  MessageBuffer& operator=(const MessageBuffer&) = delete;

  fmwork_message message{};
  std::string text;

  std::string or_default(const std::string& fallback) const { return text.empty() ? fallback : one_line(text); }

 private:
  static void set(fmwork_message* self, const char* text) {
    if (self && self->host) static_cast<MessageBuffer*>(self->host)->text = text ? text : "";
  }
};

Error status_error(fmwork_status status, const std::string& prefix, const MessageBuffer& buffer) {
  std::string message = prefix + buffer.or_default("the plugin failed without saying why");
  return status == FMWORK_USAGE_ERROR ? usage_error(message) : runtime_error(message);
}

std::string executable_dir() {
  std::error_code error;
  fs::path exe = fs::read_symlink("/proc/self/exe", error);
  if (error) return {};
  return exe.parent_path().string();
}

bool valid_plugin_name(const std::string& name) {
  if (name.empty() || name == "." || name == "..") return false;
  for (unsigned char c : name)
    if (!std::isalnum(c) && c != '_' && c != '-' && c != '.') return false;
  return true;
}

// A loaded library: one per path, never unloaded (unloading would deregister its kernels).
struct LoadedLibrary {
  void* handle = nullptr;
  const fmwork_platform_plugin* table = nullptr;
};

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

// The instance a plugin created; destroyed when the platform and every model compiled by it are gone.
struct PluginInstance {
  std::string name;
  std::string path;
  const fmwork_platform_plugin* table = nullptr;
  void* handle = nullptr;

  PluginInstance() = default;
  PluginInstance(const PluginInstance&) = delete;
  PluginInstance& operator=(const PluginInstance&) = delete;
  ~PluginInstance() {
    if (table && table->destroy) table->destroy(handle);
  }
};

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

// A requirement's option split into the fixed flag or the set and key path; nullopt when malformed.
struct RequirementTarget {
  bool fixed = false;             // "compile" / "eval"
  std::string set;                // sub-option set, when !fixed
  std::vector<std::string> keys;  // key path inside the set
};

std::optional<RequirementTarget> parse_target(const std::string& option) {
  RequirementTarget target;
  auto colon = option.find(':');
  if (colon == std::string::npos) {
    if (option != "compile" && option != "eval") return std::nullopt;
    target.fixed = true;
    target.set = option;
    return target;
  }
  target.set = option.substr(0, colon);
  bool known = false;
  for (const auto& s : kSubOptionSets) known = known || s == target.set;
  if (!known) return std::nullopt;
  std::string rest = option.substr(colon + 1);
  size_t start = 0;
  while (true) {
    auto next = rest.find(':', start);
    std::string key = rest.substr(start, next == std::string::npos ? std::string::npos : next - start);
    if (key.empty()) return std::nullopt;
    target.keys.push_back(key);
    if (next == std::string::npos) break;
    start = next + 1;
  }
  return target;
}

Value expected_value(const PlatformRequirement& r) {
  return r.typed ? parse_value(r.value, "--" + r.option + "@") : Value::of_string(r.value);
}

// Throws a runtime Error when a plugin declares a requirement the host cannot check.
void validate_requirement(const std::string& platform, const PlatformRequirement& r) {
  std::string prefix = "--platform " + platform + ": the plugin declares an invalid requirement '" + r.option +
                       "': ";
  auto target = parse_target(r.option);
  if (!target)
    throw runtime_error(prefix + "expected compile, eval or SET:key with SET one of " +
                        fmt::format("{}", fmt::join(kSubOptionSets, ", ")));
  Value expected;
  try {
    expected = expected_value(r);
  } catch (const Error& e) {
    throw runtime_error(prefix + e.what());
  }
  if (target->fixed && expected.type != Value::Type::boolean)
    throw runtime_error(prefix + "a fixed flag's value must be True or False, typed");
}

const Value* find_key(const Value& dict, const std::string& key) {
  if (dict.type != Value::Type::dict) return nullptr;
  for (const auto& [k, v] : dict.entries)
    if (k == key) return &v;
  return nullptr;
}

std::string format_given(const std::string& option, const Value& value) {
  if (value.type == Value::Type::string) return "--" + option + " " + value.text;
  return "--" + option + "@ " + repr(value);
}

// A whole sentence: "<what>: <reason>." (the driver joins the refusals with spaces).
std::string with_reason(const std::string& sentence, const std::string& reason) {
  std::string out = reason.empty() ? sentence : sentence + ": " + reason;
  if (out.back() != '.') out += '.';
  return out;
}

std::string size_list(const std::vector<int64_t>& sizes) {
  std::vector<std::string> parts;
  for (int64_t s : sizes) parts.push_back(std::to_string(s));
  return fmt::format("{}", fmt::join(parts, ","));
}

// --- compile: the model handed to the plugin and the compiled model it returns ---

fmwork_batch to_c_batch(const Batch& batch) {
  fmwork_batch b{};
  b.input_ids = &batch.input_ids;
  b.attention_mask = &batch.attention_mask;
  b.token_type_ids = &batch.token_type_ids;
  b.batch_size = batch.input_ids.defined() && batch.input_ids.dim() > 0 ? batch.input_ids.size(0) : 0;
  b.input_size = batch.input_ids.defined() && batch.input_ids.dim() > 1 ? batch.input_ids.size(1) : 0;
  return b;
}

torch::Tensor tensor_at(const void* p) { return p ? *static_cast<const torch::Tensor*>(p) : torch::Tensor(); }

fmwork_status host_forward(void* context, const fmwork_batch* batch, void* outputs, fmwork_message* error) {
  try {
    if (!context || !batch || !outputs) throw std::invalid_argument("forward called with a null argument");
    Batch b{tensor_at(batch->input_ids), tensor_at(batch->attention_mask), tensor_at(batch->token_type_ids)};
    *static_cast<torch::IValue*>(outputs) = static_cast<Model*>(context)->forward(b);
    return FMWORK_OK;
  } catch (const std::exception& e) {
    if (error && error->set) error->set(error, one_line(e.what()).c_str());
    return FMWORK_RUNTIME_ERROR;
  }
}

// What the driver knew about the model when it checked the command line.
struct ModelFacts {
  std::string path, model_class, options_json = "{}";
};

// What a compile hook is given, at a stable address for as long as the runner lives.
struct CompileInputs {
  ModelFacts facts;
  std::string dtype;
  fmwork_model c_model{};
};

class PluginCompiledModel : public Model {
 public:
  PluginCompiledModel(std::shared_ptr<PluginInstance> instance, std::string backend, std::unique_ptr<Model> inner,
                      std::unique_ptr<CompileInputs> inputs)
      : instance_(std::move(instance)), backend_(std::move(backend)), inner_(std::move(inner)),
        inputs_(std::move(inputs)) {}
  ~PluginCompiledModel() override {
    if (runner_.destroy) runner_.destroy(runner_.context);
  }

  fmwork_runner& runner() { return runner_; }
  const fmwork_model* c_model() const { return &inputs_->c_model; }

  torch::IValue forward(const Batch& batch) override {
    fmwork_batch b = to_c_batch(batch);
    torch::IValue out;
    MessageBuffer message;
    fmwork_status status = runner_.forward(runner_.context, &b, &out, &message.message);
    if (status != FMWORK_OK)
      throw status_error(status, "--platform " + instance_->name + ": backend " + backend_ + ": ", message);
    return out;
  }
  std::string describe() const override {
    std::string text = inner_->describe();
    if (!text.empty() && text.back() != '\n') text += "\n";
    text += "compiled by plugin " + instance_->name + ", backend " + backend_;
    if (runner_.description) text += std::string(" (") + runner_.description + ")";
    return text;
  }
  std::string dtype_name() const override { return inner_->dtype_name(); }
  std::vector<std::string> fed_inputs() const override { return inner_->fed_inputs(); }
  std::vector<std::string> output_names() const override { return inner_->output_names(); }
  TokenFacts token_facts() const override { return inner_->token_facts(); }
  int64_t parameter_count() const override { return inner_->parameter_count(); }
  void prepare(int64_t batch, int64_t input) override { inner_->prepare(batch, input); }
  void eval() override { inner_->eval(); }

 private:
  std::shared_ptr<PluginInstance> instance_;
  std::string backend_;
  std::unique_ptr<Model> inner_;
  std::unique_ptr<CompileInputs> inputs_;
  fmwork_runner runner_{};
};

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

// --- the platform ---

class PluginPlatform : public Platform {
 public:
  explicit PluginPlatform(std::shared_ptr<PluginInstance> instance)
      : instance_(std::move(instance)), device_(torch::kCPU) {
    const std::string prefix = "--platform " + instance_->name + ": ";
    fmwork_device d{};
    MessageBuffer message;
    fmwork_status status = instance_->table->device(instance_->handle, &d, &message.message);
    if (status != FMWORK_OK) throw status_error(status, prefix, message);
    std::string type = d.type ? d.type : "";
    // LibTorch's PrivateUse1 device, under its own name or the one the plugin registered (refdev, spyre).
    if (type == "privateuseone" || (c10::is_privateuse1_backend_registered() && type == c10::get_privateuse1_backend())) {
      device_ = torch::Device(c10::DeviceType::PrivateUse1, static_cast<c10::DeviceIndex>(d.index < 0 ? 0 : d.index));
    } else if (type == "cpu") {
      device_ = torch::Device(torch::kCPU);
    } else if (type == "cuda") {
      device_ = torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(d.index < 0 ? 0 : d.index));
    } else {
      throw runtime_error(prefix + "the plugin names device type '" + type +
                          "'; expected privateuseone (or its registered name), cpu or cuda");
    }

    constraints_ = read_constraints(*instance_);
    for (const auto& r : constraints_.required) validate_requirement(instance_->name, r);

    if (instance_->table->compile_backends) {
      size_t count = 0;
      const char* const* names = instance_->table->compile_backends(instance_->handle, &count);
      for (size_t i = 0; names && i < count; ++i)
        if (names[i]) backends_.emplace_back(names[i]);
    }
  }

  std::string name() const override { return instance_->name; }
  torch::Device device() const override { return device_; }

  void synchronize() override {
    MessageBuffer message;
    fmwork_status status = instance_->table->synchronize(instance_->handle, &message.message);
    if (status != FMWORK_OK)
      throw status_error(status, "--platform " + instance_->name + ": synchronize: ", message);
  }

  std::string description() const override {
    const char* text = instance_->table->description ? instance_->table->description(instance_->handle) : nullptr;
    std::string out = text ? one_line(text) : "plugin " + instance_->name;
    return out + " [" + instance_->path + "]";
  }

  void reset_memory_peaks() override {
    if (instance_->table->reset_memory_peaks) instance_->table->reset_memory_peaks(instance_->handle);
  }
  std::optional<MemoryPeaks> memory_peaks() override {
    if (!instance_->table->memory_peaks) return std::nullopt;
    MemoryPeaks peaks;
    if (!instance_->table->memory_peaks(instance_->handle, &peaks.allocated_bytes, &peaks.reserved_bytes))
      return std::nullopt;
    return peaks;
  }

  std::vector<std::string> check(const CommandLine& command_line) const override {
    auto facts = std::make_unique<ModelFacts>();
    facts->path = command_line.args.model_path;
    facts->model_class = command_line.args.model_class;
    auto model = command_line.subs.find("model");
    if (model != command_line.subs.end()) facts->options_json = value_to_json(model->second);
    facts_ = std::move(facts);
    return check_constraints(instance_->name, constraints_, command_line);
  }

  std::vector<std::string> compile_backends() const override { return backends_; }

  std::unique_ptr<Model> compile(std::unique_ptr<Model> model, const CompileOptions& given) override {
    const std::string prefix = "--platform " + instance_->name + ": ";
    CompileOptions options = given;
    // Without --compile:backend, the plugin's first backend (options.backend still holds torch.compile's
    // default then).
    if (!find_key(options.raw, "backend") && !backends_.empty()) options.backend = backends_.front();
    if (!instance_->table->compile || backends_.empty())
      throw usage_error(prefix + "--compile:backend " + options.backend + ": this plugin compiles nothing");
    bool known = false;
    for (const auto& b : backends_) known = known || b == options.backend;
    if (!known)
      throw usage_error(prefix + "--compile:backend " + options.backend + " is not one of this plugin's backends (" +
                        fmt::format("{}", fmt::join(backends_, ", ")) + ")");

    auto inputs = std::make_unique<CompileInputs>();
    if (facts_) inputs->facts = *facts_;
    inputs->dtype = model->dtype_name();
    fmwork_model& c = inputs->c_model;
    c.path = inputs->facts.path.c_str();
    c.model_class = inputs->facts.model_class.c_str();
    c.dtype = inputs->dtype.c_str();
    c.options_json = inputs->facts.options_json.c_str();
    c.torchscript_module = model->torchscript_module();
    c.forward_context = model.get();
    c.forward = &host_forward;
    auto compiled = std::make_unique<PluginCompiledModel>(instance_, options.backend, std::move(model),
                                                          std::move(inputs));

    std::string json = compile_options_json(options);
    MessageBuffer message;
    fmwork_runner& runner = compiled->runner();
    fmwork_status status = instance_->table->compile(instance_->handle, options.backend.c_str(), json.c_str(),
                                                     compiled->c_model(), &runner, &message.message);
    if (status != FMWORK_OK) {
      runner = fmwork_runner{};  // nothing to destroy
      throw status_error(status, prefix + "--compile:backend " + options.backend + ": ", message);
    }
    if (!runner.forward) {
      if (runner.destroy) runner.destroy(runner.context);
      runner = fmwork_runner{};
      throw runtime_error(prefix + "--compile:backend " + options.backend + ": the plugin returned no runner");
    }
    return compiled;
  }

 private:
  std::shared_ptr<PluginInstance> instance_;
  torch::Device device_;
  PlatformConstraints constraints_;
  std::vector<std::string> backends_;
  mutable std::unique_ptr<ModelFacts> facts_;  // from the last check(): the driver checks before it compiles
};

}  // namespace

std::string plugin_file_name(const std::string& name) { return "libfmwork_platform_" + name + ".so"; }

std::vector<std::string> plugin_search_dirs() {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv(kPluginPathVariable)) {
    std::string list = env;
    size_t start = 0;
    while (start <= list.size()) {
      size_t end = list.find(':', start);
      if (end == std::string::npos) end = list.size();
      if (end > start) dirs.push_back(list.substr(start, end - start));
      start = end + 1;
    }
  }
  std::string exe = executable_dir();
  if (!exe.empty()) {
    dirs.push_back((fs::path(exe) / "plugins").lexically_normal().string());
    dirs.push_back((fs::path(exe) / ".." / "lib" / "fmwork").lexically_normal().string());
  }
  return dirs;
}

std::unique_ptr<Platform> load_plugin_platform(const std::string& name, const PlatformOptions& options) {
  const std::string prefix = "--platform " + name + ": ";
  if (!valid_plugin_name(name))
    throw usage_error(prefix + "not a platform name; expected " + fmt::format("{}", fmt::join(builtin_platform_names(), ", ")) +
                      " or a plugin name of letters, digits, '_', '-' and '.'");

  const std::string file = plugin_file_name(name);
  std::vector<std::string> tried;
  std::string found;
  for (const auto& dir : plugin_search_dirs()) {
    std::string path = (fs::path(dir) / file).string();
    tried.push_back(path);
    std::error_code error;
    if (fs::is_regular_file(path, error)) {
      found = path;
      break;
    }
  }
  const std::string tried_text = "tried " + fmt::format("{}", fmt::join(tried, ", "));
  if (found.empty())
    throw usage_error(prefix + "not a built-in platform (" + fmt::format("{}", fmt::join(builtin_platform_names(), ", ")) +
                      ") and no plugin " + file + " was found; " + tried_text + " (set " + kPluginPathVariable +
                      " to the folder that holds it)");

  // One load per path, never unloaded.
  static std::mutex mutex;
  static std::map<std::string, LoadedLibrary> loaded;
  std::lock_guard<std::mutex> lock(mutex);
  LoadedLibrary& library = loaded[found];
  if (!library.handle) {
    dlerror();
    library.handle = dlopen(found.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (!library.handle) {
      const char* why = dlerror();
      throw usage_error(prefix + "cannot load " + found + ": " + one_line(why ? why : "unknown error") + "; " +
                        tried_text);
    }
  }
  if (!library.table) {
    dlerror();
    void* symbol = dlsym(library.handle, FMWORK_PLUGIN_ENTRY_NAME);
    if (!symbol)
      throw usage_error(prefix + found + " is not an fmwork platform plugin: it exports no " +
                        FMWORK_PLUGIN_ENTRY_NAME + "(); " + tried_text);
    auto entry = reinterpret_cast<fmwork_platform_plugin_entry_fn>(symbol);
    const fmwork_platform_plugin* table = entry();
    if (!table)
      throw usage_error(prefix + found + ": " + FMWORK_PLUGIN_ENTRY_NAME + "() returned no table; " + tried_text);
    if (table->interface_version != FMWORK_PLUGIN_INTERFACE_VERSION)
      throw usage_error(prefix + found + " speaks plugin interface version " +
                        std::to_string(table->interface_version) + ", this driver speaks version " +
                        std::to_string(FMWORK_PLUGIN_INTERFACE_VERSION) +
                        ": rebuild the plugin against this driver's fmwork/plugin_api.h; " + tried_text);
    if (table->struct_size < sizeof(fmwork_platform_plugin) || !table->create || !table->device ||
        !table->synchronize)
      throw usage_error(prefix + found + " has an incomplete plugin table (struct_size " +
                        std::to_string(table->struct_size) + ", expected " +
                        std::to_string(sizeof(fmwork_platform_plugin)) +
                        ", with create, device and synchronize): rebuild it against fmwork/plugin_api.h; " +
                        tried_text);
    if (table->torch_version) {
      auto theirs = major_minor(table->torch_version);
      if (!theirs || theirs->first != TORCH_VERSION_MAJOR || theirs->second != TORCH_VERSION_MINOR)
        throw usage_error(prefix + found + " was built with LibTorch " + table->torch_version +
                          ", this driver runs LibTorch " + host_torch_version() +
                          ": rebuild the plugin against the same LibTorch; " + tried_text);
    }
    library.table = table;
  }

  auto instance = std::make_shared<PluginInstance>();
  instance->name = name;
  instance->path = found;
  std::vector<fmwork_option> c_options;
  for (const auto& [key, value] : options.entries) c_options.push_back({key.c_str(), value.c_str()});
  MessageBuffer message;
  void* handle = nullptr;
  fmwork_status status = library.table->create(c_options.data(), c_options.size(), &handle, &message.message);
  if (status != FMWORK_OK) throw status_error(status, prefix, message);
  instance->table = library.table;
  instance->handle = handle;
  return std::make_unique<PluginPlatform>(std::move(instance));
}

std::string format_requirement(const PlatformRequirement& requirement) {
  auto target = parse_target(requirement.option);
  if (target && target->fixed) {
    bool on = requirement.value == "True";
    return on ? "--" + requirement.option : "no --" + requirement.option;
  }
  return "--" + requirement.option + (requirement.typed ? "@ " : " ") + requirement.value;
}

std::vector<std::string> check_constraints(const std::string& platform, const PlatformConstraints& constraints,
                                           const CommandLine& command_line) {
  std::vector<std::string> refusals;
  const std::string requires_ = "--platform " + platform + " requires ";
  const auto& args = command_line.args;
  if (constraints.single_input_size && args.input_sizes.size() != 1)
    refusals.push_back(with_reason(requires_ + "a single --input_sizes value (got " +
                                       std::to_string(args.input_sizes.size()) + ": " +
                                       size_list(args.input_sizes) + ")",
                                   constraints.single_input_reason));
  if (constraints.single_batch_size && args.batch_sizes.size() != 1)
    refusals.push_back(with_reason(requires_ + "a single --batch_sizes value (got " +
                                       std::to_string(args.batch_sizes.size()) + ": " +
                                       size_list(args.batch_sizes) + ")",
                                   constraints.single_batch_reason));

  for (const auto& r : constraints.required) {
    validate_requirement(platform, r);
    auto target = parse_target(r.option);
    Value expected = expected_value(r);
    std::string what = requires_ + format_requirement(r);
    if (target->fixed) {
      bool given = target->set == "compile" ? args.compile : args.eval;
      if (given != expected.boolean)
        refusals.push_back(with_reason(what + (given ? " (got --" + r.option + ")" : " (not given)"), r.reason));
      continue;
    }
    const Value* node = nullptr;
    auto set = command_line.subs.find(target->set);
    if (set != command_line.subs.end()) {
      node = &set->second;
      for (const auto& key : target->keys) {
        node = find_key(*node, key);
        if (!node) break;
      }
    }
    if (!node)
      refusals.push_back(with_reason(what + " (not given)", r.reason));
    else if (*node != expected)
      refusals.push_back(with_reason(what + " (got " + format_given(r.option, *node) + ")", r.reason));
  }
  return refusals;
}


}  // namespace fmwork
