// hf_bench: helpers for bench/hf_cpu_bench.sh.
//
//   hf_bench gemm [--tokens M] [--hidden H] [--intermediate I] [--seconds S] [--threads N]
//       The fp32 GEMM rate of the shapes a BERT-style layer runs (at::linear with bias, as the encoder calls
//       it): [M,H]x[H,H]^T (q, k, v, attention output), [M,H]x[I,H]^T, [M,I]x[H,I]^T. Prints one line per
//       shape and a `GEMM ... gflops=` line: the layer's GEMM FLOPs over its GEMM time (the rate a perfect
//       encoder would reach on this machine).
//   hf_bench write-folder CONFIG_JSON OUT_DIR [SEED] [DTYPE]
//       write_random_model_folder(): config.json + model.safetensors (real size, random weights).
//   hf_bench forward DIR [--class C] [--input L] [--batch B] [--reps N] [--threads N] [--random] [--dtype D]
//                        [--attn eager|sdpa] [--gemm]
//       Loads DIR with load_hf_model() and times forwards, printing FMWORK-style SETUP / RES lines and the
//       process RSS (baseline before loading, after loading, peak): a stand-in for the driver. With --gemm,
//       each forward is followed by the model's GEMMs alone (same shapes, same count), and the ratio of
//       achieved FLOP/s to that GEMM rate is printed (HF_BENCH_GEMM): robust to other load on the machine.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <c10/core/InferenceMode.h>
#include <torch/csrc/autograd/profiler_kineto.h>

#include <map>

#include "fmwork/base/error.hpp"
#include "fmwork/loaders/hf_model.hpp"
#include "fmwork/log/log_format.hpp"
#include "fmwork/model/model.hpp"
#include "fmwork/log/stats.hpp"
#include "fmwork/sweep/sweep.hpp"

namespace {

using clk = std::chrono::steady_clock;

double seconds_since(clk::time_point t) { return std::chrono::duration<double>(clk::now() - t).count(); }

// Current and peak resident set size in MB (from /proc/self/status).
double rss_mb(const char* field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(field, 0) == 0) return std::atof(line.c_str() + std::string(field).size()) / 1024.0;
  return 0;
}

std::string arg_value(std::vector<std::string>& args, const std::string& flag, const std::string& fallback) {
  auto it = std::find(args.begin(), args.end(), flag);
  if (it == args.end() || it + 1 == args.end()) return fallback;
  std::string v = *(it + 1);
  args.erase(it, it + 2);
  return v;
}
bool arg_flag(std::vector<std::string>& args, const std::string& flag) {
  auto it = std::find(args.begin(), args.end(), flag);
  if (it == args.end()) return false;
  args.erase(it);
  return true;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int gemm(std::vector<std::string> args) {
  const int64_t M = std::stoll(arg_value(args, "--tokens", "512"));
  const int64_t H = std::stoll(arg_value(args, "--hidden", "768"));
  const int64_t I = std::stoll(arg_value(args, "--intermediate", "3072"));
  const double budget = std::stod(arg_value(args, "--seconds", "3"));
  const int threads = std::stoi(arg_value(args, "--threads", "0"));
  if (threads > 0) at::set_num_threads(threads);
  std::printf("GEMM_RSS rss_baseline_mb=%.1f (LibTorch loaded, nothing allocated)\n", rss_mb("VmRSS:"));
  c10::InferenceMode guard;
  struct Shape {
    const char* name;
    int64_t in, out, count;  // count: how many of them a layer runs
  } shapes[] = {{"HxH", H, H, 4}, {"HxI", H, I, 1}, {"IxH", I, H, 1}};
  double layer_flops = 0, layer_time = 0;
  for (const auto& s : shapes) {
    auto x = at::randn({M, s.in}), w = at::randn({s.out, s.in}) * 0.02, b = at::zeros({s.out});
    for (int i = 0; i < 3; ++i) at::linear(x, w, b);  // warm-up
    std::vector<double> times;
    auto start = clk::now();
    while (seconds_since(start) < budget / 3 || times.size() < 5) {
      auto t = clk::now();
      at::linear(x, w, b);
      times.push_back(seconds_since(t));
    }
    const double flops = 2.0 * M * s.in * s.out, med = median(times);
    std::printf("GEMM_SHAPE %s m=%lld k=%lld n=%lld reps=%zu median_ms=%.3f gflops=%.1f\n", s.name,
                static_cast<long long>(M), static_cast<long long>(s.in), static_cast<long long>(s.out), times.size(),
                med * 1e3, flops / med / 1e9);
    layer_flops += s.count * flops;
    layer_time += s.count * med;
  }
  std::printf("GEMM tokens=%lld hidden=%lld intermediate=%lld threads=%d gflops=%.1f\n", static_cast<long long>(M),
              static_cast<long long>(H), static_cast<long long>(I), at::get_num_threads(), layer_flops / layer_time / 1e9);
  return 0;
}

int write_folder(std::vector<std::string> args) {
  if (args.size() < 2) {
    std::fprintf(stderr, "usage: hf_bench write-folder CONFIG_JSON OUT_DIR [SEED] [DTYPE]\n");
    return 2;
  }
  const uint64_t seed = args.size() > 2 ? std::stoull(args[2]) : 0;
  const std::string dtype = args.size() > 3 ? args[3] : "float32";
  auto t = clk::now();
  uint64_t bytes = fmwork::hf::write_random_model_folder(args[0], args[1], seed, dtype);
  std::printf("wrote %s/model.safetensors: %.1f MB in %.2f s\n", args[1].c_str(), bytes / 1e6, seconds_since(t));
  return 0;
}

// The options forward and profile share: DIR [--class C] [--input L] [--batch B] [--reps N] [--threads N]
// [--dtype D] [--attn A] [--random]. Sets the thread count as it reads it.
struct RunArgs {
  fmwork::LoadRequest request;
  int64_t input = 128, batch = 1;
  int reps = 0;
};
RunArgs run_args(std::vector<std::string>& args, const char* default_reps) {
  RunArgs a;
  a.request.model_class = arg_value(args, "--class", "AutoModel");
  a.input = std::stoll(arg_value(args, "--input", "128"));
  a.batch = std::stoll(arg_value(args, "--batch", "1"));
  a.reps = std::stoi(arg_value(args, "--reps", default_reps));
  const int threads = std::stoi(arg_value(args, "--threads", "0"));
  const std::string dtype = arg_value(args, "--dtype", ""), attn = arg_value(args, "--attn", "");
  if (!dtype.empty()) a.request.options.dtype = dtype;
  if (!attn.empty()) a.request.options.attn_implementation = attn;
  a.request.options.random_weights = arg_flag(args, "--random");
  a.request.path = args.at(0);
  if (threads > 0) at::set_num_threads(threads);
  return a;
}

int forward(std::vector<std::string> args) {
  if (args.empty()) {
    std::fprintf(stderr, "usage: hf_bench forward DIR [--class C] [--input L] [--batch B] [--reps N] [--random]\n");
    return 2;
  }
  const double rss_base = rss_mb("VmRSS:");
  const bool with_gemm = arg_flag(args, "--gemm");
  const RunArgs a = run_args(args, "20");
  const fmwork::LoadRequest& r = a.request;
  const int64_t L = a.input, B = a.batch;
  const int reps = a.reps;
  auto t0 = clk::now();
  auto model = fmwork::load_hf_model(r);
  const double setup = seconds_since(t0);
  const double rss_loaded = rss_mb("VmRSS:");
  model->prepare(B, L);  // as the driver does before a combination, after SETUP
  std::printf("%s\n\nFMWORK SETUP %.6f\n", model->facts().description.c_str(), setup);
  auto facts = model->facts().tokens;
  auto ids = at::randint(0, facts.vocab_size, {B, L}, at::kLong);
  int64_t filler = 0;  // the first id that is not special
  while (std::find(facts.special_ids.begin(), facts.special_ids.end(), filler) != facts.special_ids.end()) ++filler;
  for (int64_t s : facts.special_ids) ids.masked_fill_(ids.eq(s), filler);
  fmwork::Batch batch{ids, at::ones({B, L}, at::kLong), at::zeros({B, L}, at::kLong)};
  c10::InferenceMode guard;
  // --gemm: after each forward, the same GEMMs the model runs (per layer [T,H]x[3H,H]^T, [T,H]x[H,H]^T,
  // [T,H]x[I,H]^T, [T,I]x[H,I]^T, distinct weights per layer) timed alone. Interleaving makes the
  // achieved-to-GEMM ratio robust to other load on the machine.
  const auto& cfg = dynamic_cast<fmwork::hf::HfModel&>(*model).encoder().config();
  const int64_t T = L * B, H = cfg.hidden_size, I = cfg.intermediate_size, NL = cfg.num_hidden_layers;
  std::vector<std::vector<at::Tensor>> gemm_weights;
  at::Tensor gx, gh;
  if (with_gemm) {
    gx = at::randn({T, H});
    gh = at::randn({T, I});
    for (int64_t l = 0; l < NL; ++l)
      gemm_weights.push_back({at::randn({3 * H, H}) * 0.02, at::zeros({3 * H}), at::randn({H, H}) * 0.02, at::zeros({H}),
                              at::randn({I, H}) * 0.02, at::zeros({I}), at::randn({H, I}) * 0.02, at::zeros({H})});
  }
  std::vector<double> times, gemm_times;
  fmwork::Nanos t_first = 0, t_last = 0;
  for (int i = 0; i < reps; ++i) {
    const fmwork::Nanos t0 = fmwork::clock_now();
    auto out = model->forward(batch);
    const fmwork::Nanos t1 = fmwork::clock_now();
    times.push_back(static_cast<double>(t1 - t0) / 1e9);
    if (i == 0) t_first = t0;
    t_last = t1;
    auto t = clk::now();
    if (with_gemm) {
      for (const auto& w : gemm_weights) {
        at::linear(gx, w[0], w[1]);
        at::linear(gx, w[2], w[3]);
        at::linear(gx, w[4], w[5]);
        at::linear(gh, w[6], w[7]);
      }
      gemm_times.push_back(seconds_since(t));
    }
  }
  // RES and STAT as the driver writes them (log_format, stats: the same warm-up rule and median).
  const fmwork::Summary summary = fmwork::summarize(times);
  std::printf("%s\n%s\n",
              fmwork::format_line(fmwork::make_res_line(t_first, t_last, r.path, r.model_class, L, B,
                                                        fmwork::latency_ms(summary), fmwork::throughput(summary, B)))
                  .c_str(),
              fmwork::format_line(fmwork::make_stat_line(L, B, fmwork::stat_values(summary))).c_str());
  const double med = summary.median;
  const size_t drop = summary.dropped;
  if (with_gemm) {
    std::vector<double> kept_gemm(gemm_times.begin() + std::min(drop, gemm_times.size() - 1), gemm_times.end());
    const double gemm_flops = 2.0 * NL * T * (4.0 * H * H + 2.0 * H * I);
    const double flops = NL * (2.0 * T * (4.0 * H * H + 2.0 * H * I) + 4.0 * B * L * L * H) + 2.0 * B * H * H;
    const double achieved = flops / med / 1e9, gemm_rate = gemm_flops / median(kept_gemm) / 1e9;
    std::printf("HF_BENCH_GEMM input=%lld batch=%lld gflop_per_forward=%.2f achieved_gflops=%.1f gemm_gflops=%.1f "
                "ratio=%.2f gemm_share_of_forward=%.2f\n",
                static_cast<long long>(L), static_cast<long long>(B), flops / 1e9, achieved, gemm_rate,
                achieved / gemm_rate, median(kept_gemm) / med);
  }
  std::printf("HF_BENCH threads=%d rss_baseline_mb=%.1f rss_after_load_mb=%.1f rss_peak_mb=%.1f params=%lld "
              "admission_estimate_mb=%.1f\n",
              at::get_num_threads(), rss_base, rss_loaded, rss_mb("VmHWM:"),
              static_cast<long long>(model->facts().parameter_count),
              static_cast<double>(model->facts().activation_bytes(B, L) + 3 * B * L * 8) / (1 << 20));
  return 0;
}

// profile DIR [--class C] [--input L] [--batch B] [--reps N] [--threads N] [--dtype D] [--attn A]
// LibTorch's profiler (Kineto, CPU) over N forwards after 3 untimed ones: self time per operator (time in
// the op less the ops it called), in ms per forward, largest first: the op-by-op view that sits beside
// bench/profile_python.py's for transformers.
int profile(std::vector<std::string> args) {
  namespace prof = torch::autograd::profiler;
  if (args.empty()) {
    std::fprintf(stderr, "usage: hf_bench profile DIR [--class C] [--input L] [--batch B] [--reps N] ...\n");
    return 2;
  }
  const RunArgs a = run_args(args, "10");
  const int64_t L = a.input, B = a.batch;
  const int reps = a.reps;
  auto model = fmwork::load_hf_model(a.request);
  model->prepare(B, L);
  fmwork::Batch batch{at::randint(1000, 2000, {B, L}, at::kLong), at::ones({B, L}, at::kLong), at::zeros({B, L}, at::kLong)};
  for (int i = 0; i < 3; ++i) model->forward(batch);
  const prof::ProfilerConfig config(prof::ProfilerState::KINETO);
  const std::set<torch::profiler::impl::ActivityType> cpu{torch::profiler::impl::ActivityType::CPU};
  prof::prepareProfiler(config, cpu);
  prof::enableProfiler(config, cpu);
  const auto t0 = clk::now();
  for (int i = 0; i < reps; ++i) model->forward(batch);
  const double wall = seconds_since(t0);
  auto result = prof::disableProfiler();
  // Self time: each event's duration less its children's, children found by nesting on the same thread.
  struct Span { uint64_t start, end, thread; std::string name; };
  std::vector<Span> spans;
  for (const auto& e : result->events()) spans.push_back({e.startNs(), e.endNs(), e.startThreadId(), e.name()});
  std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) {
    return a.thread != b.thread ? a.thread < b.thread : a.start != b.start ? a.start < b.start : a.end > b.end;
  });
  std::map<std::string, double> self_ms;
  std::map<std::string, int> calls;
  std::vector<std::pair<const Span*, double>> stack;  // open spans and the time of their children
  auto close = [&](size_t keep) {
    while (stack.size() > keep) {
      auto [s, children] = stack.back();
      stack.pop_back();
      const double d = static_cast<double>(s->end - s->start);
      self_ms[s->name] += (d - children) / 1e6 / reps;
      calls[s->name] += 1;
      if (!stack.empty()) stack.back().second += d;
    }
  };
  for (const auto& s : spans) {
    size_t keep = stack.size();
    while (keep > 0 && (stack[keep - 1].first->thread != s.thread || stack[keep - 1].first->end <= s.start)) --keep;
    close(keep);
    stack.emplace_back(&s, 0.0);
  }
  close(0);
  std::vector<std::pair<double, std::string>> rows;
  double total = 0;
  for (const auto& [name, ms] : self_ms) {
    rows.emplace_back(ms, name);
    total += ms;
  }
  std::sort(rows.rbegin(), rows.rend());
  std::printf("PROFILE ours input=%lld batch=%lld threads=%d dtype=%s forward_ms=%.3f profiled_self_ms=%.3f\n",
              static_cast<long long>(L), static_cast<long long>(B), at::get_num_threads(), model->facts().dtype_name.c_str(),
              wall * 1e3 / reps, total);
  for (const auto& [ms, name] : rows)
    if (ms >= 0.005) std::printf("  %-40s %9.3f ms %6.1f%% %5d calls/forward\n", name.c_str(), ms, 100 * ms / total, calls[name] / reps);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    std::fprintf(stderr, "usage: hf_bench gemm|write-folder|forward ...\n");
    return 2;
  }
  const std::string cmd = args[0];
  args.erase(args.begin());
  try {
    if (cmd == "gemm") return gemm(args);
    if (cmd == "write-folder") return write_folder(args);
    if (cmd == "forward") return forward(args);
    if (cmd == "profile") return profile(args);
  } catch (const fmwork::Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return e.exit_code();
  }
  std::fprintf(stderr, "hf_bench: unknown command %s (gemm, write-folder, forward)\n", cmd.c_str());
  return 2;
}
