// CUDA graphs around a model's forward pass (see cuda_graphs.hpp). The recipe is torch.cuda.graph's
// (torch/cuda/graphs.py, 2.11): warm-up on the side stream that captures, synchronise, empty the cache,
// capture on that stream into a private pool, keep the static inputs and outputs.
#include "platform/cuda/cuda_graphs.hpp"

#include <ATen/cuda/CUDAGraph.h>
#include <c10/core/InferenceMode.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <optional>

#include <fmt/format.h>

#include "fmwork/base/progress.hpp"
#include "fmwork/runtime/exception_cause.hpp"

namespace fmwork {
namespace {

constexpr int kWarmups = 3;  // torch.cuda.graph's and make_graphed_callables' num_warmup_iters

int64_t reserved_now(c10::DeviceIndex device) {
  return c10::cuda::CUDACachingAllocator::getDeviceStats(device).reserved_bytes[0].current;
}

class CudaGraphModel : public Model {
 public:
  CudaGraphModel(std::unique_ptr<Model> inner, int index, std::string label)
      : inner_(std::move(inner)), device_(static_cast<c10::DeviceIndex>(index)), label_(std::move(label)) {}

  std::optional<CompileFacts> prepare(int64_t batch, int64_t input) override {
    release();  // the previous shape's graph and pool go before anything is made for this one
    std::optional<CompileFacts> inner = inner_->prepare(batch, input);
    const auto t0 = std::chrono::steady_clock::now();
    std::string why;
    try {
      capture(batch, input);
    } catch (const std::exception& e) {
      why = exception_cause(e);
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    CompileFacts facts;
    facts.shape = fmt::format("{}x{}", batch, input);
    facts.build_seconds = seconds;
    if (!why.empty()) {
      release();
      // A failed capture leaves a non-sticky error behind (cudaErrorStreamCaptureInvalidated ...): cleared
      // here, or the next CUDA call would report it as its own.
      (void)cudaGetLastError();
      progress_line(fmt::format("cuda graphs: batch {} x input {}: the capture failed ({}); this combination runs "
                                "eager",
                                batch, input, why));
      facts.backend = "eager:capture_failed";
      return inner ? inner : facts;
    }
    facts.backend = "cudagraphs";
    if (inner) return inner;  // the package's line; its graph is captured for it
    return facts;
  }

  // A padded batch (saved reference inputs with padding) needs a mask the graph was captured without: eager.
  const Batch& stage(const Batch& batch) override {
    if (!graph_ || batch.padded) return batch;
    copy_in(batch);
    return static_in_;
  }

  torch::IValue forward(const Batch& batch) override {
    if (!graph_ || batch.padded) return inner_->forward(batch);
    // Called with what stage() returned: the replay alone. Anything else (the --profile rep) is copied first.
    if (batch.input_ids.data_ptr() != static_in_.input_ids.data_ptr()) copy_in(batch);
    graph_->replay();
    return static_out_;
  }

  ModelFacts facts() const override {
    ModelFacts f = inner_->facts();
    f.description += "\nCUDA graphs around " + label_ + ": one graph per batch x input, captured before its reps (after " +
                     std::to_string(kWarmups) +
                     " warm-up passes on the capturing stream); each rep copies its inputs into the graph's buffers "
                     "before t0 and times the replay";
    f.runs_unpadded = false;  // a graph replays the padded shape it captured
    if (f.activation_bytes) {
      // The pool keeps one forward's working memory (own) for the graph's life; the static inputs (three
      // [batch, input] int64) are extra; the previous shape's pool is freed before this one is captured.
      f.activation_bytes = [own = f.activation_bytes, this](int64_t batch, int64_t input) -> uint64_t {
        const long double statics = 3.0L * batch * input * sizeof(int64_t);
        const long double need =
            static_cast<long double>(own(batch, input)) + statics - static_cast<long double>(pool_bytes_);
        return need <= 0 ? 0 : need >= static_cast<long double>(UINT64_MAX) ? UINT64_MAX : static_cast<uint64_t>(need);
      };
    }
    return f;
  }
  void eval() override { inner_->eval(); }
  void leave_device() override { inner_->leave_device(); }

 private:
  void release() {
    static_out_ = torch::IValue();
    graph_.reset();  // the destructor resets the graph: its private pool becomes freeable
    static_in_ = Batch();
    c10::cuda::CUDACachingAllocator::emptyCache();
  }

  void copy_in(const Batch& batch) {
    c10::InferenceMode guard;  // the buffers were made under it: an in-place copy outside would throw
    static_in_.input_ids.copy_(batch.input_ids, /*non_blocking=*/true);
    static_in_.attention_mask.copy_(batch.attention_mask, true);
    static_in_.token_type_ids.copy_(batch.token_type_ids, true);
  }

  void capture(int64_t batch, int64_t input) {
    c10::InferenceMode guard;
    const auto ids = torch::TensorOptions().dtype(torch::kLong).device(torch::kCUDA, device_);
    static_in_ = Batch();
    static_in_.input_ids = torch::zeros({batch, input}, ids);
    static_in_.attention_mask = torch::ones({batch, input}, ids);
    static_in_.token_type_ids = torch::zeros({batch, input}, ids);
    static_in_.padded = false;
    const c10::cuda::CUDAStream main = c10::cuda::getCurrentCUDAStream(device_);
    const c10::cuda::CUDAStream side = c10::cuda::getStreamFromPool(false, device_);
    {
      // The side stream starts after what the main stream has queued (the buffers' fills).
      c10::cuda::CUDAEvent ready;
      ready.record(main);
      ready.block(side);
      c10::cuda::CUDAStreamGuard on_side(side);
      for (int i = 0; i < kWarmups; ++i) inner_->forward(static_in_);
    }
    side.synchronize();
    c10::cuda::CUDACachingAllocator::emptyCache();  // the warm-up's blocks out of the count below
    const int64_t before = reserved_now(device_);
    auto graph = std::make_unique<at::cuda::CUDAGraph>();
    {
      c10::cuda::CUDAStreamGuard on_side(side);
      // Thread-local: a CUDA call from another thread of the process (none today) cannot invalidate it.
      graph->capture_begin({0, 0}, cudaStreamCaptureModeThreadLocal);
      try {
        static_out_ = inner_->forward(static_in_);
      } catch (...) {
        try {
          graph->capture_end();  // ends the stream's capture and the pool's routing; it throws, invalidated
        } catch (...) {
        }
        static_out_ = torch::IValue();
        throw;
      }
      graph->capture_end();
    }
    // The main stream's later work (the copies into the buffers, the replays) waits for nothing of the side's:
    // the capture queued no work. Synchronised anyway, so the pool's size below is settled.
    side.synchronize();
    graph_ = std::move(graph);
    pool_bytes_ = std::max<int64_t>(reserved_now(device_) - before, 0);
  }

  std::unique_ptr<Model> inner_;
  c10::DeviceIndex device_;
  std::string label_;
  std::unique_ptr<at::cuda::CUDAGraph> graph_;  // the current shape's; null: eager
  Batch static_in_;
  torch::IValue static_out_;
  int64_t pool_bytes_ = 0;  // the current graph's private pool, from the reserved bytes across its capture
};

}  // namespace

std::unique_ptr<Model> capture_cuda_graphs(std::unique_ptr<Model> model, int index, const std::string& label) {
  return std::make_unique<CudaGraphModel>(std::move(model), index, label);
}

}  // namespace fmwork
