// ONNX and OpenVINO IR models run by OpenVINO's CPU runtime (see openvino_model.hpp). Without OpenVINO in the
// build (cmake/openvino.cmake) only the refusals are compiled.
#include "fmwork/loaders/openvino_model.hpp"

#include <filesystem>

#include <fmt/format.h>

#include "fmwork/base/error.hpp"
#include "fmwork/cli/model_keys.hpp"

#ifdef FMWORK_WITH_OPENVINO
#include <ATen/Parallel.h>

#include <algorithm>
#include <limits>
#include <sstream>

#include <fmt/ranges.h>
#include <openvino/frontend/manager.hpp>
#include <openvino/op/constant.hpp>
#include <openvino/op/parameter.hpp>
#include <openvino/op/relu.hpp>
#include <openvino/openvino.hpp>

#include "fmwork/base/crash_guard.hpp"
#include "fmwork/base/regular_file.hpp"
#include "fmwork/base/text_format.hpp"
#include "fmwork/loaders/torchscript_model.hpp"  // token_facts_beside
#endif

namespace fmwork {

namespace fs = std::filesystem;

#ifdef FMWORK_WITH_OPENVINO
bool openvino_built() { return true; }
std::string openvino_version() { return ov::get_openvino_version().buildNumber; }
#else
bool openvino_built() { return false; }
std::string openvino_version() { return ""; }
#endif

void require_openvino(const std::string& what) {
  if (openvino_built()) return;
  throw usage_error(what + ": this driver was built without OpenVINO; install its wheel into the Python the build "
                           "uses (scripts/install-deps.sh pins it: pip install openvino==2026.4.1) and build again");
}

bool is_openvino_model_file(const std::string& path) {
  const std::string ext = fs::path(path).extension().string();
  return ext == ".onnx" || ext == ".xml";
}

#ifndef FMWORK_WITH_OPENVINO

void check_openvino_properties(const std::vector<std::pair<std::string, std::string>>&) {
  require_openvino("--compile:backend openvino");
}
std::unique_ptr<Model> load_openvino_model(const LoadRequest& request) {
  require_openvino("--model_name " + request.path);
  return nullptr;
}
std::unique_ptr<Model> openvino_ir_model(const std::string&, std::unique_ptr<Model>, const OpenVinoSettings&) {
  require_openvino("--compile:backend openvino");
  return nullptr;
}
std::unique_ptr<Model> recompile_openvino(Model&, const OpenVinoSettings&) { return nullptr; }

#else

namespace {

// An ONNX file is a protobuf whose text a 2 GiB limit bounds (bigger models keep their weights outside); an IR's
// .xml is its graph alone. Anything larger is not such a file.
constexpr uintmax_t kMaxOnnxBytes = uintmax_t{2} << 30;
constexpr uintmax_t kMaxXmlBytes = uintmax_t{256} << 20;

// OpenVINO's messages stack where each layer threw ("Exception from src/...:", "Check '...' failed at ...:")
// above what went wrong: the lines that say what, joined into one.
std::string ov_cause(const std::exception& e) {
  std::istringstream lines(e.what());
  std::string line, out;
  while (std::getline(lines, line)) {
    if (line.empty() || starts_with(line, "Exception from ") || starts_with(line, "Check '")) continue;
    out += (out.empty() ? "" : "; ") + line;
  }
  return escape_controls(out.empty() ? std::string(e.what()) : out);
}

ov::Core& core() {
  static ov::Core instance;
  return instance;
}

std::string kind_of(const std::string& path) {
  return fs::path(path).extension() == ".onnx" ? "an ONNX file" : "an OpenVINO IR (.xml with its .bin)";
}

// The file through its own frontend only: OpenVINO's Core, asked to read a file it cannot place, tries every
// frontend, and TensorFlow's then writes its parse errors to stderr.
std::shared_ptr<ov::Model> read_file(const std::string& path) {
  refuse_special_file(path);
  std::error_code error;
  if (!fs::is_regular_file(path, error))
    throw usage_error(fmt::format("--model_name {}: not a file; give {}", path, kind_of(path)));
  const bool onnx = fs::path(path).extension() == ".onnx";
  const uintmax_t size = fs::file_size(path, error);
  if (!error && size == 0) throw usage_error(fmt::format("--model_name {}: an empty file, not {}", path, kind_of(path)));
  if (!error && size > (onnx ? kMaxOnnxBytes : kMaxXmlBytes))
    throw usage_error(fmt::format("--model_name {}: {} bytes is larger than {} can be", path, size, kind_of(path)));
  if (!onnx && !fs::is_regular_file(fs::path(path).replace_extension(".bin"), error))
    throw usage_error(fmt::format("--model_name {}: the IR's weights {} are missing; keep the .bin beside the .xml",
                                  path, fs::path(path).replace_extension(".bin").string()));
  std::shared_ptr<ov::Model> model;
  try {
    run_guarding_crashes([&] {
      ov::frontend::FrontEndManager manager;
      ov::frontend::FrontEnd::Ptr frontend = manager.load_by_framework(onnx ? "onnx" : "ir");
      model = frontend->convert(frontend->load(path));
    }, "--model_name " + path, "the file is damaged; write it again");
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw runtime_error(fmt::format("--model_name {}: cannot read as {}: {}", path, kind_of(path), ov_cause(e)));
  }
  return model;
}

// The names the driver feeds (model_input_names()) against the model's own.
std::vector<std::string> fed_names(const ov::Model& model, const std::string& path) {
  const std::vector<std::string> known = model_input_names();
  std::vector<std::string> fed;
  for (const ov::Output<const ov::Node>& input : model.inputs()) {
    std::string name;
    for (const std::string& n : input.get_names())
      if (std::find(known.begin(), known.end(), n) != known.end()) name = n;
    if (name.empty())
      throw usage_error(fmt::format("--model_name {}: input '{}' is none of {}: the driver feeds those only", path,
                                    escape_controls(input.get_names().empty() ? std::string("?") : input.get_any_name()),
                                    fmt::join(known, ", ")));
    const ov::element::Type type = input.get_element_type();
    if (type != ov::element::i64 && type != ov::element::i32)
      throw usage_error(fmt::format("--model_name {}: input {} is {}; the driver feeds token ids as int64 (int32 "
                                    "converted inside the model), which a narrower type would wrap",
                                    path, name, type.get_type_name()));
    if (input.get_partial_shape().rank() != ov::Dimension(2))
      throw usage_error(fmt::format("--model_name {}: input {} is {}, not [batch, input]", path, name,
                                    input.get_partial_shape().to_string()));
    fed.push_back(name);
  }
  if (fed.empty() || std::find(fed.begin(), fed.end(), "input_ids") == fed.end())
    throw usage_error(fmt::format("--model_name {}: the model takes no input_ids", path));
  if (model.outputs().empty()) throw usage_error(fmt::format("--model_name {}: the model has no outputs", path));
  return fed;
}

// The names of the outputs, in order: a name the driver knows the meaning of (saved_outputs.hpp), else any of
// the port's names, else output_<i>.
std::vector<std::string> output_names(const ov::Model& model) {
  const std::vector<std::string> roles = {"last_hidden_state", "pooler_output", "token_embeddings",
                                          "sentence_embedding", "hidden_states"};
  std::vector<std::string> names;
  for (size_t i = 0; i < model.outputs().size(); ++i) {
    const auto& all = model.outputs()[i].get_names();
    std::string name = all.empty() ? fmt::format("output_{}", i) : *all.begin();
    for (const std::string& r : roles)
      if (all.count(r)) name = r;
    names.push_back(escape_controls(name));
  }
  return names;
}

// Every input fed as int64, as the driver's batches are: an int32 input converts inside the model.
std::shared_ptr<ov::Model> with_int64_inputs(std::shared_ptr<ov::Model> model) {
  ov::preprocess::PrePostProcessor steps(model);
  bool any = false;
  for (size_t i = 0; i < model->inputs().size(); ++i)
    if (model->inputs()[i].get_element_type() != ov::element::i64) {
      steps.input(i).tensor().set_element_type(ov::element::i64);
      any = true;
    }
  return any ? steps.build() : model;
}

std::optional<ShapeRange> shape_range(const ov::Model& model) {
  const ov::PartialShape shape = model.inputs().front().get_partial_shape();
  const auto bound = [](const ov::Dimension& d) {
    return d.get_max_length() < 0 ? std::numeric_limits<int64_t>::max() : d.get_max_length();
  };
  if (shape[0].get_max_length() < 0 && shape[1].get_max_length() < 0 && shape[0].get_min_length() <= 1 &&
      shape[1].get_min_length() <= 1)
    return std::nullopt;
  return ShapeRange{std::max<int64_t>(1, shape[0].get_min_length()), bound(shape[0]),
                    std::max<int64_t>(1, shape[1].get_min_length()), bound(shape[1])};
}

int64_t constant_count(const ov::Model& model) {
  int64_t count = 0;
  for (const auto& op : model.get_ordered_ops())
    if (auto constant = std::dynamic_pointer_cast<ov::op::v0::Constant>(op))
      if (constant->get_element_type().is_real()) count += static_cast<int64_t>(ov::shape_size(constant->get_shape()));
  return count;
}

std::string dtype_of(const ov::element::Type& type) {
  if (type == ov::element::f32) return "float32";
  if (type == ov::element::bf16) return "bfloat16";
  if (type == ov::element::f16) return "float16";
  return type.get_type_name();
}

c10::ScalarType torch_type_of(const ov::element::Type& type) {
  if (type == ov::element::f32) return torch::kFloat;
  if (type == ov::element::bf16) return torch::kBFloat16;
  if (type == ov::element::f16) return torch::kHalf;
  if (type == ov::element::i64) return torch::kLong;
  if (type == ov::element::i32) return torch::kInt;
  throw runtime_error("OpenVINO returned an output of element type " + type.get_type_name() +
                      ", which the driver does not read");
}

// The properties MODEL names, read back from the compiled model: what ran, whoever chose it.
const std::vector<std::string>& shown_properties() {
  static const std::vector<std::string> names = {
      "INFERENCE_NUM_THREADS", "NUM_STREAMS", "PERFORMANCE_HINT", "INFERENCE_PRECISION_HINT", "EXECUTION_MODE_HINT",
      "ENABLE_CPU_PINNING", "ENABLE_HYPER_THREADING", "SCHEDULING_CORE_TYPE"};
  return names;
}

// A failure of compile_model: the user's own property, when OpenVINO's message names one, is a usage Error.
[[noreturn]] void compile_failed(const std::exception& e, const std::string& path, const OpenVinoSettings& s) {
  const std::string cause = ov_cause(e);
  for (const auto& [key, value] : s.properties)
    if (cause.find(key) != std::string::npos)
      throw usage_error(fmt::format("--compile:options:{} {}: OpenVINO refuses it: {}", key, escape_controls(value), cause));
  throw runtime_error(fmt::format("{}: OpenVINO cannot compile it for the CPU: {}", path, cause));
}

ov::CompiledModel compile(const std::shared_ptr<ov::Model>& model, const OpenVinoSettings& s, const std::string& path) {
  ov::AnyMap properties{{ov::inference_num_threads.name(), s.threads},
                        {ov::num_streams.name(), ov::streams::Num(1)},
                        {ov::hint::performance_mode.name(), ov::hint::PerformanceMode::LATENCY}};
  if (!s.precision.empty()) properties[ov::hint::inference_precision.name()] = ov::element::Type(s.precision);
  for (const auto& [key, value] : s.properties) properties[key] = value;
  try {
    ov::CompiledModel compiled;
    run_guarding_crashes([&] { compiled = core().compile_model(model, "CPU", properties); }, path,
                         "OpenVINO crashed compiling it; the file may be damaged");
    return compiled;
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    compile_failed(e, path, s);
  }
}

// The precision hint that keeps the model's own math: its first floating output's element type.
std::string own_precision(const ov::Model& model) {
  for (const auto& output : model.outputs()) {
    const ov::element::Type t = output.get_element_type();
    if (t == ov::element::f32) return "f32";
    if (t == ov::element::bf16) return "bf16";
    if (t == ov::element::f16) return "f16";
  }
  return "";
}

class OpenVinoModel : public Model {
 public:
  OpenVinoModel(std::string path, std::string source, std::shared_ptr<ov::Model> model, OpenVinoSettings settings,
                ModelFacts base, std::unique_ptr<Model> eager)
      : path_(std::move(path)), source_(std::move(source)), model_(std::move(model)), settings_(std::move(settings)),
        base_(std::move(base)), eager_(std::move(eager)) {
    fed_ = fed_names(*model_, path_);
    outputs_ = output_names(*model_);
    shapes_ = shape_range(*model_);
    if (base_.parameter_count == 0) base_.parameter_count = constant_count(*model_);
    compiled_ = compile(with_int64_inputs(model_), settings_, path_);
    request_ = compiled_.create_infer_request();
  }

  ModelFacts facts() const override {
    ModelFacts f = base_;
    f.fed_inputs = fed_;
    f.output_names = outputs_;
    f.dtype_name = dtype_of(compiled_.get_property(ov::hint::inference_precision));
    f.runs_unpadded = false;  // OpenVINO runs the padded batch it is given
    f.runtime = "openvino";
    // The option is off (the backend refuses it): whatever OpenVINO fuses is its own. A file does not say.
    if (eager_) f.gelu_epilogue = false;
    else f.gelu_epilogue.reset();
    f.shapes = shapes_;
    f.shape_per_combination = false;
    f.shapes_by = shapes_ ? "the OpenVINO model " + path_ : "";
    f.description = description(f);
    return f;
  }

  std::optional<CompileFacts> prepare(int64_t batch, int64_t input) override {
    if (shapes_ && (batch < shapes_->batch_min || batch > shapes_->batch_max || input < shapes_->input_min ||
                    input > shapes_->input_max))
      throw usage_error(fmt::format("batch {} x input {} is outside the shapes the OpenVINO model {} takes", batch,
                                    input, path_));
    return std::nullopt;
  }

  const Batch& stage(const Batch& batch) override {
    bind(batch);
    return batch;
  }

  torch::IValue forward(const Batch& batch) override {
    if (batch.input_ids.data_ptr() != bound_ids_ || batch.input_ids.sizes() != bound_sizes_) bind(batch);
    try {
      request_.infer();
    } catch (const std::exception& e) {  // a shape the model's own operations refuse: its cause, not where it threw
      throw runtime_error(fmt::format("OpenVINO cannot run batch {} x input {} of {}: {}", batch.input_ids.size(0),
                                      batch.input_ids.size(1), path_, excerpt(ov_cause(e), 400)));
    }
    std::vector<c10::IValue> out;
    for (size_t i = 0; i < outputs_.size(); ++i) out.push_back(as_tensor(request_.get_output_tensor(i)));
    if (out.size() == 1) return out.front();
    return c10::ivalue::Tuple::create(std::move(out));
  }

  void eval() override {}

  const std::shared_ptr<ov::Model>& ov_model() const { return model_; }
  const std::string& path() const { return path_; }
  const std::string& source() const { return source_; }
  const ModelFacts& base() const { return base_; }

 private:
  // The batch copied into the request's input tensors, which stay the same from rep to rep: handed a new
  // tensor, OpenVINO prepares the inference again on its next call (seen as 0.2-0.3 ms a call at input 16,
  // batch 1 against benchmark_app, which reuses its tensors). New ones only when the shape changes.
  void bind(const Batch& batch) {
    const std::vector<int64_t> sizes = batch.input_ids.sizes().vec();
    if (sizes != bound_sizes_) {
      held_.clear();
      for (size_t i = 0; i < fed_.size(); ++i) {
        held_.push_back(torch::empty(sizes, torch::kLong));
        request_.set_tensor(compiled_.input(i),
                            ov::Tensor(ov::element::i64, ov::Shape(sizes.begin(), sizes.end()), held_.back().data_ptr<int64_t>()));
      }
      bound_sizes_ = sizes;
    }
    for (size_t i = 0; i < fed_.size(); ++i)
      held_[i].copy_(fed_[i] == "input_ids" ? batch.input_ids
                     : fed_[i] == "attention_mask" ? batch.attention_mask : batch.token_type_ids);
    bound_ids_ = batch.input_ids.data_ptr();
  }

  // An output as a tensor over OpenVINO's memory, which the tensor keeps alive (its deleter holds a reference).
  static torch::Tensor as_tensor(const ov::Tensor& t) {
    const ov::Shape shape = t.get_shape();
    const std::vector<int64_t> sizes(shape.begin(), shape.end());
    return torch::from_blob(const_cast<void*>(t.data()), sizes, [keep = t](void*) mutable { keep = ov::Tensor(); },
                            torch::TensorOptions().dtype(torch_type_of(t.get_element_type())));
  }

  std::string description(const ModelFacts& f) const {
    std::string text = base_.description.empty() ? "" : base_.description + "\n";
    text += fmt::format("OpenVINO {} on the CPU: {}: inputs {}; outputs {}; {} parameters", openvino_version(), source_,
                        fmt::join(f.fed_inputs, ", "), fmt::join(f.output_names, ", "), f.parameter_count);
    if (shapes_)
      text += fmt::format("; shapes batch {}-{} x input {}-{}", shapes_->batch_min, shapes_->batch_max,
                          shapes_->input_min, shapes_->input_max);
    std::vector<std::string> shown;
    for (const std::string& name : shown_properties()) {
      std::string value;
      try {
        value = compiled_.get_property(name).as<std::string>();
      } catch (const std::exception&) {
        continue;  // not one this OpenVINO's CPU plugin reads back
      }
      shown.push_back(name + " " + escape_controls(value));
    }
    for (const auto& [key, value] : settings_.properties)
      if (std::find(shown_properties().begin(), shown_properties().end(), key) == shown_properties().end())
        shown.push_back(key + " " + escape_controls(value));
    text += fmt::format("\n  properties in effect: {}", fmt::join(shown, ", "));
    std::vector<std::string> own;
    for (const auto& [key, value] : settings_.properties) own.push_back(key);
    text += fmt::format("\n  set by the driver: threads {} (LibTorch's intra-op count), 1 stream, the latency hint, {}",
                        settings_.threads,
                        settings_.precision.empty() ? std::string("OpenVINO's own precision")
                                                    : "precision " + settings_.precision + " (the model's dtype)");
    if (!own.empty()) text += fmt::format("; --compile:options: {} (theirs win)", fmt::join(own, ", "));
    return text;
  }

  std::string path_, source_;
  std::shared_ptr<ov::Model> model_;
  OpenVinoSettings settings_;
  ModelFacts base_;
  std::unique_ptr<Model> eager_;  // the backend's eager model, whose facts base_ holds; kept for its lifetime only
  std::vector<std::string> fed_, outputs_;
  std::optional<ShapeRange> shapes_;
  ov::CompiledModel compiled_;
  ov::InferRequest request_;
  std::vector<torch::Tensor> held_;
  const void* bound_ids_ = nullptr;
  std::vector<int64_t> bound_sizes_;
};

// The vocabulary beside the file, or one folder up (a repository's onnx/ and openvino/ folders).
TokenFacts file_tokens(const std::string& path, const ModelOptions& options) {
  const fs::path file(path);
  const fs::path up = file.parent_path().parent_path();
  std::error_code error;
  if (!fs::exists(file.parent_path() / "config.json", error) && !up.empty() && fs::exists(up / "config.json", error))
    return token_facts_beside((up / file.filename()).string(), options);
  return token_facts_beside(path, options);
}

}  // namespace

void check_openvino_properties(const std::vector<std::pair<std::string, std::string>>& properties) {
  if (properties.empty()) return;
  std::vector<std::string> writable;
  for (const ov::PropertyName& name : core().get_property("CPU", ov::supported_properties))
    if (name.is_mutable()) writable.push_back(name);
  for (const auto& [key, value] : properties)
    if (std::find(writable.begin(), writable.end(), key) == writable.end())
      throw usage_error(fmt::format("--compile:options:{}: not a property OpenVINO's CPU plugin takes{}", escape_controls(key),
                                    did_you_mean(closest_option(key, writable))));
  // The values, each judged by OpenVINO itself on a one-operation model (milliseconds), before a conversion that
  // takes seconds; one at a time, so that the refusal names the property whatever OpenVINO's words.
  const auto input = std::make_shared<ov::op::v0::Parameter>(ov::element::f32, ov::Shape{1});
  const auto relu = std::make_shared<ov::op::v0::Relu>(input);
  const auto probe = std::make_shared<ov::Model>(ov::OutputVector{relu}, ov::ParameterVector{input});
  for (const auto& [key, value] : properties) {
    if (value.empty())
      throw usage_error(fmt::format("--compile:options:{}: an empty value; give one the property takes", key));
    try {
      core().compile_model(probe, "CPU", ov::AnyMap{{key, value}});
    } catch (const std::exception& e) {
      throw usage_error(fmt::format("--compile:options:{} {}: OpenVINO refuses it: {}", key, excerpt(value),
                                    excerpt(ov_cause(e), 400)));
    }
  }
}

std::unique_ptr<Model> load_openvino_model(const LoadRequest& request) {
  const auto& o = request.options;
  if (const auto key = model_key_not_taken(o, ModelFile::openvino))
    throw usage_error(fmt::format("--model:{}: {} is {}, fixed when it was written; write it again with what you "
                                  "need{}",
                                  *key, request.path, kind_of(request.path),
                                  *key == "torch_dtype" ? " (or run it in another precision: --compile --compile:backend "
                                                          "openvino --compile:options:INFERENCE_PRECISION_HINT bf16)"
                                                        : ""));
  if (!request.device.is_cpu())
    throw usage_error(fmt::format("--model_name {}: ONNX and IR files run through OpenVINO on --platform cpu only, not "
                                  "{}; give a Hugging Face folder or a TorchScript file there",
                                  request.path, request.device.str()));
  std::shared_ptr<ov::Model> model = read_file(request.path);
  ModelFacts base;
  base.tokens = file_tokens(request.path, o);
  OpenVinoSettings settings;
  settings.threads = at::get_num_threads();
  settings.precision = own_precision(*model);
  const std::string source = (fs::path(request.path).extension() == ".onnx" ? "ONNX file " : "IR ") + request.path;
  return std::make_unique<OpenVinoModel>(request.path, source, model, settings, std::move(base), nullptr);
}

std::unique_ptr<Model> openvino_ir_model(const std::string& xml, std::unique_ptr<Model> eager,
                                         const OpenVinoSettings& settings) {
  ModelFacts base = eager->facts();
  std::shared_ptr<ov::Model> model = read_file(xml);
  return std::make_unique<OpenVinoModel>(xml, "IR " + xml + " (converted by OpenVINO from the model above)", model,
                                         settings, std::move(base), std::move(eager));
}

std::unique_ptr<Model> recompile_openvino(Model& model, const OpenVinoSettings& settings) {
  auto* loaded = dynamic_cast<OpenVinoModel*>(&model);
  if (!loaded) return nullptr;
  OpenVinoSettings s = settings;
  if (s.precision.empty()) s.precision = own_precision(*loaded->ov_model());
  ModelFacts base = loaded->base();
  base.description.clear();
  return std::make_unique<OpenVinoModel>(loaded->path(), loaded->source(), loaded->ov_model(), s, std::move(base),
                                         nullptr);
}

#endif

}  // namespace fmwork
