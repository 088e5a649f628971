// A model compiled by a plugin's backend (see plugin_model.hpp).
#include "fmwork/platform/plugin/plugin_model.hpp"

#include <stdexcept>
#include <utility>

#include "fmwork/base/error.hpp"
#include "fmwork/runtime/exception_cause.hpp"

namespace fmwork {
namespace {

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
    Batch b;
    b.input_ids = tensor_at(batch->input_ids);
    b.attention_mask = tensor_at(batch->attention_mask);
    b.token_type_ids = tensor_at(batch->token_type_ids);
    *static_cast<torch::IValue*>(outputs) = static_cast<Model*>(context)->forward(b);
    return FMWORK_OK;
  } catch (const std::exception& e) {
    if (error && error->set) error->set(error, exception_cause(e).c_str());
    return FMWORK_RUNTIME_ERROR;
  }
}

// What a compile hook is given, at a stable address for as long as the compiled model lives.
struct CompileInputs {
  std::string path, model_class, options_json, dtype;
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
  // The plugin's compiler runs the same model: the same facts and work, however it schedules it.
  ModelFacts facts() const override {
    ModelFacts f = inner_->facts();
    if (!f.description.empty() && f.description.back() != '\n') f.description += "\n";
    f.description += "compiled by plugin " + instance_->name + ", backend " + backend_;
    if (runner_.description) f.description += " (" + escape_controls(runner_.description) + ")";  // the plugin's text
    f.runs_unpadded = false;  // the runner is handed padded batches
    return f;
  }
  std::optional<CompileFacts> prepare(int64_t batch, int64_t input) override { return inner_->prepare(batch, input); }
  void eval() override { inner_->eval(); }

 private:
  std::shared_ptr<PluginInstance> instance_;
  std::string backend_;
  std::unique_ptr<Model> inner_;
  std::unique_ptr<CompileInputs> inputs_;
  fmwork_runner runner_{};
};

}  // namespace

std::unique_ptr<Model> compile_in_plugin(std::shared_ptr<PluginInstance> instance, const std::string& backend,
                                         const std::string& options_json, std::unique_ptr<Model> model,
                                         const ModelSource& source) {
  const std::string prefix = "--platform " + instance->name + ": --compile:backend " + backend + ": ";
  auto inputs = std::make_unique<CompileInputs>();
  inputs->path = source.path;
  inputs->model_class = source.model_class;
  inputs->options_json = value_to_json(source.options);
  inputs->dtype = model->facts().dtype_name;
  fmwork_model& c = inputs->c_model;
  c.path = inputs->path.c_str();
  c.model_class = inputs->model_class.c_str();
  c.dtype = inputs->dtype.c_str();
  c.options_json = inputs->options_json.c_str();
  c.torchscript_module = model->torchscript_module();
  c.forward_context = model.get();
  c.forward = &host_forward;
  const fmwork_platform_plugin* table = instance->table;
  void* handle = instance->handle;
  auto compiled = std::make_unique<PluginCompiledModel>(std::move(instance), backend, std::move(model),
                                                        std::move(inputs));

  MessageBuffer message;
  fmwork_runner& runner = compiled->runner();
  fmwork_status status =
      table->compile(handle, backend.c_str(), options_json.c_str(), compiled->c_model(), &runner, &message.message);
  if (status != FMWORK_OK) {
    runner = fmwork_runner{};  // nothing to destroy
    throw status_error(status, prefix, message);
  }
  if (!runner.forward) {
    if (runner.destroy) runner.destroy(runner.context);
    runner = fmwork_runner{};
    throw runtime_error(prefix + "the plugin returned no runner");
  }
  return compiled;
}

}  // namespace fmwork
