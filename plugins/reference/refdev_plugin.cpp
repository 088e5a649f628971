// The reference platform plugin `refdev`: the C interface of fmwork/platform/plugin/plugin_api.h over the CPU-memory
// PrivateUse1 device of refdev_device.cpp. It exists so the tests run the whole driver on a device that is
// neither CPU nor CUDA; its timings mean nothing.
//
// Options (--platform:KEY VALUE):
//   emulate none|spyre  spyre: declare IBM Spyre's rules (one input size, one batch size,
//                       --torch.call:set_grad_enabled@ False, --compile, --compile:backend sendnn) and
//                       accept `sendnn` as a name for refdev's own backend; its runner then takes the
//                       shape of its first call alone, as a program compiled for one shape would, and
//                       refuses any other. Nothing of Spyre runs.
//   event_log PATH      write one line per event: `create KEY=VALUE...`; `sync N ops=K t=SECONDS` for the
//                       N-th synchronize, K the operators run on the device since the previous one
//                       (0 when the device only received copies), t from CLOCK_MONOTONIC; `compile
//                       backend=B options=JSON ...`; `run N shape=BxT` for each call of the compiled runner;
//                       `destroy syncs=N runs=N`. The lines are buffered and written by destroy (or exit).
// Compile backend `refdev`: an eager runner that checks its inputs are on the device, counts its calls and
// calls the host's forward. It accepts --compile:mode default, dynamic, fullgraph, disable, and the
// --compile:options key `refdev.label` (a string shown in the runner's description); it refuses others.
#include <ATen/core/Tensor.h>  // not torch/torch.h: a tensor's device is all it reads (~20 s of compile less)
#include <c10/core/Device.h>
#include <time.h>
#include <torch/version.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fmwork/platform/plugin/plugin_api.h"
#include "refdev_device.hpp"

namespace {

struct Instance {
  std::string emulate = "none";
  std::string event_log_path;
  std::FILE* event_log = nullptr;
  std::vector<std::pair<std::string, std::string>> options;
  std::string description;
  uint64_t syncs = 0;
  uint64_t runs = 0;
  uint64_t ops_at_last_sync = 0;
  std::vector<fmwork_requirement> required;
  std::vector<const char*> backends;

  void log(const std::string& line) {
    if (!event_log) return;
    std::fputs(line.c_str(), event_log);
    std::fputc('\n', event_log);
  }
};

void set_message(fmwork_message* message, const std::string& text) {
  if (message && message->set) message->set(message, text.c_str());
}

const char* const kSingleShapeReason = "Spyre compiles the model for one input shape per run";
const char* const kSingleBatchReason = "Spyre compiles the model for one batch shape per run";

const fmwork_requirement kSpyreRequired[] = {
    {"torch.call:set_grad_enabled", "False", 1, "torch_sendnn runs inference only, without autograd"},
    {"compile", "True", 1, "the model reaches Spyre only through torch.compile"},
    {"compile:backend", "sendnn", 0, "sendnn is Spyre's torch.compile backend"},
};

fmwork_status create(const fmwork_option* options, size_t count, void** out, fmwork_message* error) {
  if (std::string why = refdev::register_device(); !why.empty()) {
    set_message(error, "refdev: " + why);
    return FMWORK_RUNTIME_ERROR;
  }
  auto instance = std::make_unique<Instance>();
  for (size_t i = 0; i < count; ++i) {
    std::string key = options[i].key ? options[i].key : "";
    std::string value = options[i].value ? options[i].value : "";
    if (key == "emulate") {
      if (value != "none" && value != "spyre") {
        set_message(error, "--platform:emulate " + value + " is not known; refdev emulates none or spyre");
        return FMWORK_USAGE_ERROR;
      }
      instance->emulate = value;
    } else if (key == "event_log") {
      instance->event_log_path = value;
    } else {
      set_message(error, "--platform:" + key +
                             " is not a refdev option; refdev accepts --platform:emulate (none, spyre) and "
                             "--platform:event_log PATH");
      return FMWORK_USAGE_ERROR;
    }
    instance->options.emplace_back(key, value);
  }
  if (!instance->event_log_path.empty()) {
    instance->event_log = std::fopen(instance->event_log_path.c_str(), "w");
    if (!instance->event_log) {
      set_message(error, "--platform:event_log " + instance->event_log_path + ": cannot write this file");
      return FMWORK_USAGE_ERROR;
    }
  }

  instance->backends.push_back("refdev");
  if (instance->emulate == "spyre") {
    instance->required.assign(std::begin(kSpyreRequired), std::end(kSpyreRequired));
    instance->backends.push_back("sendnn");
  }

  instance->description = "refdev: the reference PrivateUse1 device in CPU memory, LibTorch " TORCH_VERSION
                          " (every operator falls back to the CPU; timings mean nothing)";
  if (instance->emulate == "spyre") instance->description += "; emulating Spyre's rules (nothing of Spyre runs)";
  instance->ops_at_last_sync = refdev::fallback_calls();
  std::string line = "create";
  for (const auto& [key, value] : instance->options) line += " " + key + "=" + value;
  instance->log(line);
  *out = instance.release();
  return FMWORK_OK;
}

void destroy(void* handle) {
  auto* instance = static_cast<Instance*>(handle);
  instance->log("destroy syncs=" + std::to_string(instance->syncs) + " runs=" + std::to_string(instance->runs));
  if (instance->event_log) std::fclose(instance->event_log);
  delete instance;
}

fmwork_status device(void*, fmwork_device* device, fmwork_message*) {
  device->type = "privateuseone";
  device->index = 0;
  return FMWORK_OK;
}

fmwork_status synchronize(void* handle, fmwork_message*) {
  auto* instance = static_cast<Instance*>(handle);
  ++instance->syncs;
  const uint64_t ops = refdev::fallback_calls();
  if (instance->event_log) {
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    std::fprintf(instance->event_log, "sync %llu ops=%llu t=%lld.%09ld\n",
                 static_cast<unsigned long long>(instance->syncs),
                 static_cast<unsigned long long>(ops - instance->ops_at_last_sync),
                 static_cast<long long>(now.tv_sec), static_cast<long>(now.tv_nsec));
  }
  instance->ops_at_last_sync = ops;
  return FMWORK_OK;
}

const char* description(void* handle) { return static_cast<Instance*>(handle)->description.c_str(); }

void reset_memory_peaks(void*) { refdev::reset_peak_bytes(); }

int memory_peaks(void*, int64_t* allocated, int64_t* reserved) {
  *allocated = refdev::peak_bytes();
  *reserved = refdev::peak_bytes();  // no cache: what is reserved is what is allocated
  return 1;
}

void constraints(void* handle, fmwork_constraints* out) {
  auto* instance = static_cast<Instance*>(handle);
  if (instance->emulate == "spyre") {
    out->single_input_size = 1;
    out->single_input_reason = kSingleShapeReason;
    out->single_batch_size = 1;
    out->single_batch_reason = kSingleBatchReason;
  }
  out->required = instance->required.data();
  out->required_count = instance->required.size();
}

const char* const* compile_backends(void* handle, size_t* count) {
  auto* instance = static_cast<Instance*>(handle);
  *count = instance->backends.size();
  return instance->backends.data();
}

// --- the runner ---

struct Runner {
  Instance* instance;
  const fmwork_model* model;
  std::string description;
  int64_t shape_batch = 0, shape_input = 0;  // emulating Spyre: the one shape it takes (0: not called yet)
};

fmwork_status check_on_device(const void* tensor, const char* name, fmwork_message* error) {
  if (!tensor) return FMWORK_OK;
  const auto& t = *static_cast<const at::Tensor*>(tensor);
  if (t.defined() && t.device().type() != c10::DeviceType::PrivateUse1) {
    set_message(error, std::string("refdev runner: ") + name + " is on " + t.device().str() +
                           ", expected " + c10::Device(c10::DeviceType::PrivateUse1, 0).str() +
                           " (move inputs before the rep)");
    return FMWORK_RUNTIME_ERROR;
  }
  return FMWORK_OK;
}

fmwork_status run(void* context, const fmwork_batch* batch, void* outputs, fmwork_message* error) {
  auto* runner = static_cast<Runner*>(context);
  for (auto [tensor, name] : {std::pair{batch->input_ids, "input_ids"}, {batch->attention_mask, "attention_mask"},
                              {batch->token_type_ids, "token_type_ids"}}) {
    fmwork_status status = check_on_device(tensor, name, error);
    if (status != FMWORK_OK) return status;
  }
  Instance* instance = runner->instance;
  ++instance->runs;
  instance->log("run " + std::to_string(instance->runs) + " shape=" + std::to_string(batch->batch_size) + "x" +
                std::to_string(batch->input_size));
  if (instance->emulate == "spyre") {
    if (runner->shape_batch == 0) runner->shape_batch = batch->batch_size, runner->shape_input = batch->input_size;
    if (batch->batch_size != runner->shape_batch || batch->input_size != runner->shape_input) {
      set_message(error, "refdev (emulating Spyre): the program was compiled for batch " +
                             std::to_string(runner->shape_batch) + " x input " + std::to_string(runner->shape_input) +
                             ", not " + std::to_string(batch->batch_size) + " x " + std::to_string(batch->input_size));
      return FMWORK_USAGE_ERROR;
    }
  }
  return runner->model->forward(runner->model->forward_context, batch, outputs, error);
}

void destroy_runner(void* context) { delete static_cast<Runner*>(context); }

fmwork_status compile(void* handle, const char* backend, const char* options_json, const fmwork_model* model,
                      fmwork_runner* out, fmwork_message* error) {
  auto* instance = static_cast<Instance*>(handle);
  nlohmann::json options;
  try {
    options = nlohmann::json::parse(options_json ? options_json : "{}");
  } catch (const std::exception& e) {
    set_message(error, std::string("refdev: the --compile: options are not JSON: ") + e.what());
    return FMWORK_RUNTIME_ERROR;
  }
  std::string label;
  for (const auto& [key, value] : options.items()) {
    if (key == "backend" || key == "dynamic" || key == "fullgraph" || key == "disable") continue;
    if (key == "mode") {
      if (!value.is_null() && value != "default") {
        set_message(error, "--compile:mode " + (value.is_string() ? value.get<std::string>() : value.dump()) +
                               " is not supported by the refdev backend; it accepts only mode default");
        return FMWORK_USAGE_ERROR;
      }
      continue;
    }
    if (key == "options") {
      for (const auto& [option, option_value] : value.items()) {
        if (option == "refdev.label" && option_value.is_string()) {
          label = option_value.get<std::string>();
          continue;
        }
        set_message(error, "--compile:options:" + option +
                               " is not accepted by the refdev backend; it accepts only refdev.label (a string)");
        return FMWORK_USAGE_ERROR;
      }
      continue;
    }
    set_message(error, "--compile:" + key +
                           " is not accepted by the refdev backend; it accepts mode, dynamic, fullgraph, disable "
                           "and options");
    return FMWORK_USAGE_ERROR;
  }
  if (!model || !model->forward) {
    set_message(error, "refdev: the host gave no forward function to compile");
    return FMWORK_RUNTIME_ERROR;
  }
  instance->log(std::string("compile backend=") + backend + " options=" + options.dump() +
                " model_path=" + (model->path ? model->path : "") +
                " model_class=" + (model->model_class ? model->model_class : "") +
                " dtype=" + (model->dtype ? model->dtype : "") +
                " torchscript=" + (model->torchscript_module ? "yes" : "no"));
  auto* runner = new Runner{instance, model, std::string("refdev eager runner") +
                                                 (label.empty() ? "" : ", label " + label), 0, 0};
  out->context = runner;
  out->forward = &run;
  out->destroy = &destroy_runner;
  out->description = runner->description.c_str();
  return FMWORK_OK;
}

const fmwork_platform_plugin kTable = {
    FMWORK_PLUGIN_INTERFACE_VERSION,
    sizeof(fmwork_platform_plugin),
    "refdev",
    TORCH_VERSION,
    &create,
    &destroy,
    &device,
    &synchronize,
    &description,
    &reset_memory_peaks,
    &memory_peaks,
    &constraints,
    &compile_backends,
    &compile,
};

}  // namespace

extern "C" FMWORK_PLUGIN_EXPORT const fmwork_platform_plugin* fmwork_platform_plugin_entry(void) { return &kTable; }
