// load_hf_model(): a Hugging Face model folder run by the native encoder. See include/fmwork/loaders/hf_model.hpp.
#include "fmwork/loaders/hf_model.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>

#include <c10/core/InferenceMode.h>

#include "fmwork/base/text_format.hpp"
#include "fmwork/base/error.hpp"
#include "fmwork/encoders/families.hpp"
#include "fmwork/encoders/linear.hpp"
#include "fmwork/model/safetensors.hpp"
#include "fmwork/hf/special_tokens.hpp"
#include "fmwork/base/regular_file.hpp"
#include "fmwork/base/json_input.hpp"
#include "fmwork/loaders/model_dtype.hpp"
#include "fmwork/loaders/transformers_class_model.hpp"

namespace fmwork {
namespace hf {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string>& supported_model_classes() {
  static const std::vector<std::string> classes = [] {
    std::vector<std::string> out = native_base_classes();
    out.push_back("AutoModel");
    return out;
  }();
  return classes;
}

std::string join_first(const std::vector<std::string>& items, size_t n) {
  std::string out;
  for (size_t i = 0; i < items.size() && i < n; ++i) out += (i ? ", " : "") + items[i];
  if (items.size() > n) out += ", ...";
  return out + " (" + std::to_string(items.size()) + " in all)";
}

std::string with_commas(int64_t n) {
  std::string s = std::to_string(n);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<size_t>(i), ",");
  return s;
}

// The model_type a native class requires (empty for AutoModel), or nothing for a class with no native
// encoder. A usage Error for a task-head class of a native family (a class stem of the family table, or
// Auto, followed by For..., LMHead...).
std::optional<std::string> native_model_type(const std::string& cls) {
  std::vector<ModelTypeName> stems = model_type_names();
  stems.push_back({nullptr, "Auto"});
  for (const auto& f : stems) {
    const std::string stem = f.class_stem;
    if (cls.rfind(stem, 0) != 0) continue;
    const std::string rest = cls.substr(stem.size());
    if (rest == "Model") return std::string(f.model_type ? f.model_type : "");
    if (rest.rfind("For", 0) == 0 || rest.rfind("ModelFor", 0) == 0 || rest.rfind("LMHead", 0) == 0 ||
        rest == "ModelWithLMHead")
      throw usage_error("--model_class " + cls + " is a task-head class; the native encoder runs base models: use --model_class " +
                        stem + "Model" + (f.model_type ? " (or AutoModel)" : ""));
  }
  return std::nullopt;
}

// What runs natively, and how the rest runs: the second half of every "no native encoder" message.
std::string native_and_compile_hint() {
  return "(native: " + joined(native_base_classes()) + ", and AutoModel on model_type " + joined(supported_model_types()) +
         "); add --compile to run it ahead of time through transformers' own class (an AOTInductor package, "
         "docs/hf-models.md)";
}

[[noreturn]] void refuse_class(const std::string& cls) {
  throw usage_error("--model_class " + cls + " has no native encoder" +
                    did_you_mean(one_typo_from(cls, supported_model_classes())) + " " + native_and_compile_hint());
}

// The model_type the class requires (empty for AutoModel); a usage Error for a head or non-native class.
std::string check_class_name(const std::string& cls) {
  const std::optional<std::string> wants = native_model_type(cls);
  if (!wants) refuse_class(cls);
  return *wants;
}

// config.json's model_type when it is a string the native encoders do not run; empty otherwise (a missing or
// malformed model_type is parse_config's to report).
std::string foreign_model_type(const nlohmann::json& config) {
  if (!config.is_object() || !config.contains("model_type") || !config["model_type"].is_string()) return "";
  const std::string type = config["model_type"].get<std::string>();
  return family_of_model_type(type) ? "" : type;
}

// Whether the family's base model has a pooler (the family table's pooler column); the others output
// last_hidden_state only.
bool has_pooler_layer(const EncoderConfig& config) { return family_row(config.family).pooler; }

bool any_exists(const std::string& dir, std::initializer_list<const char*> names, std::string* found) {
  for (const char* n : names)
    if (fs::exists(dir + "/" + n)) {
      if (found) *found = n;
      return true;
    }
  return false;
}

}  // namespace

void check_model_class(const std::string& model_class, const EncoderConfig& config) {
  const std::string wants = check_class_name(model_class);
  if (!wants.empty() && wants != config.model_type)
    throw usage_error("--model_class " + model_class + " does not match " + config.source + " model_type \"" +
                      config.model_type + "\": use --model_class " + config.base_class() + " (or AutoModel)");
}

at::ScalarType resolve_dtype(const std::optional<std::string>& option, const EncoderConfig& config) {
  return fmwork::resolve_dtype(option, config.torch_dtype);
}

// ---- HfModel ----------------------------------------------------------------------------------------------

HfModel::HfModel(std::string folder, std::unique_ptr<NativeEncoder> encoder, std::string description,
                 bool random_weights, std::optional<uint64_t> seed)
    : folder_(std::move(folder)),
      encoder_(std::move(encoder)),
      description_(std::move(description)),
      random_weights_(random_weights),
      seed_(seed) {}

torch::IValue HfModel::forward(const Batch& batch) {
  if (batch.packed.input_ids.defined()) return forward_packed(batch);
  // No mask when nothing is padded (the encoders' contract allows an undefined one): on CUDA a mask makes
  // flash attention ineligible, and BERT would build it inside the timed region.
  EncoderOutput out = encoder_->forward(batch.input_ids, batch.padded ? batch.attention_mask : at::Tensor(),
                                        batch.token_type_ids);
  if (out.pooler_output.defined()) return c10::ivalue::Tuple::create({out.last_hidden_state, out.pooler_output});
  return out.last_hidden_state;
}

// The packed real tokens through the encoder; last_hidden_state scattered back into the batch's padded
// shape, zero at the padding (a copy of the real tokens' rows: small beside the forward pass), so that every
// batching mode returns outputs of one shape.
torch::IValue HfModel::forward_packed(const Batch& batch) {
  const PackedTokens& p = batch.packed;
  EncoderOutput out = encoder_->forward_packed(p);
  const int64_t B = batch.input_ids.size(0), T = batch.input_ids.size(1), H = out.last_hidden_state.size(-1);
  auto hidden = at::zeros({B * T, H}, out.last_hidden_state.options());
  hidden.index_copy_(0, p.index, out.last_hidden_state);
  out.last_hidden_state = hidden.view({B, T, H});
  if (out.pooler_output.defined()) return c10::ivalue::Tuple::create({out.last_hidden_state, out.pooler_output});
  return out.last_hidden_state;
}

void HfModel::leave_device() { encoder_->to(at::kCPU); }

ModelFacts HfModel::facts() const {
  if (!tokens_) {  // read on the first call: tokenizer.json can be large
    TokenFacts t;
    t.vocab_size = encoder_->config().vocab_size;
    t.type_vocab_size = encoder_->config().type_vocab_size;
    t.special_ids = read_special_tokens(folder_, encoder_->config()).ids;
    tokens_ = t;
  }
  ModelFacts f;
  f.description = description_;
  f.dtype_name = dtype_short_name(encoder_->dtype());
  f.tokens = *tokens_;
  f.parameter_count = encoder_->parameter_count();
  if (random_weights_) f.weights_source = "random:seed=" + std::to_string(seed_.value_or(0));
  f.fed_inputs = {"input_ids", "attention_mask"};
  if (encoder_->has_token_types()) f.fed_inputs.push_back("token_type_ids");
  f.output_names = {"last_hidden_state", "pooler_output"};
  const NativeEncoder* encoder = encoder_.get();  // owned by this model, which outlives its facts' use
  f.forward_flops = [encoder](int64_t batch, int64_t input) {
    return hf::forward_flops(encoder->config(), batch, input, encoder->has_pooler()).total();
  };
  f.activation_bytes = [encoder](int64_t batch, int64_t input) { return encoder->activation_bytes(batch, input); };
  f.runs_unpadded = true;  // NativeEncoder::forward_packed
  f.attention = encoder_->attention() == AttentionImpl::sdpa ? "sdpa" : "eager";
  f.gelu_epilogue = encoder_->gelu_epilogue();
  return f;
}

}  // namespace hf

// ---- load_hf_model ----------------------------------------------------------------------------------------

namespace hf {
namespace {

using NamedShapes = std::vector<std::pair<std::string, std::vector<int64_t>>>;

// What load_hf_model settles from the folder and the options before it reads any weight.
struct LoadPlan {
  std::string dir, config_path, cls, run_class;
  at::ScalarType dtype = at::kFloat;
  // transformers' default (sdpa, for every family the native encoders run), so that "the same model" is the
  // same computation unless told otherwise.
  AttentionImpl attention = AttentionImpl::sdpa;
  bool attention_explicit = false;
  bool pooler = true;
  bool pooler_explicit = false;
};

// The weights and what the description says about them.
struct LoadedWeights {
  std::vector<std::pair<std::string, at::Tensor>> named;
  std::vector<std::string> notes;
  std::string line;
  std::optional<uint64_t> seed;
  bool owned = true;  // false when any weight is a zero-copy view of the file mapping
  bool pooler = true;
};

void resolve_options(const ModelOptions& opt, const EncoderConfig& config, LoadPlan& p) {
  p.dtype = resolve_dtype(opt.dtype, config);
  if (opt.attn_implementation) {
    if (*opt.attn_implementation == "eager")
      p.attention = AttentionImpl::eager;
    else if (*opt.attn_implementation != "sdpa")
      throw usage_error("--model:attn_implementation " + *opt.attn_implementation +
                        " is not supported by the native encoder: use eager or sdpa");
    p.attention_explicit = true;
  }
  if (!has_pooler_layer(config) && opt.add_pooling_layer.value_or(false))
    throw usage_error("--model:add_pooling_layer True: " + config.base_class() + " has no pooler");
  p.pooler = has_pooler_layer(config) && opt.add_pooling_layer.value_or(true);
  p.pooler_explicit = opt.add_pooling_layer.has_value();
  if (opt.vocab_size && *opt.vocab_size != config.vocab_size)
    throw usage_error("--model:vocab_size " + std::to_string(*opt.vocab_size) + " contradicts " + p.config_path +
                      " (vocab_size " + std::to_string(config.vocab_size) + "); the option is for TorchScript files");
}

void load_random_weights(const EncoderConfig& config, const ModelOptions& opt, at::ScalarType dtype, LoadedWeights& w) {
  w.seed = opt.random_weights_seed ? static_cast<uint64_t>(*opt.random_weights_seed) : kDefaultRandomWeightsSeed;
  w.named = random_weights(config, w.pooler, *w.seed, dtype);
  std::ostringstream std_dev;
  std_dev << config.initializer_range;
  const std::string law = config.family == Family::modernbert
                              ? "truncated normals of std " + std_dev.str() + " (" + std_dev.str() +
                                    " / sqrt(2 layers) for the output projections)"
                              : "N(0, " + std_dev.str() + ")";
  w.line = "*** RANDOM WEIGHTS *** (--model:random_weights@ True, seed " + std::to_string(*w.seed) + "): " + law +
           " as Hugging Face initialises " + config.base_class() + "; outputs are meaningless, timings are valid";
}

// The checkpoint's names sorted into those the encoder takes (canonical -> checkpoint name) and those it ignores.
struct CheckpointNames {
  std::map<std::string, std::string> source;
  std::vector<std::string> ignored;
};

CheckpointNames match_names(const Checkpoint& ck, const EncoderConfig& config, const NamedShapes& expected, bool pooler,
                            const std::string& label, const std::string& run_class) {
  std::map<std::string, std::vector<int64_t>> shapes(expected.begin(), expected.end());
  CheckpointNames n;
  std::vector<std::string> unexpected;
  for (const auto& name : ck.names()) {
    const std::string c = canonical_weight_name(name, config);
    if (shapes.count(c)) {
      auto [it, fresh] = n.source.emplace(c, name);
      if (!fresh)
        throw runtime_error(label + ": weights " + it->second + " and " + name + " are both " + c +
                            " (a checkpoint holds a name with or without the \"" + config.weight_prefix() +
                            "\" prefix, not both)");
    } else if (is_ignorable_weight(c, config) || (!pooler && c.rfind("pooler.", 0) == 0)) {
      n.ignored.push_back(name);
    } else {
      unexpected.push_back(name);
    }
  }
  if (!unexpected.empty())
    throw runtime_error(label + ": unexpected weights for " + run_class + ": " + join_first(unexpected, 5) + "; a " +
                        config.model_type + " base checkpoint names them like " + expected[0].first +
                        ", with or without the prefix \"" + config.weight_prefix() + "\"");
  return n;
}

void check_missing(const NamedShapes& expected, const std::map<std::string, std::string>& source, const LoadPlan& p,
                   const std::string& label, LoadedWeights& w) {
  std::vector<std::string> missing;
  for (const auto& [name, shape] : expected)
    if (!source.count(name)) missing.push_back(name);
  if (w.pooler && !p.pooler_explicit && !source.count("pooler.dense.weight") && !source.count("pooler.dense.bias")) {
    // Many checkpoints (saved from task or sentence-embedding models) carry no pooler; Hugging Face would
    // initialise one at random. Run without it and say so.
    w.pooler = false;
    missing.erase(std::remove_if(missing.begin(), missing.end(),
                                 [](const std::string& n) { return n.rfind("pooler.", 0) == 0; }),
                  missing.end());
    w.notes.push_back("the checkpoint has no pooler: outputs last_hidden_state only (Hugging Face would add a randomly "
                      "initialised pooler; --model:add_pooling_layer@ False says so explicitly)");
  }
  if (!missing.empty())
    throw runtime_error(label + ": missing weights for " + p.run_class + ": " + join_first(missing, 5) +
                        (missing.size() == 2 && missing[0].rfind("pooler.", 0) == 0
                             ? "; pass --model:add_pooling_layer@ False to run without the pooler"
                             : ""));
}

// Each expected tensor checked against its shape and read in the run dtype: zero-copy where the file allows.
void read_tensors(const Checkpoint& ck, const NamedShapes& expected, const std::map<std::string, std::string>& source,
                  const LoadPlan& p, const std::string& label, LoadedWeights& w) {
  size_t zero_copy = 0, converted = 0;
  for (const auto& [name, shape] : expected) {
    if (!w.pooler && name.rfind("pooler.", 0) == 0) continue;
    const std::string& orig = source.at(name);
    const TensorEntry& e = ck.entry(orig);
    if (e.shape != shape)
      throw runtime_error(label + ": tensor " + orig + " has shape " + shape_text(e.shape) + ", but " + p.config_path +
                          " implies " + shape_text(shape));
    if (!at::isFloatingType(e.scalar_type))
      throw runtime_error(label + ": tensor " + orig + " is " + e.dtype + "; weights must be floating point");
    const SafetensorsFile& file = ck.file_of(orig);
    at::Tensor t = file.tensor(orig, p.dtype);
    if (file.holds(t)) {
      ++zero_copy;
    } else {
      ++converted;
      file.release_pages(orig);  // the converted copy replaces the mapped bytes in this process
    }
    w.named.emplace_back(name, std::move(t));
  }
  w.owned = zero_copy == 0;
  w.line = ck.description() + ": " + std::to_string(zero_copy) + " zero-copy from the mapping, " +
           std::to_string(converted) + " converted to " + dtype_short_name(p.dtype);
}

void load_checkpoint_weights(const LoadPlan& p, const EncoderConfig& config, const std::string& st_file,
                             LoadedWeights& w) {
  Checkpoint ck = Checkpoint::open_folder(p.dir);
  const std::string label = fs::path(ck.files().size() == 1 ? ck.files()[0]->path() : p.dir + "/" + st_file).string();
  const NamedShapes expected = expected_weights(config, w.pooler);
  const CheckpointNames n = match_names(ck, config, expected, w.pooler, label, p.run_class);
  check_missing(expected, n.source, p, label, w);
  read_tensors(ck, expected, n.source, p, label, w);
  if (!n.ignored.empty()) w.notes.push_back("ignored (buffers / task heads, as Hugging Face does): " + join_first(n.ignored, 4));
}

[[noreturn]] void throw_no_safetensors(const std::string& dir) {
  // fs::exists() follows links: a link to weights that are gone is no absence of weights, and says so.
  for (const char* name : {"model.safetensors", "model.safetensors.index.json"}) refuse_special_file(dir + "/" + name);
  std::string other;
  if (any_exists(dir, {"pytorch_model.bin", "pytorch_model.bin.index.json", "tf_model.h5", "flax_model.msgpack"}, &other))
    throw usage_error(dir + " has " + other + " but no model.safetensors; the native encoder reads safetensors only. Convert once "
                      "where transformers is installed: python -c \"from transformers import AutoModel; "
                      "AutoModel.from_pretrained('" + dir + "').save_pretrained('" + dir +
                      "', safe_serialization=True)\"");
  throw usage_error(dir + " has no weights (model.safetensors); to benchmark the architecture of its config.json "
                    "with random weights, pass --model:random_weights@ True");
}

LoadedWeights load_weights(const LoadPlan& p, const EncoderConfig& config, const ModelOptions& opt) {
  LoadedWeights w;
  w.pooler = p.pooler;
  std::string st_file;
  const bool has_safetensors = any_exists(p.dir, {"model.safetensors", "model.safetensors.index.json"}, &st_file);
  if (opt.random_weights) {
    load_random_weights(config, opt, p.dtype, w);
    if (has_safetensors) w.notes.push_back("the folder's " + st_file + " was NOT read (random weights asked for)");
  } else if (has_safetensors) {
    load_checkpoint_weights(p, config, st_file, w);
  } else {
    throw_no_safetensors(p.dir);
  }
  return w;
}

std::string describe(const LoadPlan& p, const EncoderConfig& config, const ModelOptions& opt, const at::Device& device,
                     const NativeEncoder& encoder, const LoadedWeights& w) {
  std::ostringstream d;
  d << "native encoder: " << p.run_class << " (--model_class " << p.cls << ") from " << p.dir << "\n";
  // config.json's strings, the safetensors files' names and tensor names are the folder's, not ours: written
  // out (escape_controls), so that a line break in one breaks no line of MODEL (log_text writes the rest).
  d << "  config: model_type=" << escape_controls(config.model_type);
  if (!config.architectures.empty()) {
    d << " architectures=";
    for (size_t i = 0; i < config.architectures.size(); ++i) d << (i ? "," : "") << escape_controls(config.architectures[i]);
  }
  d << "\n  " << config.summary() << "\n";
  d << "  max input size: " << config.max_input_size();
  if (config.positions_after_pad())
    d << " (position ids start after pad_token_id: " << *config.pad_token_id + 1 << "..)";
  d << "\n  dtype: " << dtype_short_name(p.dtype) << " (--model:dtype " << opt.dtype.value_or("not given") << ", config torch_dtype "
    << escape_controls(config.torch_dtype.value_or("not given")) << ")\n";
  d << "  device: " << device.str() << "\n";
  for (const auto& line : encoder.describe_lines()) d << "  " << line << "\n";
  d << "  attention chosen: " << (p.attention == AttentionImpl::sdpa ? "sdpa" : "eager")
    << (p.attention_explicit ? " (--model:attn_implementation)"
                             : " (--model:attn_implementation not given: transformers' default; eager on request)")
    << "\n";
  if (const uint64_t packed = encoder.packed_bytes(); packed > 0)
    d << "  packed copy: about " << bytes_text(packed, 1)
      << " of host memory beside the weights (the linear weights repacked for each combination's shape)\n";
  d << "  weights: " << escape_controls(w.line) << "\n";
  for (const auto& n : w.notes) d << "  note: " << escape_controls(n) << "\n";
  d << "  parameters: " << with_commas(encoder.parameter_count());
  return d.str();
}

}  // namespace
}  // namespace hf

std::unique_ptr<Model> load_hf_model(const LoadRequest& request) {
  using namespace hf;
  namespace fs = std::filesystem;
  LoadPlan p;
  p.dir = request.path;
  const std::string& dir = p.dir;
  const ModelOptions& opt = request.options;
  if (!fs::exists(dir)) throw usage_error(dir + ": no such folder");
  if (!fs::is_directory(dir))
    throw usage_error(dir + ": not a folder (a Hugging Face model folder holds config.json and model.safetensors)");
  p.cls = request.model_class.empty() ? "AutoModel" : request.model_class;
  const std::optional<std::string> native_type = native_model_type(p.cls);
  if (!native_type && !request.ahead_of_time) refuse_class(p.cls);
  p.config_path = dir + "/config.json";
  refuse_special_file(p.config_path);  // a FIFO would block open() forever
  if (!fs::exists(p.config_path))
    throw usage_error(dir + ": no config.json; a Hugging Face model folder holds config.json and model.safetensors");
  const nlohmann::json config_json = read_json_file(p.config_path);
  const std::string foreign = foreign_model_type(config_json);
  if (!native_type || !foreign.empty()) {
    if (request.ahead_of_time) return load_transformers_class_model(request, p.cls, config_json, p.config_path);
    throw usage_error(p.config_path + ": model_type \"" + excerpt(foreign) + "\" has no native encoder " +
                      native_and_compile_hint());
  }
  EncoderConfig config = parse_config(config_json, p.config_path);
  check_model_class(p.cls, config);
  p.run_class = p.cls == "AutoModel" ? config.base_class() : p.cls;
  resolve_options(opt, config, p);

  LoadedWeights w = load_weights(p, config, opt);
  const bool packed_gemm = opt.packed_gemm.value_or(packed_gemm_by_default());
  auto encoder = make_encoder(config, w.named, w.pooler, p.attention, w.owned);
  w.named.clear();
  encoder->to(request.device);
  encoder->set_packed_gemm(packed_gemm);
  encoder->set_gelu_epilogue(opt.gelu_epilogue.value_or(false));
  std::string description = describe(p, config, opt, request.device, *encoder, w);
  return std::make_unique<HfModel>(dir, std::move(encoder), std::move(description), opt.random_weights, w.seed);
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
  const bool pooler = has_pooler_layer(config);
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
