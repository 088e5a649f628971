// A loaded model, ready to be called on a prepared batch, and what every loader is asked for
// (LoadRequest). The loaders (loaders/): torchscript_model.hpp, hf_model.hpp, aoti_model.hpp;
// model_loader.hpp picks one from the path.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <torch/script.h>
#include <torch/torch.h>

#include "fmwork/domain/compile_facts.hpp"
#include "fmwork/domain/run_options.hpp"
#include "fmwork/hf/model_inputs.hpp"  // model_input_names(): the names of Batch's fields
#include "fmwork/model/packed_tokens.hpp"

namespace fmwork {

// The inputs of one rep, already on the model's device. All three are [batch, input] int64.
struct Batch {
  torch::Tensor input_ids;
  torch::Tensor attention_mask;  // all ones for generated inputs; saved reference inputs may hold zeros
  torch::Tensor token_type_ids;  // all zeros
  // false: attention_mask is known, from where the batch was made, to be all ones (the generator's batches),
  // so a model may run without a mask (on CUDA any mask rules flash attention out, and checking the mask
  // there would synchronise the device); true: it may hold zeros and is applied.
  bool padded = true;
  // Each row's real tokens where rows are of mixed lengths, right-padded (row i's first lengths[i] tokens are
  // real, attention_mask 1 there and 0 after); empty: no lengths known (every row real, or a mask of another
  // pattern). On the host (packed.lengths holds the same for the unpadded path, pack_batch() fills both).
  std::vector<int64_t> lengths;
  // --batching unpadded: the real tokens packed (pack_batch(), packed_tokens.hpp); a model that runs unpadded
  // (ModelFacts::runs_unpadded) then runs on them alone and returns outputs of the padded shape, zero at padding.
  PackedTokens packed;
};

// What the input generator needs to know about the vocabulary: ids drawn uniformly from
// [0, vocab_size) minus special_ids.
struct TokenFacts {
  int64_t vocab_size = 0;
  std::vector<int64_t> special_ids;
  int64_t type_vocab_size = 0;  // token type ids run 0..type_vocab_size-1; 0: unknown, or no token types
};

// The batch x input shapes a model built for some only takes, inclusive (batch_min..batch_max rows, each of
// input_min..input_max tokens).
struct ShapeRange {
  int64_t batch_min = 1, batch_max = 1, input_min = 1, input_max = 1;
};

// What a model is, as data: its loader fills it; a wrapper (a compiler, CUDA graphs, a plugin's runner) starts
// from what it wraps and changes only what it changes, so no fact is lost by a wrapper that forgot it.
struct ModelFacts {
  std::string description;  // the MODEL section: architecture, sizes, dtype, parameters, attention, ...
  std::string dtype_name;   // "float32", "bfloat16", ...: the dtype the weights run in (META dtype=, "precision")
  TokenFacts tokens;        // what the input generator draws from
  int64_t parameter_count = 0;
  std::string weights_source = "file";  // or "random:seed=N" for opted-in random weights (META weights=)
  // The attention implementation ("sdpa", "eager") and whether the feed-forward's bias and GELU run in its GEMM's
  // epilogue (--model:gelu_epilogue), where the model says (the native encoders, and what is compiled from
  // them): META's attention= and gelu_epilogue=, which --compare holds a pair to. Empty / nullopt: unknown (a
  // TorchScript file or a package does not say), left out of META.
  std::string attention;
  std::optional<bool> gelu_epilogue;
  // What runs forward(): "eager" (LibTorch, the model as loaded: the native encoders, TorchScript), "inductor"
  // (an AOTInductor package), "openvino" (OpenVINO's runtime). META's runtime=, with the compile backend's name
  // in its place when one was applied (torchscript, cudagraphs, a platform's): the key that --baseline
  // runtime=eager compares runtimes by.
  std::string runtime = "eager";
  // The inputs forward() passes to the model, by name (input_ids, attention_mask, token_type_ids), and the
  // names of its outputs in order (empty: output_0, output_1, ...; see sweep/saved_outputs.hpp).
  std::vector<std::string> fed_inputs = model_input_names();
  std::vector<std::string> output_names;
  // The floating-point operations of one forward pass of batch x input tokens, from the architecture (the
  // native encoders: hf/forward_flops.hpp says what is counted); empty when the model cannot tell
  // (TorchScript: --profile then counts them with the profiler).
  std::function<double(int64_t batch, int64_t input)> forward_flops;
  // The memory one forward pass of batch x input tokens takes beyond the weights, at its peak, estimated from
  // the architecture; empty when the model cannot tell. Throws a usage Error when the model cannot take the
  // shape at all (an input longer than its position table), so that the sweep refuses it before anything is
  // allocated for it.
  std::function<uint64_t(int64_t batch, int64_t input)> activation_bytes;
  // Whether forward() runs a batch's packed real tokens (Batch::packed, --batching unpadded): linear layers on
  // the packed tokens, attention per sequence, outputs scattered back to the padded shape with zeros at the
  // padding. false: the model is fed padded batches only, and the sweep refuses the mode. A wrapper that runs
  // a forward of its own (a package, a graph, a plugin's runner) sets it false.
  bool runs_unpadded = false;
  // The shapes forward() takes where the model was built for some only (sweep/fed_shapes.hpp holds a run's
  // shapes to them before it starts): `shapes`, an AOTInductor package's exported range; or
  // `shape_per_combination`, one package built before each combination's reps for its batch x input alone
  // (inductor without --compile:dynamic@ True; serve's one: its largest batch x longest query). Neither: any
  // shape. `shapes_by` names what fixed them, for messages ("the AOTInductor package m.pt2").
  std::optional<ShapeRange> shapes;
  bool shape_per_combination = false;
  std::string shapes_by;
};

// A loaded model. Three calls run it, in this order for each batch x input combination: prepare() once
// before the combination's reps, then per rep stage() before the timed region and forward() inside it.
// facts() says what it is; the rest is the model's life cycle (eval, leave_device) and the TorchScript module
// that compilers rewrite.
class Model {
 public:
  virtual ~Model() = default;

  // What the model is (above). Asked when needed, not kept: a compiler may change what a model feeds.
  virtual ModelFacts facts() const = 0;

  // Readies the model for a combination's shape, before its reps and outside the timed region (the native
  // encoder packs its weights for it on the CPU; the inductor backend builds or loads the shape's package).
  // Returns what was compiled for the shape, if anything (the sweep prints it as a COMPILE line before the
  // reps); throws when the shape cannot run.
  virtual std::optional<CompileFacts> prepare(int64_t batch, int64_t input) { return std::nullopt; }

  // Readies `batch` for the next forward(), before the timed region: a model that replays a CUDA graph copies
  // it into the graph's static input buffers (queued on the device; the caller synchronises before t0).
  // Returns the batch to hand to forward(): by default `batch` itself.
  virtual const Batch& stage(const Batch& batch) { return batch; }

  // One forward pass. Returns the outputs so that they stay alive until after the device synchronisation.
  virtual torch::IValue forward(const Batch& batch) = 0;

  // Upstream's --eval: model.eval().
  virtual void eval() = 0;

  // Moves the weights off the device into host memory, when a compiled replacement with its own copy (an
  // AOTInductor package) runs instead; facts() still answers, forward() is not called again. Models without
  // weights of their own on the device: nothing.
  virtual void leave_device() {}

  // The TorchScript module behind the model, for compilers that rewrite it (freeze, plugin compilers);
  // nullptr for models that are not TorchScript (the native encoders).
  virtual torch::jit::Module* torchscript_module() { return nullptr; }
};

// "float32", "float16", "bfloat16", "float64", ...: the names the options and log lines use.
std::string dtype_short_name(c10::ScalarType dtype);
// The floating-point dtype of such a name (float32, float16, bfloat16, float64); nullopt for any other.
std::optional<c10::ScalarType> float_dtype_of(const std::string& short_name);

struct LoadRequest {
  std::string path;          // --model_root/--model_name
  std::string model_class;   // --model_class
  ModelOptions options;      // --model:...
  torch::Device device = torch::kCPU;
  // The model is to be compiled ahead of time from its folder by transformers' own class (--compile with the
  // inductor backend): a folder whose class has no native encoder is then accepted as the folder's facts
  // alone, which the compiled package runs (compile_model.hpp compiles_from_folder()).
  bool ahead_of_time = false;
};

}  // namespace fmwork
