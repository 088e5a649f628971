// timing_floor: where the driver's timing floor goes, measured side by side in one process.
//
//   timing_floor MODEL.pt [--calls N] [--input L] [--batch B]
//
// MODEL.pt is a TorchScript module whose forward returns its input (`make_model --kind identity`): what
// a rep costs when the model does nothing. Each row times N calls, one clock pair per call (as the sweep
// does), and prints the median and the 10th percentile per call in microseconds. The rows add one piece at
// a time, from a bare LibTorch loop to the driver's own run_sweep, so that the difference between two
// adjacent rows is the cost of the piece the second adds:
//
//   bare           module.forward(args) with args built once, under c10::InferenceMode
//   no_grad        the same under GradMode off (torch.no_grad) instead of InferenceMode
//   grad_on        the same with autograd on (upstream's default)
//   model_call     Model::forward(batch): the project's TorchScript model, building its argument list
//   + sync         ... plus Platform::synchronize() of the cpu platform
//   + clock        ... with the sweep's clock_now() (monotonic anchored to Unix time) instead of steady_clock
//   fresh_inputs   ... with new input tensors each call (the sweep draws a new batch per rep, before t0)
//   run_sweep      the driver's loop itself (FMWORK lines to a file): the median of its STAT line
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <c10/core/InferenceMode.h>
#include <fmt/format.h>
#include <torch/script.h>
#include <torch/torch.h>

#include "fmwork/base/error.hpp"
#include "fmwork/model/inputs.hpp"
#include "fmwork/log/log_format.hpp"
#include "fmwork/model/model.hpp"
#include "fmwork/loaders/model_loader.hpp"
#include "fmwork/platform/platform_registry.hpp"
#include "fmwork/sweep/sweep.hpp"

namespace {

using fmwork::Nanos;

struct Row {
  std::string name;
  double median_us = 0, p10_us = 0;
};

int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

Row summarize(const std::string& name, std::vector<int64_t> ns) {
  std::sort(ns.begin(), ns.end());
  return Row{name, static_cast<double>(ns[ns.size() / 2]) / 1e3, static_cast<double>(ns[ns.size() / 10]) / 1e3};
}

// Times `call` n times (after n/10 untimed warm-up calls), one clock pair around each call.
Row time_calls(const std::string& name, int64_t n, const std::function<void()>& call,
               const std::function<int64_t()>& clock = steady_ns,
               const std::function<void()>& before_each = [] {}) {
  for (int64_t i = 0; i < n / 10; ++i) call();
  std::vector<int64_t> ns(static_cast<size_t>(n));
  for (auto& d : ns) {
    before_each();
    const int64_t t0 = clock();
    call();
    const int64_t t1 = clock();
    d = t1 - t0;
  }
  return summarize(name, std::move(ns));
}

// The p50 of the first STAT line of a log, in microseconds.
double stat_p50_us(const std::string& log) {
  std::istringstream in(log);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("FMWORK STAT", 0) != 0) continue;
    auto at = line.find("p50_ms=");
    if (at != std::string::npos) return std::stod(line.substr(at + 7)) * 1e3;
  }
  throw fmwork::runtime_error("run_sweep printed no STAT line");
}

int run(int argc, char** argv) {
  if (argc < 2) throw fmwork::usage_error("usage: timing_floor MODEL.pt [--calls N] [--input L] [--batch B]");
  const std::string path = argv[1];
  int64_t calls = 20000, input = 128, batch = 1;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const int64_t v = std::stoll(argv[i + 1]);
    if (flag == "--calls") calls = v;
    else if (flag == "--input") input = v;
    else if (flag == "--batch") batch = v;
    else throw fmwork::usage_error("unknown option " + flag);
  }

  auto platform = fmwork::make_platform("cpu", {});
  const torch::Device device = platform->facts().device;  // read once, outside every timed region
  fmwork::LoadRequest request{path, "Identity", {}, device};
  auto model = fmwork::load_model(request);
  model->eval();
  torch::jit::Module& module = *model->torchscript_module();
  fmwork::InputGenerator generator(model->facts().tokens, 0);
  const fmwork::Batch batch_inputs = generator.make(batch, input, device);
  const std::vector<torch::IValue> args{batch_inputs.input_ids, batch_inputs.attention_mask,
                                        batch_inputs.token_type_ids};
  // The identity module takes what make_model gave it; feed the same number of arguments.
  const size_t arity = module.get_method("forward").function().getSchema().arguments().size() - 1;
  const std::vector<torch::IValue> bare_args(args.begin(), args.begin() + static_cast<std::ptrdiff_t>(arity));

  std::vector<Row> rows;
  {
    c10::InferenceMode guard;
    rows.push_back(time_calls("bare", calls, [&] { (void)module.forward(bare_args); }));
  }
  {
    torch::NoGradGuard guard;
    rows.push_back(time_calls("no_grad", calls, [&] { (void)module.forward(bare_args); }));
  }
  {
    c10::AutoGradMode guard(true);
    rows.push_back(time_calls("grad_on", calls, [&] { (void)module.forward(bare_args); }));
  }
  {
    // The driver's state during the sweep: GradMode off, set once (src/apps/driver.cpp).
    c10::AutoGradMode guard(false);
    rows.push_back(time_calls("model_call", calls, [&] { (void)model->forward(batch_inputs); }));
    rows.push_back(time_calls("+ sync", calls, [&] {
      (void)model->forward(batch_inputs);
      platform->synchronize();
    }));
    rows.push_back(time_calls(
        "+ clock", calls,
        [&] {
          (void)model->forward(batch_inputs);
          platform->synchronize();
        },
        fmwork::clock_now));
    fmwork::Batch fresh;
    rows.push_back(time_calls(
        "fresh_inputs", calls,
        [&] {
          (void)model->forward(fresh);
          platform->synchronize();
        },
        fmwork::clock_now, [&] { fresh = generator.make(batch, input, device); }));

    std::ostringstream log;
    fmwork::SweepPlan plan;
    plan.args.batch_sizes = {batch}, plan.args.input_sizes = {input}, plan.args.reps = calls;
    plan.args.model_name = path, plan.args.model_class = "Identity";
    fmwork::run_sweep(plan, *model, *platform, generator, log);
    const double p50 = stat_p50_us(log.str());
    rows.push_back(Row{"run_sweep", p50, 0});
  }

  std::printf("timing floor, identity TorchScript model, input %lld x batch %lld, %lld calls per row, LibTorch %s, "
              "%d intra-op threads\n",
              static_cast<long long>(input), static_cast<long long>(batch), static_cast<long long>(calls),
              TORCH_VERSION, at::get_num_threads());
  std::printf("%-14s %12s %12s %12s\n", "row", "median_us", "p10_us", "delta_us");
  double previous = 0;
  for (const auto& r : rows) {
    const bool chained = r.name[0] == '+' || r.name == "fresh_inputs" || r.name == "run_sweep";
    std::printf("%-14s %12.3f %12.3f %12s\n", r.name.c_str(), r.median_us, r.p10_us,
                chained ? fmt::format("{:+.3f}", r.median_us - previous).c_str() : "");
    previous = r.median_us;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const fmwork::Error& e) {
    std::cerr << "error: " << e.what() << std::endl;
    return e.exit_code();
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << std::endl;
    return 1;
  }
}
