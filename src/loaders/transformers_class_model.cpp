// A folder run only through transformers' own class, compiled ahead of time. See
// include/fmwork/loaders/transformers_class_model.hpp.
#include "fmwork/loaders/transformers_class_model.hpp"

#include <filesystem>
#include <sstream>

#include "fmwork/base/error.hpp"
#include "fmwork/cli/model_keys.hpp"
#include "fmwork/loaders/model_dtype.hpp"
#include "fmwork/loaders/torchscript_model.hpp"
#include "fmwork/model/safetensors.hpp"

namespace fmwork {
namespace {

namespace fs = std::filesystem;

// The folder's facts alone: the package --compile builds from it runs instead.
class TransformersClassModel : public Model {
 public:
  explicit TransformersClassModel(ModelFacts facts) : facts_(std::move(facts)) {}

  ModelFacts facts() const override { return facts_; }
  torch::IValue forward(const Batch&) override {
    throw runtime_error("this model has no native encoder: it runs only as the package --compile builds");
  }
  void eval() override {}

 private:
  ModelFacts facts_;
};

std::string string_field(const nlohmann::json& config, const char* key) {
  return config.contains(key) && config[key].is_string() ? config[key].get<std::string>() : "";
}

// The options only the native encoders honour (the --model: table's rows say which), refused by name.
void refuse_native_options(const ModelOptions& opt, const std::string& model_class) {
  const std::optional<std::string> key = model_key_not_taken(opt, ModelFile::transformers_class);
  if (!key) return;
  const std::string why = " is for the native encoders; " + model_class + " runs through transformers' own class";
  if (*key == "random_weights")
    throw usage_error("--model:random_weights@ True" + why + ", which builds its package from the folder's weights");
  throw usage_error("--model:" + *key + why + (*key == "vocab_size" ? " (config.json gives it)" : ""));
}

// The run dtype's name: --model:dtype, "auto" meaning the config's torch_dtype (or dtype).
std::string dtype_of(const ModelOptions& opt, const nlohmann::json& config) {
  std::optional<std::string> from_config;
  for (const char* key : {"torch_dtype", "dtype"})
    if (!string_field(config, key).empty()) {
      from_config = string_field(config, key);
      break;
    }
  const at::ScalarType t = resolve_dtype(opt.dtype, from_config);
  return t == at::kHalf ? "float16" : t == at::kBFloat16 ? "bfloat16" : "float32";
}

}  // namespace

std::unique_ptr<Model> load_transformers_class_model(const LoadRequest& request, const std::string& model_class,
                                                     const nlohmann::json& config, const std::string& config_path) {
  const ModelOptions& opt = request.options;
  refuse_native_options(opt, model_class);
  if (!config.is_object()) throw runtime_error(config_path + ": must be a JSON object");
  if (!fs::exists(request.path + "/model.safetensors") && !fs::exists(request.path + "/model.safetensors.index.json"))
    throw usage_error(request.path + " has no model.safetensors; --compile builds " + model_class +
                      "'s package from the folder's weights (random weights are for the native encoders)");
  const hf::Checkpoint weights = hf::Checkpoint::open_folder(request.path);
  int64_t parameters = 0;
  for (const auto& name : weights.names()) {
    int64_t numel = 1;
    for (int64_t d : weights.entry(name).shape) numel *= d;
    parameters += numel;
  }
  const int64_t type_vocab = config.contains("type_vocab_size") && config["type_vocab_size"].is_number_integer()
                                 ? config["type_vocab_size"].get<int64_t>()
                                 : 0;
  ModelFacts f;
  f.fed_inputs = {"input_ids", "attention_mask"};  // the package's own facts win
  if (type_vocab > 0) f.fed_inputs.push_back("token_type_ids");
  f.output_names = {"last_hidden_state", "pooler_output"};
  std::ostringstream d;
  d << "transformers class: " << model_class << " from " << request.path << " (no native encoder: run by the "
    << "package --compile builds with transformers' own class)\n";
  d << "  config: model_type=" << excerpt(string_field(config, "model_type")) << "\n";
  d << "  weights: " << weights.description() << " (read by transformers when the package is built)\n";
  d << "  parameters (in the safetensors files): " << parameters;
  f.description = d.str();
  f.dtype_name = dtype_of(opt, config);
  f.tokens = token_facts_beside(config_path, opt);
  f.parameter_count = parameters;
  return std::make_unique<TransformersClassModel>(std::move(f));
}

}  // namespace fmwork
