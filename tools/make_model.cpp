// make_model: writes the models the demo and the tests run. A real (small) transformer encoder as a
// TorchScript archive, built in C++ with Module::define and saved with Module::save, and a config.json
// beside it with the vocabulary facts the driver's input generator reads. Also special-purpose models for
// tests and benchmarks (an identity model for the timing floor, models with other signatures/outputs).
#include <torch/script.h>
#include <torch/torch.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "fmwork/base/error.hpp"
#include "fmwork/loaders/hf_model.hpp"

namespace {

struct EncoderShape {
  int64_t vocab = 1000, hidden = 64, layers = 2, heads = 4, intermediate = 128, max_positions = 512;
  int64_t type_vocab = 2;
};

// forward's parameter list for the inputs the model declares, in the order given.
std::string signature(const std::vector<std::string>& inputs) {
  std::string s = "self";
  for (const auto& name : inputs) s += ", " + name;
  return s;
}

bool has(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// The source of forward(): embeddings + post-LN BERT layers, unrolled (TorchScript's define cannot index
// module lists), returning the last hidden state wrapped as `output` asks.
std::string encoder_source(const EncoderShape& s, const std::vector<std::string>& inputs, const std::string& output) {
  const int64_t head_dim = s.hidden / s.heads;
  std::string src = fmt::format("def forward({}):\n", signature(inputs));
  src += "    B = input_ids.size(0)\n    L = input_ids.size(1)\n";
  src += "    x = torch.embedding(self.word_embeddings, input_ids)\n";
  src += "    x = x + torch.embedding(self.position_embeddings, self.position_ids[:L]).unsqueeze(0)\n";
  if (has(inputs, "token_type_ids"))
    src += "    x = x + torch.embedding(self.token_type_embeddings, token_type_ids)\n";
  src += fmt::format("    x = torch.layer_norm(x, [{}], self.emb_ln_w, self.emb_ln_b, 1e-12)\n", s.hidden);
  if (has(inputs, "attention_mask"))
    src += "    mask = (1.0 - attention_mask.to(x.dtype))[:, None, None, :] * -10000.0\n";
  for (int64_t l = 0; l < s.layers; ++l) {
    auto p = fmt::format("self.l{}_", l);
    src += fmt::format("    qkv = torch.linear(x, {0}qkv_w, {0}qkv_b).view(B, L, 3, {1}, {2}).permute(2, 0, 3, 1, 4)\n",
                       p, s.heads, head_dim);
    src += fmt::format("    scores = torch.matmul(qkv[0], qkv[1].transpose(-1, -2)) * {}\n",
                       1.0 / std::sqrt(static_cast<double>(head_dim)));
    if (has(inputs, "attention_mask")) src += "    scores = scores + mask\n";
    src += fmt::format("    ctx = torch.matmul(torch.softmax(scores, -1), qkv[2]).transpose(1, 2).reshape(B, L, {})\n",
                       s.hidden);
    src += fmt::format("    x = torch.layer_norm(x + torch.linear(ctx, {0}out_w, {0}out_b), [{1}], {0}ln1_w, {0}ln1_b, 1e-12)\n",
                       p, s.hidden);
    src += fmt::format("    h = torch.gelu(torch.linear(x, {0}up_w, {0}up_b))\n", p);
    src += fmt::format("    x = torch.layer_norm(x + torch.linear(h, {0}down_w, {0}down_b), [{1}], {0}ln2_w, {0}ln2_b, 1e-12)\n",
                       p, s.hidden);
  }
  if (output == "tensor") src += "    return x\n";
  else if (output == "tuple") src += "    return x, x[:, 0]\n";
  else if (output == "list") src += "    return [x, x[:, 0]]\n";
  else if (output == "dict") src += "    return {'last_hidden_state': x, 'pooler_output': x[:, 0]}\n";
  else throw fmwork::usage_error("--output must be tensor, tuple, list or dict; got '" + output + "'");
  return src;
}

void add_encoder_weights(torch::jit::Module& m, const EncoderShape& s) {
  auto normal = [](std::vector<int64_t> shape) { return torch::randn(shape) * 0.02; };
  auto param = [&](const std::string& name, torch::Tensor t) { m.register_parameter(name, t, false); };
  param("word_embeddings", normal({s.vocab, s.hidden}));
  param("position_embeddings", normal({s.max_positions, s.hidden}));
  param("token_type_embeddings", normal({s.type_vocab, s.hidden}));
  param("emb_ln_w", torch::ones({s.hidden}));
  param("emb_ln_b", torch::zeros({s.hidden}));
  m.register_buffer("position_ids", torch::arange(s.max_positions, torch::kLong));
  for (int64_t l = 0; l < s.layers; ++l) {
    auto p = fmt::format("l{}_", l);
    param(p + "qkv_w", normal({3 * s.hidden, s.hidden}));
    param(p + "qkv_b", torch::zeros({3 * s.hidden}));
    param(p + "out_w", normal({s.hidden, s.hidden}));
    param(p + "out_b", torch::zeros({s.hidden}));
    param(p + "ln1_w", torch::ones({s.hidden}));
    param(p + "ln1_b", torch::zeros({s.hidden}));
    param(p + "up_w", normal({s.intermediate, s.hidden}));
    param(p + "up_b", torch::zeros({s.intermediate}));
    param(p + "down_w", normal({s.hidden, s.intermediate}));
    param(p + "down_b", torch::zeros({s.hidden}));
    param(p + "ln2_w", torch::ones({s.hidden}));
    param(p + "ln2_b", torch::zeros({s.hidden}));
  }
}

// config.json with the facts the driver reads for a TorchScript model: vocabulary size, special ids.
void write_config(const std::string& path, const EncoderShape& s, const std::string& kind) {
  nlohmann::ordered_json config = {
      {"model_type", "bert"},       {"fmwork_kind", kind},          {"vocab_size", s.vocab},
      {"hidden_size", s.hidden},    {"num_hidden_layers", s.layers}, {"num_attention_heads", s.heads},
      {"intermediate_size", s.intermediate}, {"max_position_embeddings", s.max_positions},
      {"type_vocab_size", s.type_vocab}, {"pad_token_id", 0}, {"cls_token_id", 101}, {"sep_token_id", 102}};
  std::ofstream(path) << config.dump(2) << "\n";
}

int run(int argc, char** argv) {
  CLI::App app{"Writes TorchScript models (and a config.json beside them) for the fmwork driver."};
  std::string out, kind = "encoder", output = "tensor", inputs_csv = "input_ids,attention_mask,token_type_ids";
  EncoderShape shape;
  uint64_t seed = 0;
  bool no_config = false;
  std::string hf_config, hf_dtype = "float32";
  app.add_option("--out", out, "path of the .pt file to write (config.json goes beside it)")->required();
  app.add_option("--kind", kind, "encoder | identity (returns input_ids: the driver's timing floor) | "
                                 "unfeedable (forward takes a float and a string)");
  app.add_option("--inputs", inputs_csv, "forward's inputs, in order (names from input_ids, attention_mask, token_type_ids)");
  app.add_option("--output", output, "tensor | tuple | list | dict");
  app.add_option("--vocab", shape.vocab);
  app.add_option("--hidden", shape.hidden);
  app.add_option("--layers", shape.layers);
  app.add_option("--heads", shape.heads);
  app.add_option("--intermediate", shape.intermediate);
  app.add_option("--max_positions", shape.max_positions);
  app.add_option("--seed", seed, "weights are drawn with this seed");
  app.add_flag("--no_config", no_config, "write no config.json (the driver then needs --model:vocab_size@ N)");
  app.add_option("--hf_config", hf_config,
                 "write a Hugging Face folder instead: this config.json + model.safetensors with random weights "
                 "(real size), into the folder --out");
  app.add_option("--hf_dtype", hf_dtype, "with --hf_config: float32, float16 or bfloat16");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  if (!hf_config.empty()) {
    const uint64_t bytes = fmwork::hf::write_random_model_folder(hf_config, out, seed, hf_dtype);
    std::cout << "wrote " << out << " (model.safetensors " << bytes << " bytes)\n";
    return 0;
  }
  if (shape.hidden % shape.heads != 0) throw fmwork::usage_error("--hidden must be a multiple of --heads");

  std::vector<std::string> inputs;
  for (size_t start = 0; start <= inputs_csv.size();) {
    size_t end = inputs_csv.find(',', start);
    if (end == std::string::npos) end = inputs_csv.size();
    inputs.push_back(inputs_csv.substr(start, end - start));
    start = end + 1;
  }
  if (inputs.empty() || inputs[0] != "input_ids") throw fmwork::usage_error("--inputs must start with input_ids");

  torch::manual_seed(seed);
  torch::jit::Module module("FmworkEncoder");
  if (kind == "encoder") {
    add_encoder_weights(module, shape);
    module.define(encoder_source(shape, inputs, output));
  } else if (kind == "identity") {
    module.define(fmt::format("def forward({}):\n    return input_ids\n", signature(inputs)));
  } else if (kind == "unfeedable") {
    module.define("def forward(self, x: float, name: str):\n    return torch.zeros(1)\n");
  } else {
    throw fmwork::usage_error("--kind must be encoder, identity or unfeedable; got '" + kind + "'");
  }
  auto parent = std::filesystem::path(out).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent);
  module.save(out);
  if (!no_config) write_config((parent.empty() ? std::filesystem::path(".") : parent) / "config.json", shape, kind);
  std::cout << "wrote " << out << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const fmwork::Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return e.exit_code();
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
