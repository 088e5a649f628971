// load_hf_model(): a Hugging Face model folder run by the native encoder. See include/fmwork/hf/hf_model.hpp.
#include "fmwork/hf/hf_model.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include <c10/core/InferenceMode.h>

#include "fmwork/error.hpp"
#include "fmwork/hf/safetensors.hpp"
#include "fmwork/hf/special_tokens.hpp"

namespace fmwork {
namespace hf {
namespace {

namespace fs = std::filesystem;

std::string join_first(const std::vector<std::string>& items, size_t n) {
  std::string out;
  for (size_t i = 0; i < items.size() && i < n; ++i) out += (i ? ", " : "") + items[i];
  if (items.size() > n) out += ", ...";
  return out + " (" + std::to_string(items.size()) + " in all)";
}

std::string shape_str(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

std::string with_commas(int64_t n) {
  std::string s = std::to_string(n);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<size_t>(i), ",");
  return s;
}

// The family prefixes of the classes we run; a class starting with one and continuing with For..., LMHead...
// is a task-head class.
struct ClassFamily {
  const char* stem;
  const char* model_type;  // nullptr for Auto
};
constexpr ClassFamily kClassFamilies[] = {
    {"Bert", "bert"}, {"Roberta", "roberta"}, {"XLMRoberta", "xlm-roberta"}, {"DistilBert", "distilbert"}, {"Auto", nullptr}};

// A usage Error for head and unknown classes; the model_type the class requires (empty for AutoModel).
std::string check_class_name(const std::string& cls) {
  for (const auto& f : kClassFamilies) {
    const std::string stem = f.stem;
    if (cls.rfind(stem, 0) != 0) continue;
    const std::string rest = cls.substr(stem.size());
    if (rest == "Model") return f.model_type ? f.model_type : "";
    if (rest.rfind("For", 0) == 0 || rest.rfind("ModelFor", 0) == 0 || rest.rfind("LMHead", 0) == 0 ||
        rest == "ModelWithLMHead")
      throw usage_error("--model_class " + cls + " is a task-head class; the native encoder runs base models: use --model_class " +
                        stem + "Model" + (f.model_type ? " (or AutoModel)" : ""));
  }
  std::string list;
  for (const auto& c : supported_model_classes()) list += (list.empty() ? "" : ", ") + c;
  throw usage_error("--model_class " + cls + " is not supported for a Hugging Face folder (supported: " + list + ")");
}

bool any_exists(const std::string& dir, std::initializer_list<const char*> names, std::string* found) {
  for (const char* n : names)
    if (fs::exists(dir + "/" + n)) {
      if (found) *found = n;
      return true;
    }
  return false;
}

}  // namespace

const std::vector<std::string>& supported_model_classes() {
  static const std::vector<std::string> classes = {"BertModel", "RobertaModel", "XLMRobertaModel", "DistilBertModel",
                                                   "AutoModel"};
  return classes;
}

void check_model_class(const std::string& model_class, const EncoderConfig& config) {
  const std::string wants = check_class_name(model_class);
  if (!wants.empty() && wants != config.model_type)
    throw usage_error("--model_class " + model_class + " does not match " + config.source + " model_type \"" +
                      config.model_type + "\": use --model_class " + config.base_class() + " (or AutoModel)");
}

at::ScalarType resolve_dtype(const std::optional<std::string>& option, const EncoderConfig& config) {
  if (!option) return at::kFloat;  // from_pretrained's default
  std::string d = *option;
  if (d.rfind("torch.", 0) == 0) d = d.substr(6);
  std::string from = "--model:dtype " + d;
  if (d == "auto") {
    if (!config.torch_dtype) return at::kFloat;
    d = *config.torch_dtype;
    from = "--model:dtype auto (config.json torch_dtype " + d + ")";
  }
  if (d == "float32" || d == "float") return at::kFloat;
  if (d == "float16" || d == "half") return at::kHalf;
  if (d == "bfloat16") return at::kBFloat16;
  throw usage_error(from + " is not supported by the native encoder: use float32, float16, bfloat16 or auto");
}

// ---- HfModel ----------------------------------------------------------------------------------------------

HfModel::HfModel(std::string folder, std::string model_class, std::unique_ptr<Encoder> encoder,
                 std::string description, bool random_weights, std::optional<uint64_t> seed)
    : folder_(std::move(folder)),
      model_class_(std::move(model_class)),
      encoder_(std::move(encoder)),
      description_(std::move(description)),
      random_weights_(random_weights),
      seed_(seed) {}

torch::IValue HfModel::forward(const Batch& batch) {
  EncoderOutput out = encoder_->forward(batch.input_ids, batch.attention_mask, batch.token_type_ids);
  if (out.pooler_output.defined()) return c10::ivalue::Tuple::create({out.last_hidden_state, out.pooler_output});
  return out.last_hidden_state;
}

std::vector<std::string> HfModel::fed_inputs() const {
  if (!encoder_->weights().token_type.defined()) return {"input_ids", "attention_mask"};
  return {"input_ids", "attention_mask", "token_type_ids"};
}

std::string HfModel::dtype_name() const { return dtype_short_name(encoder_->dtype()); }

TokenFacts HfModel::token_facts() const {
  if (!facts_) {
    TokenFacts f;
    f.vocab_size = encoder_->config().vocab_size;
    f.special_ids = read_special_tokens(folder_, encoder_->config()).ids;
    facts_ = f;
  }
  return *facts_;
}

}  // namespace hf

// ---- load_hf_model ----------------------------------------------------------------------------------------

std::unique_ptr<Model> load_hf_model(const LoadRequest& request) {
  using namespace hf;
  namespace fs = std::filesystem;
  const std::string& dir = request.path;
  const ModelOptions& opt = request.options;
  if (!fs::exists(dir)) throw usage_error(dir + ": no such folder");
  if (!fs::is_directory(dir))
    throw usage_error(dir + ": not a folder (a Hugging Face model folder holds config.json and model.safetensors)");
  const std::string cls = request.model_class.empty() ? "AutoModel" : request.model_class;
  check_class_name(cls);
  const std::string config_path = dir + "/config.json";
  if (!fs::exists(config_path))
    throw usage_error(dir + ": no config.json; a Hugging Face model folder holds config.json and model.safetensors");
  EncoderConfig config = load_config(config_path);
  check_model_class(cls, config);
  const std::string run_class = cls == "AutoModel" ? config.base_class() : cls;

  // Options.
  const at::ScalarType dtype = resolve_dtype(opt.dtype, config);
  AttentionImpl attention = AttentionImpl::eager;
  if (opt.attn_implementation) {
    if (*opt.attn_implementation == "sdpa")
      attention = AttentionImpl::sdpa;
    else if (*opt.attn_implementation != "eager")
      throw usage_error("--model:attn_implementation " + *opt.attn_implementation +
                        " is not supported by the native encoder: use eager or sdpa");
  }
  if (config.family == Family::distilbert && opt.add_pooling_layer.value_or(false))
    throw usage_error("--model:add_pooling_layer True: DistilBertModel has no pooler");
  bool pooler = config.family != Family::distilbert && opt.add_pooling_layer.value_or(true);
  const bool pooler_explicit = opt.add_pooling_layer.has_value();
  if (opt.vocab_size && *opt.vocab_size != config.vocab_size)
    throw usage_error("--model:vocab_size " + std::to_string(*opt.vocab_size) + " contradicts " + config_path +
                      " (vocab_size " + std::to_string(config.vocab_size) + "); the option is for TorchScript files");

  // Weights.
  std::vector<std::pair<std::string, at::Tensor>> named;
  std::vector<std::string> notes;
  std::string weights_line;
  std::optional<uint64_t> seed;
  std::string st_file;
  bool owned_weights = true;  // false when any weight is a zero-copy view of the file mapping
  const bool has_safetensors = any_exists(dir, {"model.safetensors", "model.safetensors.index.json"}, &st_file);
  if (opt.random_weights) {
    seed = opt.random_weights_seed ? static_cast<uint64_t>(*opt.random_weights_seed) : kDefaultRandomWeightsSeed;
    named = random_weights(config, pooler, *seed, dtype);
    std::ostringstream std_dev;
    std_dev << config.initializer_range;
    weights_line = "*** RANDOM WEIGHTS *** (--model:random_weights@ True, seed " + std::to_string(*seed) + "): N(0, " +
                   std_dev.str() + ") as Hugging Face initialises; outputs are meaningless, timings are valid";
    if (has_safetensors) notes.push_back("the folder's " + st_file + " was NOT read (random weights asked for)");
  } else if (has_safetensors) {
    Checkpoint ck = Checkpoint::open_folder(dir);
    const std::string label = fs::path(ck.files().size() == 1 ? ck.files()[0]->path() : dir + "/" + st_file).string();
    auto expected = expected_weights(config, pooler);
    std::map<std::string, std::vector<int64_t>> shapes(expected.begin(), expected.end());
    std::map<std::string, std::string> source;  // canonical -> checkpoint name
    std::vector<std::string> unexpected, ignored;
    for (const auto& name : ck.names()) {
      const std::string c = canonical_weight_name(name, config);
      if (shapes.count(c)) {
        auto [it, fresh] = source.emplace(c, name);
        if (!fresh)
          throw runtime_error(label + ": weights " + it->second + " and " + name + " are both " + c +
                              " (a checkpoint holds a name with or without the \"" + config.weight_prefix() +
                              "\" prefix, not both)");
      } else if (is_ignorable_weight(c) || (!pooler && c.rfind("pooler.", 0) == 0)) {
        ignored.push_back(name);
      } else {
        unexpected.push_back(name);
      }
    }
    if (!unexpected.empty())
      throw runtime_error(label + ": unexpected weights for " + run_class + ": " + join_first(unexpected, 5) +
                          "; a " + config.model_type + " base checkpoint names them like " + expected[0].first +
                          ", with or without the prefix \"" + config.weight_prefix() + "\"");
    std::vector<std::string> missing;
    for (const auto& [name, shape] : expected)
      if (!source.count(name)) missing.push_back(name);
    if (pooler && !pooler_explicit && !source.count("pooler.dense.weight") && !source.count("pooler.dense.bias")) {
      // Many checkpoints (saved from task or sentence-embedding models) carry no pooler; Hugging Face would
      // initialise one at random. Run without it and say so.
      pooler = false;
      missing.erase(std::remove_if(missing.begin(), missing.end(),
                                   [](const std::string& n) { return n.rfind("pooler.", 0) == 0; }),
                    missing.end());
      notes.push_back("the checkpoint has no pooler: outputs last_hidden_state only (Hugging Face would add a randomly "
                      "initialised pooler; --model:add_pooling_layer@ False says so explicitly)");
    }
    if (!missing.empty())
      throw runtime_error(label + ": missing weights for " + run_class + ": " + join_first(missing, 5) +
                          (missing.size() == 2 && missing[0].rfind("pooler.", 0) == 0
                               ? "; pass --model:add_pooling_layer@ False to run without the pooler"
                               : ""));
    size_t zero_copy = 0, converted = 0;
    for (const auto& [name, shape] : expected) {
      if (!pooler && name.rfind("pooler.", 0) == 0) continue;
      const std::string& orig = source.at(name);
      const TensorEntry& e = ck.entry(orig);
      if (e.shape != shape)
        throw runtime_error(label + ": tensor " + orig + " has shape " + shape_str(e.shape) + ", but " + config_path +
                            " implies " + shape_str(shape));
      if (!at::isFloatingType(e.scalar_type))
        throw runtime_error(label + ": tensor " + orig + " is " + e.dtype + "; weights must be floating point");
      const SafetensorsFile& file = ck.file_of(orig);
      at::Tensor t = file.tensor(orig, dtype);
      if (file.holds(t)) {
        ++zero_copy;
      } else {
        ++converted;
        file.release_pages(orig);  // the converted copy replaces the mapped bytes in this process
      }
      named.emplace_back(name, std::move(t));
    }
    owned_weights = zero_copy == 0;
    weights_line = ck.description() + ": " + std::to_string(zero_copy) + " zero-copy from the mapping, " +
                   std::to_string(converted) + " converted to " + dtype_short_name(dtype);
    if (!ignored.empty()) notes.push_back("ignored (buffers / task heads, as Hugging Face does): " + join_first(ignored, 4));
  } else {
    std::string other;
    if (any_exists(dir, {"pytorch_model.bin", "pytorch_model.bin.index.json", "tf_model.h5", "flax_model.msgpack"}, &other))
      throw usage_error(dir + " has " + other + " but no model.safetensors; the native encoder reads safetensors only. Convert once "
                        "where transformers is installed: python -c \"from transformers import AutoModel; "
                        "AutoModel.from_pretrained('" + dir + "').save_pretrained('" + dir +
                        "', safe_serialization=True)\"");
    throw usage_error(dir + " has no weights (model.safetensors); to benchmark the architecture of its config.json "
                      "with random weights, pass --model:random_weights@ True");
  }

  auto encoder = std::make_unique<Encoder>(config, named, pooler, attention, owned_weights);
  named.clear();
  encoder->to(request.device);
  encoder->set_packed_gemm(opt.packed_gemm.value_or(true));

  std::ostringstream d;
  d << "native encoder: " << run_class << " (--model_class " << cls << ") from " << dir << "\n";
  d << "  config: model_type=" << config.model_type;
  if (!config.architectures.empty()) {
    d << " architectures=";
    for (size_t i = 0; i < config.architectures.size(); ++i) d << (i ? "," : "") << config.architectures[i];
  }
  d << "\n  " << config.summary() << "\n";
  d << "  max input size: " << config.max_input_size();
  if (config.family == Family::roberta)
    d << " (position ids start after pad_token_id: " << *config.pad_token_id + 1 << "..)";
  d << "\n  dtype: " << dtype_short_name(dtype) << " (--model:dtype " << opt.dtype.value_or("not given") << ", config torch_dtype "
    << config.torch_dtype.value_or("not given") << ")\n";
  d << "  device: " << request.device.str() << "\n";
  d << "  attention: " << encoder->attention_description() << "\n";
  d << "  linear layers: " << encoder->linear_description() << "\n";
  d << "  q/k/v: "
    << (encoder->fused_qkv() ? "one fused [3H, H] GEMM"
                             : "three GEMMs (zero-copy views, not adjacent in the file; fusing would copy)")
    << "\n";
  d << "  pooler: " << (encoder->has_pooler() ? "dense + tanh on the first token" : "none") << "\n";
  d << "  weights: " << weights_line << "\n";
  for (const auto& n : notes) d << "  note: " << n << "\n";
  d << "  parameters: " << with_commas(encoder->parameter_count());
  return std::make_unique<HfModel>(dir, cls, std::move(encoder), d.str(), opt.random_weights, seed);
}

namespace hf {

uint64_t write_random_model_folder(const std::string& config_json_path, const std::string& out_dir, uint64_t seed,
                                   const std::string& dtype) {
  namespace fs = std::filesystem;
  EncoderConfig config = load_config(config_json_path);
  at::ScalarType t = resolve_dtype(dtype, config);
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec) throw runtime_error(out_dir + ": cannot create: " + ec.message());
  const bool pooler = config.family != Family::distilbert;
  auto weights = random_weights(config, pooler, seed, t);
  const std::string out = out_dir + "/model.safetensors";
  write_safetensors(out, weights, {{"format", "pt"}});
  const fs::path src_dir = fs::path(config_json_path).parent_path();
  auto copy = [&](const fs::path& from, const std::string& name) {
    fs::path to = fs::path(out_dir) / name;
    if (fs::exists(to) && fs::equivalent(from, to)) return;
    fs::copy_file(from, to, fs::copy_options::overwrite_existing, ec);
    if (ec) throw runtime_error(to.string() + ": cannot write: " + ec.message());
  };
  copy(config_json_path, "config.json");
  for (const char* name : {"tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"})
    if (fs::exists(src_dir / name)) copy(src_dir / name, name);
  return fs::file_size(out);
}

}  // namespace hf
}  // namespace fmwork
