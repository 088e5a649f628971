// A TorchScript file as a Model (see torchscript_model.hpp): its forward() fed by argument name, its
// vocabulary from the config.json and tokenizer files beside it.
#include "fmwork/loaders/torchscript_model.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "fmwork/base/error.hpp"
#include "fmwork/cli/model_keys.hpp"
#include "fmwork/runtime/exception_cause.hpp"
#include "fmwork/hf/config.hpp"
#include "fmwork/hf/special_tokens.hpp"
#include "fmwork/base/json_input.hpp"
#include "fmwork/base/regular_file.hpp"
#include "fmwork/base/zip_archive.hpp"

namespace fmwork {
namespace {

namespace fs = std::filesystem;

// Which Batch field feeds each declared argument of forward(), in schema order.
enum class Feed { input_ids, attention_mask, token_type_ids };

std::vector<Feed> plan_inputs(const c10::FunctionSchema& schema, const std::string& path) {
  std::vector<Feed> feeds;
  const auto& args = schema.arguments();
  for (size_t i = 1; i < args.size(); ++i) {  // argument 0 is self
    const auto& arg = args[i];
    auto type = arg.type();
    bool tensor = type->kind() == c10::TypeKind::TensorType ||
                  (type->kind() == c10::TypeKind::OptionalType &&
                   type->expectRef<c10::OptionalType>().getElementType()->kind() == c10::TypeKind::TensorType);
    auto pos = std::find(model_input_names().begin(), model_input_names().end(), arg.name());
    if (pos != model_input_names().end() && tensor) {
      feeds.push_back(static_cast<Feed>(pos - model_input_names().begin()));
    } else if (arg.default_value().has_value()) {
      break;  // left at its default, and so are the ones after it
    } else {
      throw usage_error(fmt::format(
          "{}: cannot feed forward: argument '{}' is not one of input_ids, attention_mask, token_type_ids "
          "(Tensor) and has no default; schema: {}",
          path, arg.name(), c10::toString(schema)));
    }
  }
  if (std::find(feeds.begin(), feeds.end(), Feed::input_ids) == feeds.end())
    throw usage_error(fmt::format("{}: forward takes no input_ids; schema: {}", path, c10::toString(schema)));
  return feeds;
}

// Parameters and buffers, moved or cast one by one: Module::to() refuses PrivateUse1 devices ("incompatible
// tensor type": its shallow-copy check does not know them, pytorch issue 196975); setattr works everywhere.
void convert_tensors(torch::jit::Module& module, const std::function<torch::Tensor(const torch::Tensor&)>& convert) {
  for (auto sub : module.modules()) {
    for (const auto& p : sub.named_parameters(/*recurse=*/false)) sub.setattr(p.name, convert(p.value));
    for (const auto& b : sub.named_buffers(/*recurse=*/false)) sub.setattr(b.name, convert(b.value));
  }
}

c10::ScalarType dtype_from_name(const std::string& name) {
  if (name == "float32") return torch::kFloat32;
  if (name == "float16") return torch::kFloat16;
  if (name == "bfloat16") return torch::kBFloat16;
  throw usage_error("--model:torch_dtype: a TorchScript model can be cast to float32, float16 or bfloat16; got " + name);
}

class TorchScriptModel : public Model {
 public:
  TorchScriptModel(torch::jit::Module module, std::string path, TokenFacts tokens)
      : module_(std::move(module)), path_(std::move(path)), tokens_(std::move(tokens)) {
    const auto& schema = module_.get_method("forward").function().getSchema();
    feeds_ = plan_inputs(schema, path_);
    // The arguments after the fed ones keep their defaults (plan_inputs checked they have one); running
    // the function on a stack, the driver pushes them itself, as Module::forward's normalisation would.
    for (size_t i = 1 + feeds_.size(); i < schema.arguments().size(); ++i)
      defaults_.push_back(*schema.arguments()[i].default_value());
    stack_.reserve(1 + feeds_.size() + defaults_.size());
  }

  // The interpreter runs on a stack kept between calls: the module, then the inputs. Module::forward would
  // copy the argument vector and insert the module in front of it at every call (two allocations); the
  // types need no check, the inputs are the int64 tensors the schema was planned from.
  torch::IValue forward(const Batch& batch) override {
    stack_.clear();
    stack_.emplace_back(module_._ivalue());
    for (Feed f : feeds_) {
      stack_.emplace_back(f == Feed::input_ids        ? batch.input_ids
                          : f == Feed::attention_mask ? batch.attention_mask
                                                      : batch.token_type_ids);
    }
    for (const auto& d : defaults_) stack_.push_back(d);
    try {
      // Looked up per call (a name compare over the class's few methods): compilers replace module_.
      module_.type()->getMethod("forward").run(stack_);
    } catch (...) {
      stack_.clear();  // a failed call keeps no inputs alive
      throw;
    }
    return std::move(stack_.front());
  }

  // Read from the module when asked: a compiler (freeze, a plugin's) may have rewritten it since.
  ModelFacts facts() const override {
    ModelFacts f;
    f.dtype_name = "float32";
    for (const auto& p : module_.parameters())
      if (p.is_floating_point()) {
        f.dtype_name = dtype_short_name(p.scalar_type());
        break;
      }
    int64_t bytes = 0;
    for (const auto& p : module_.parameters()) {
      f.parameter_count += p.numel();
      bytes += p.numel() * static_cast<int64_t>(p.element_size());
    }
    f.tokens = tokens_;
    f.fed_inputs.clear();
    for (Feed feed : feeds_) f.fed_inputs.push_back(model_input_names()[static_cast<size_t>(feed)]);
    f.description = fmt::format("TorchScript archive {}\n", path_);
    // The schema is the archive's (its argument names and types): written out, never a line of its own.
    f.description += fmt::format("forward: {}\n",
                                 escape_controls(c10::toString(module_.get_method("forward").function().getSchema())));
    f.description += fmt::format("inputs fed: {}\n", fmt::join(f.fed_inputs, ", "));
    f.description += fmt::format("parameters: {} ({:.1f} MB), dtype {}\n", f.parameter_count,
                                 static_cast<double>(bytes) / 1e6, f.dtype_name);
    f.description += fmt::format("vocabulary: {} ids, {} special ids excluded from inputs", tokens_.vocab_size,
                                 tokens_.special_ids.size());
    return f;
  }

  void cast(c10::ScalarType dtype) {
    convert_tensors(module_, [&](const torch::Tensor& t) { return t.is_floating_point() ? t.to(dtype) : t; });
  }

  void eval() override { module_.eval(); }

  torch::jit::Module* torchscript_module() override { return &module_; }

 private:
  torch::jit::Module module_;
  std::string path_;
  TokenFacts tokens_;
  std::vector<Feed> feeds_;
  std::vector<torch::IValue> defaults_;
  torch::jit::Stack stack_;
};

// The vocabulary size and special-token ids of config.json, when present. A TorchScript file's config.json
// need not describe a whole architecture, so only these keys are read here; the tokenizer files are read by
// the same code as for Hugging Face folders.
hf::EncoderConfig read_vocabulary_config(const fs::path& config_path) {
  hf::EncoderConfig config;
  std::error_code error;
  if (!fs::exists(fs::symlink_status(config_path, error))) return config;
  const nlohmann::json json = read_json_file(config_path.string());  // with json_input's limits and checks
  if (!json.is_object()) throw runtime_error(config_path.string() + ": not a JSON object");
  auto integer = [&](const char* key) -> std::optional<int64_t> {
    if (json.contains(key) && json[key].is_number_integer()) return json[key].get<int64_t>();
    return std::nullopt;
  };
  config.vocab_size = integer("vocab_size").value_or(0);
  config.type_vocab_size = std::max<int64_t>(integer("type_vocab_size").value_or(0), 0);
  config.pad_token_id = integer("pad_token_id");
  config.bos_token_id = integer("bos_token_id");
  config.eos_token_id = integer("eos_token_id");
  config.cls_token_id = integer("cls_token_id");
  config.sep_token_id = integer("sep_token_id");
  config.unk_token_id = integer("unk_token_id");
  config.mask_token_id = integer("mask_token_id");
  return config;
}

}  // namespace

TokenFacts token_facts_beside(const std::string& path, const ModelOptions& options) {
  const fs::path folder = fs::path(path).parent_path().empty() ? fs::path(".") : fs::path(path).parent_path();
  hf::EncoderConfig config = read_vocabulary_config(folder / "config.json");
  // A size that contradicts the config beside the file would draw ids past the embedding table (an ONNX model's
  // Gather reads them as garbage without a word): refused, as a folder's is.
  if (options.vocab_size && config.vocab_size > 0 && *options.vocab_size != config.vocab_size)
    throw usage_error(fmt::format("--model:vocab_size {} contradicts {} (vocab_size {}); leave it out", *options.vocab_size,
                                  (folder / "config.json").string(), config.vocab_size));
  if (options.vocab_size) config.vocab_size = *options.vocab_size;
  if (config.vocab_size <= 0)
    throw usage_error(fmt::format(
        "{}: the vocabulary size is unknown: put a config.json with vocab_size beside the file, or pass "
        "--model:vocab_size@ N",
        path));
  return TokenFacts{config.vocab_size, hf::read_special_tokens(folder.string(), config).ids, config.type_vocab_size};
}

std::unique_ptr<Model> load_torchscript_model(const LoadRequest& request) {
  const auto& o = request.options;
  if (const auto key = model_key_not_taken(o, ModelFile::torchscript))
    throw usage_error(fmt::format("--model:{} applies to Hugging Face model folders; {} is a TorchScript file", *key,
                                  request.path));
  refuse_special_file(request.path);  // a FIFO would block torch::jit::load forever
  // A TorchScript archive is a zip that LibTorch reads without its CRC-32s: a damaged byte came out as a
  // parse error in the model's code, an unknown type, or an internal assert; an empty or foreign file as
  // miniz's "internal error". Checked first (before the vocabulary beside it is asked for), it is one line.
  char magic[4] = {};
  std::ifstream(request.path, std::ios::binary).read(magic, sizeof magic);
  if (std::string(magic, sizeof magic) != std::string("PK\x03\x04", 4))
    throw usage_error(request.path + ": not a TorchScript archive (torch.jit.save writes a zip; this file does "
                                     "not begin as one)");
  verify_zip_file(request.path);
  TokenFacts facts = token_facts_beside(request.path, o);
  torch::jit::Module module;
  try {
    module = torch::jit::load(request.path, request.device);
  } catch (const c10::Error& e) {
    // A damaged archive trips LibTorch's own internal checks, whose text asks the user to report a bug to
    // PyTorch: the file is what is wrong, and that is what the line says.
    const std::string cause = e.what_without_backtrace();
    throw runtime_error(fmt::format("{}: cannot load as a TorchScript archive: {}", request.path,
                                    cause.find("INTERNAL ASSERT FAILED") != std::string::npos
                                        ? "the file is damaged or is not one (torch.jit.save writes them)"
                                        : message_cause(cause)));
  }
  if (!module.find_method("forward"))
    throw usage_error(request.path + ": the TorchScript module has no forward method");
  auto model = std::make_unique<TorchScriptModel>(std::move(module), request.path, std::move(facts));
  if (o.dtype && *o.dtype != "auto") model->cast(dtype_from_name(*o.dtype));
  return model;
}

}  // namespace fmwork
