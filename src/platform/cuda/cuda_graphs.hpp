// CUDA graphs around a model's forward pass (--compile:backend cudagraphs, --compile:mode reduce-overhead);
// compiled only when LibTorch brings CUDA (FMWORK_WITH_CUDA).
#pragma once

#include <memory>
#include <string>

#include "fmwork/model/model.hpp"

namespace fmwork {

// `model` (already on cuda:`index`) run through one CUDA graph per (batch, input), as torch.cuda.graph
// captures one: prepare() frees the previous shape's graph, warms the model up on a side stream (cuBLAS
// workspaces, cuDNN plans and allocator growth must not land in the capture), then captures one forward
// of static inputs into a private memory pool; stage() copies a rep's inputs into those static buffers
// (before t0), and forward() is the replay alone; a padded batch (captured without a mask) runs eager. A capture that fails (a synchronisation in the model, an op
// capture refuses) leaves that shape eager: prepare()'s COMPILE line says backend=eager:capture_failed and
// a line on stderr gives the reason. activation_bytes() adds the static buffers to the model's own estimate
// (the pool holds one forward's working memory for the graph's life) less the pool the previous shape's graph
// frees. `label` names the wrapped compile in describe() ("the native encoder", "the AOTInductor package").
std::unique_ptr<Model> capture_cuda_graphs(std::unique_ptr<Model> model, int index, const std::string& label);

}  // namespace fmwork
