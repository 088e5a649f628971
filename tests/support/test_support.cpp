#include "support/test_support.hpp"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

extern char** environ;

namespace fmwork::test_support {

const std::string& test_cache_dir() {
  // Never destroyed before the process ends; removed with it (TempDir's destructor at exit).
  static const TempDir dir("fmwork-test-cache");
  return dir.path();
}

pid_t start_in_background(const std::vector<std::string>& argv, const std::string& out, const std::string& err) {
  const std::string cache = test_cache_dir();  // made here: the child only names it
  const pid_t pid = fork();
  if (pid == 0) {
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    setenv("FMWORK_CACHE", cache.c_str(), 1);
    const int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0) _exit(126);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  return pid;
}

CommandResult make_test_encoder(const std::string& path) {
  return run_command({make_model_path(), "--out", path, "--layers", "2", "--hidden", "32", "--heads", "4",
                      "--intermediate", "64", "--vocab", "100", "--max_positions", "64"});
}

TempDir* EncoderSuite::dir_ = nullptr;
std::string EncoderSuite::model_;

void EncoderSuite::SetUpTestSuite() {
  dir_ = new TempDir();
  model_ = dir_->file("encoder/model.pt");
  const CommandResult r = make_test_encoder(model_);
  ASSERT_EQ(r.exit_code, 0) << r.err;
}

void EncoderSuite::TearDownTestSuite() {
  delete dir_;
  dir_ = nullptr;
}

CommandResult EncoderSuite::driver(std::vector<std::string> args) {
  args.insert(args.begin(), driver_path());
  return run_command(args);
}

void write_file(const std::string& path, const std::string& contents) {
  std::ofstream f(path, std::ios::binary);
  f << contents;
  if (!f) throw std::runtime_error("cannot write " + path);
}

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

std::string make_small_torchscript(const TempDir& dir, const std::string& name, std::vector<std::string> extra) {
  const std::string path = dir.file(name + "/model.pt");
  std::vector<std::string> argv = {make_model_path(), "--out", path, "--layers", "1", "--hidden", "16",
                                   "--heads", "2", "--intermediate", "32", "--vocab", "50"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  const CommandResult r = run_command(argv);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return path;
}

}  // namespace fmwork::test_support

// ---- tiny BERT-family models, shared by the tests of encoders/bert and loaders/hf_model --------------------

#include <gtest/gtest.h>

#include <cmath>

#include <ATen/CPUGeneratorImpl.h>

#include "fmwork/hf/config.hpp"
#include "fmwork/encoders/bert.hpp"
#include "fmwork/encoders/families.hpp"
#include "fmwork/loaders/hf_model.hpp"
#include "fmwork/model/safetensors.hpp"

namespace fmwork::test_support::encoders {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

at::Tensor ln(const at::Tensor& x, const at::Tensor& g, const at::Tensor& b, double eps) {
  auto mean = x.mean(-1, true);
  auto var = (x - mean).pow(2).mean(-1, true);
  return (x - mean) / (var + eps).sqrt() * g + b;
}

at::Tensor act(const at::Tensor& x, const std::string& name) {
  if (name == "gelu") return 0.5 * x * (1.0 + at::erf(x / std::sqrt(2.0)));
  if (name == "gelu_new" || name == "gelu_pytorch_tanh")
    return 0.5 * x * (1.0 + at::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x.pow(3))));
  if (name == "relu") return x.clamp_min(0);
  if (name == "silu") return x / (1.0 + at::exp(-x));
  throw std::runtime_error("reference: no activation " + name);
}

}  // namespace

json tiny_modernbert_config() {
  return json::parse(R"({"model_type": "modernbert", "hidden_size": 24, "num_hidden_layers": 3,
    "num_attention_heads": 2, "intermediate_size": 20, "vocab_size": 99, "max_position_embeddings": 16,
    "global_attn_every_n_layers": 2, "local_attention": 4, "global_rope_theta": 900.0, "local_rope_theta": 50.0,
    "pad_token_id": 0, "norm_bias": true, "mlp_bias": true})");
}

json tiny_qwen3_config() {
  return json::parse(R"({"model_type": "qwen3", "hidden_size": 16, "num_hidden_layers": 2,
    "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 6, "intermediate_size": 20, "vocab_size": 99,
    "max_position_embeddings": 16, "rope_theta": 300.0, "pad_token_id": 0, "use_sliding_window": true,
    "sliding_window": 3, "max_window_layers": 1})");
}

json tiny_config(const std::string& model_type) {
  if (model_type == "modernbert") return tiny_modernbert_config();
  if (model_type == "qwen3") return tiny_qwen3_config();
  if (model_type != "bert" && model_type != "roberta" && model_type != "xlm-roberta" && model_type != "distilbert")
    throw std::runtime_error("tiny_config: no tiny config.json of model_type " + model_type +
                             " (a new row of the family table adds one here)");
  if (model_type == "distilbert")
    return {{"model_type", "distilbert"}, {"architectures", {"DistilBertModel"}}, {"dim", 32}, {"n_layers", 2},
            {"n_heads", 4}, {"hidden_dim", 37}, {"activation", "gelu"}, {"vocab_size", 99},
            {"max_position_embeddings", 40}, {"pad_token_id", 0}, {"sinusoidal_pos_embds", false}};
  json j = {{"model_type", model_type}, {"hidden_size", 32}, {"num_hidden_layers", 2}, {"num_attention_heads", 4},
            {"intermediate_size", 37}, {"hidden_act", "gelu"}, {"layer_norm_eps", 1e-12}, {"vocab_size", 99},
            {"max_position_embeddings", 40}, {"type_vocab_size", 2}, {"pad_token_id", 0},
            {"position_embedding_type", "absolute"}};
  if (model_type != "bert") {
    j["max_position_embeddings"] = 42;
    j["type_vocab_size"] = 1;
    j["pad_token_id"] = 1;
    j["layer_norm_eps"] = 1e-5;
  }
  return j;
}

Weights tiny_weights(const json& config, bool pooler, uint64_t seed) {
  auto c = fmwork::hf::parse_config(config, "config.json");
  at::Generator gen = at::detail::createCPUGenerator(seed);
  Weights w;
  for (const auto& [name, shape] : fmwork::hf::expected_weights(c, pooler)) {
    auto t = at::empty(shape).normal_(0.0, 0.3, gen);
    if (name.find("LayerNorm.weight") != std::string::npos || name.find("layer_norm.weight") != std::string::npos)
      t = t.mul(0.2).add(1.0);
    w[name] = t;
  }
  return w;
}

void write_folder(const std::string& dir, const json& config, const Weights& w, const std::string& prefix,
                  bool sorted, const Weights& extra) {
  fs::create_directories(dir);
  fmwork::test_support::write_file(dir + "/config.json", config.dump(2));
  std::vector<std::pair<std::string, at::Tensor>> list;
  if (sorted) {
    for (const auto& [n, t] : w) list.emplace_back(prefix + n, t);
  } else {
    auto c = fmwork::hf::parse_config(config, "config.json");
    for (const auto& [n, shape] : fmwork::hf::expected_weights(c, w.count("pooler.dense.weight") > 0))
      list.emplace_back(prefix + n, w.at(n));
  }
  for (const auto& [n, t] : extra) list.emplace_back(n, t);
  fmwork::hf::write_safetensors(dir + "/model.safetensors", list);
}

// ---- the independent reference (float64, per head, written from the papers / HF modules) ------------------

RefOut reference(const json& cfg, const Weights& w64, const at::Tensor& ids, const at::Tensor& mask,
                 const at::Tensor& types) {
  const std::string type = cfg["model_type"];
  const bool distil = type == "distilbert", roberta = type == "roberta" || type == "xlm-roberta";
  const int64_t H = distil ? cfg["dim"].get<int64_t>() : cfg["hidden_size"].get<int64_t>();
  const int64_t heads = distil ? cfg["n_heads"].get<int64_t>() : cfg["num_attention_heads"].get<int64_t>();
  const int64_t layers = distil ? cfg["n_layers"].get<int64_t>() : cfg["num_hidden_layers"].get<int64_t>();
  const std::string activation = distil ? cfg["activation"].get<std::string>() : cfg["hidden_act"].get<std::string>();
  const double eps = distil ? 1e-12 : cfg["layer_norm_eps"].get<double>();
  const int64_t pad = cfg["pad_token_id"], d = H / heads, B = ids.size(0), T = ids.size(1);
  auto W = [&](const std::string& n) { return w64.at(n); };

  // Positions, token by token.
  auto pos = at::zeros({B, T}, at::kLong);
  for (int64_t b = 0; b < B; ++b) {
    int64_t count = 0;
    for (int64_t t = 0; t < T; ++t) {
      if (roberta) {
        bool real = ids[b][t].item<int64_t>() != pad;
        count += real;
        pos[b][t] = real ? pad + count : pad;
      } else {
        pos[b][t] = t;
      }
    }
  }
  auto x = W("embeddings.word_embeddings.weight").index_select(0, ids.flatten()).view({B, T, H}) +
           W("embeddings.position_embeddings.weight").index_select(0, pos.flatten()).view({B, T, H});
  if (!distil) x = x + W("embeddings.token_type_embeddings.weight").index_select(0, types.flatten()).view({B, T, H});
  x = ln(x, W("embeddings.LayerNorm.weight"), W("embeddings.LayerNorm.bias"), eps);
  auto keep = mask.to(at::kDouble).view({B, 1, T});  // 1 attend, 0 masked
  for (int64_t l = 0; l < layers; ++l) {
    const std::string p = (distil ? "transformer.layer." : "encoder.layer.") + std::to_string(l) + ".";
    auto lin = [&](const at::Tensor& in, const std::string& n) { return at::matmul(in, W(p + n + ".weight").t()) + W(p + n + ".bias"); };
    const std::string qn = distil ? "attention.q_lin" : "attention.self.query";
    const std::string kn = distil ? "attention.k_lin" : "attention.self.key";
    const std::string vn = distil ? "attention.v_lin" : "attention.self.value";
    auto q = lin(x, qn), k = lin(x, kn), v = lin(x, vn);
    std::vector<at::Tensor> outs;
    for (int64_t h = 0; h < heads; ++h) {
      auto qh = q.narrow(2, h * d, d), kh = k.narrow(2, h * d, d), vh = v.narrow(2, h * d, d);
      auto s = at::matmul(qh, kh.transpose(1, 2)) / std::sqrt(static_cast<double>(d));  // [B, T, T]
      auto e = at::exp(s - std::get<0>(s.max(-1, true))) * keep;                         // masked keys weigh 0
      outs.push_back(at::matmul(e / e.sum(-1, true), vh));
    }
    auto ctx = at::cat(outs, 2);
    auto a = lin(ctx, distil ? "attention.out_lin" : "attention.output.dense");
    x = distil ? ln(a + x, W(p + "sa_layer_norm.weight"), W(p + "sa_layer_norm.bias"), eps)
               : ln(a + x, W(p + "attention.output.LayerNorm.weight"), W(p + "attention.output.LayerNorm.bias"), eps);
    auto f = lin(act(lin(x, distil ? "ffn.lin1" : "intermediate.dense"), activation), distil ? "ffn.lin2" : "output.dense");
    x = distil ? ln(f + x, W(p + "output_layer_norm.weight"), W(p + "output_layer_norm.bias"), eps)
               : ln(f + x, W(p + "output.LayerNorm.weight"), W(p + "output.LayerNorm.bias"), eps);
  }
  RefOut out{x, {}};
  if (w64.count("pooler.dense.weight"))
    out.pooled = at::tanh(at::matmul(x.select(1, 0), W("pooler.dense.weight").t()) + W("pooler.dense.bias"));
  return out;
}

Weights to_double(const Weights& w) {
  Weights out;
  for (const auto& [n, t] : w) out[n] = t.to(at::kDouble);
  return out;
}

std::unique_ptr<fmwork::Model> load(const std::string& dir, const std::string& cls, ModelOptions opt) {
  LoadRequest r;
  r.path = dir;
  r.model_class = cls;
  r.options = opt;
  return fmwork::load_hf_model(r);
}

std::pair<at::Tensor, at::Tensor> outputs(const c10::IValue& v) {
  if (v.isTensor()) return {v.toTensor(), at::Tensor()};
  auto t = v.toTuple();
  return {t->elements().at(0).toTensor(), t->elements().at(1).toTensor()};
}

double max_diff(const at::Tensor& a, const at::Tensor& b) {
  return (a.to(at::kDouble) - b.to(at::kDouble)).abs().max().item<double>();
}

Inputs tiny_inputs(int64_t pad, bool with_types) {
  Inputs in;
  in.ids = at::tensor(std::vector<int64_t>{5, 17, 33, 8, 90, 41, 2, 77, 13, 6, 61, 28, 72, 3, 50, pad, pad, pad}).view({2, 9});
  in.mask = at::ones({2, 9}, at::kLong);
  in.mask[1].narrow(0, 6, 3).zero_();
  in.types = at::zeros({2, 9}, at::kLong);
  if (with_types) in.types[0].narrow(0, 4, 5).fill_(1);
  return in;
}

std::string error_of(const std::function<void()>& f, ErrorKind kind) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    std::string m = e.what();
    EXPECT_EQ(m.find('\n'), std::string::npos) << "one line: " << m;
    return m;
  }
  ADD_FAILURE() << "no error";
  return "";
}

}  // namespace fmwork::test_support::encoders
