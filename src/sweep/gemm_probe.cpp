// The machine's GEMM rate (see include/fmwork/sweep/gemm_probe.hpp).
#include "fmwork/sweep/gemm_probe.hpp"

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "fmwork/base/cpu_use.hpp"
#include "fmwork/base/error.hpp"
#include "fmwork/base/progress.hpp"
#include "fmwork/cache/artifact_cache.hpp"
#include "fmwork/cache/gemm_cache.hpp"
#include "fmwork/log/verdicts.hpp"
#include "fmwork/model/model.hpp"
#include "fmwork/sweep/sweep.hpp"

namespace fmwork {
namespace {

constexpr Nanos kLongEnough = 20'000'000;   // one product this long is timed well by the clock
constexpr Nanos kBudget = 1'000'000'000;    // the repeats past the third stop after a second
constexpr int kMinRepeats = 3, kMaxRepeats = 10;

// One product, timed as a rep is: the device synchronised before t0 and inside the timed region.
Nanos time_mm(const at::Tensor& a, const at::Tensor& b, at::Tensor& c, Platform& platform) {
  platform.synchronize();
  const Nanos t0 = clock_now();
  at::mm_out(c, a, b);
  platform.synchronize();
  return clock_now() - t0;
}

// The operands of an n x n by n x n product in the run's dtype, on its device.
struct Operands {
  at::Tensor a, b, c;
};

Operands operands(c10::ScalarType dtype, Platform& platform, int64_t n) {
  const auto options = torch::TensorOptions().dtype(dtype).device(platform.facts().device);
  return {torch::randn({n, n}, options), torch::randn({n, n}, options), torch::empty({n, n}, options)};
}

// GFLOP/s of one n x n by n x n product that took `t`.
double gflops_of(int64_t n, Nanos t) {
  const double flops = 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n);
  return flops / (static_cast<double>(std::max<Nanos>(t, 1)) / 1e9) / 1e9;
}

// One product of n x n matrices timed now (after one untimed for the BLAS's buffers), in GFLOP/s.
double one_product_rate(c10::ScalarType dtype, Platform& platform, int64_t n) {
  c10::InferenceMode no_autograd;
  Operands m = operands(dtype, platform, n);
  time_mm(m.a, m.b, m.c, platform);
  return gflops_of(n, time_mm(m.a, m.b, m.c, platform));
}

// The rate an intact entry holds, or nullopt for any other (an older layout, an edited or implausible figure):
// read_gemm_cache_facts reads the user's cache strictly.
std::optional<GemmRate> cached_rate(const CacheEntry& entry, c10::ScalarType dtype) {
  const std::optional<CachedGemmFacts> f = read_gemm_cache_facts(entry.facts);
  if (!f) return std::nullopt;
  return GemmRate{f->gflops, f->n, dtype_short_name(dtype), at::get_num_threads(), f->repeats, true};
}

// "float32_matmul_precision=highest cublas_tf32=off": the settings (torch.set_float32_matmul_precision,
// torch.backends.cuda.matmul.allow_tf32) that change what a float32 product computes and how fast.
std::string matmul_precision_text() {
  const at::Context& ctx = at::globalContext();
  const char* precision = "highest";
  switch (ctx.float32MatmulPrecision()) {
    case at::Float32MatmulPrecision::HIGHEST: precision = "highest"; break;
    case at::Float32MatmulPrecision::HIGH: precision = "high"; break;
    case at::Float32MatmulPrecision::MEDIUM: precision = "medium"; break;
  }
  return fmt::format("float32_matmul_precision={} cublas_tf32={}", precision, ctx.allowTF32CuBLAS() ? "on" : "off");
}

}  // namespace

std::map<std::string, std::string> gemm_cache_fields(c10::ScalarType dtype, const Platform& platform,
                                                     const RuntimeInfo& runtime) {
  const PlatformFacts facts = platform.facts();
  return {
      {"probe", "2"},  // how it measures: another method is another entry
      {"cpu", runtime.cpu},         {"isa", runtime.isa},
      {"torch", runtime.torch_version}, {"blas", runtime.blas},
      {"device", facts.name + " " + facts.description},
      {"dtype", dtype_short_name(dtype)},
      {"threads", std::to_string(at::get_num_threads())},
      // A float32 product on a GPU runs 8x faster with TF32 allowed; a rate kept with it on, then compared with
      // a run that has it off (or across GPU generations sharing a cache), is another machine's figure.
      {"matmul", matmul_precision_text()},
      {"arch", facts.architecture},
  };
}

GemmRate measure_gemm_rate(c10::ScalarType dtype, Platform& platform) {
  if (!c10::isFloatingType(dtype))
    throw runtime_error("the GEMM probe runs floating-point dtypes, not " + dtype_short_name(dtype));
  const bool cpu = platform.facts().device.is_cpu();
  // Never a small product: one whose time a busy machine can stretch (a thread descheduled) or whose
  // arithmetic the caches do not yet bound says nothing of the machine's rate.
  const int64_t min_n = cpu ? 1024 : 4096, max_n = cpu ? 4096 : 16384;
  c10::InferenceMode no_autograd;
  int64_t n = min_n;
  Operands m;
  Nanos best = 0;
  for (;;) {
    m = operands(dtype, platform, n);
    time_mm(m.a, m.b, m.c, platform);  // warm-up: the BLAS's own buffers, the device's kernels
    best = time_mm(m.a, m.b, m.c, platform);
    if (best >= kLongEnough || n >= max_n) break;
    n *= 2;
  }
  int repeats = 1;
  for (Nanos spent = best; repeats < kMinRepeats || (repeats < kMaxRepeats && spent < kBudget); ++repeats) {
    const Nanos t = time_mm(m.a, m.b, m.c, platform);
    spent += t;
    best = std::min(best, t);
  }
  GemmRate rate;
  rate.gflops = gflops_of(n, best);
  rate.n = n;
  rate.dtype = dtype_short_name(dtype);
  rate.threads = at::get_num_threads();
  rate.repeats = repeats;
  return rate;
}

namespace {

// The rate measured now and whether other work held the CPU meanwhile (why, one clause; "" when not, or when
// `contention` says not to judge).
std::pair<GemmRate, std::string> measure_judged(c10::ScalarType dtype, Platform& platform, Contention contention) {
  progress_line("measuring the machine's GEMM rate (about a second; kept for later runs) ...");
  // A rate measured while other work held the CPU would make every later run's of_peak too high: the same
  // test as a combination's contended verdict, its counters read outside the timed products.
  const bool judge = contention == Contention::judge && platform.facts().device.is_cpu();
  const std::optional<CpuSample> before = judge ? std::optional<CpuSample>(sample_cpu()) : std::nullopt;
  GemmRate rate = measure_gemm_rate(dtype, platform);
  std::string contended = before ? contention_reason(cpu_use(*before, sample_cpu(), rate.threads)) : "";
  if (contention == Contention::assume) contended = "taken as contended";
  return {rate, contended};
}

using Tell = std::function<void(const std::string&)>;
using CacheFields = std::map<std::string, std::string>;

// What the cache holds for `fields`, judged against one product timed now.
struct Looked {
  std::optional<GemmRate> believed;  // read back: within the margins of the product timed now
  std::optional<GemmRate> doubted;   // above the product timed now: measured again, dropped only for a good figure
  std::string doubt;                 // why, for the note
};

Looked look_up(ArtifactCache& cache, const CacheFields& fields, c10::ScalarType dtype, Platform& platform,
               const Tell& tell) {
  Looked looked;
  const std::optional<CacheEntry> entry = cache.find("gemm", fields);
  if (!entry) return looked;
  if (const std::optional<GemmRate> rate = cached_rate(*entry, dtype)) {
    // A figure kept from a busy machine would make every later of_peak too high (past 100%); one far above
    // this machine (an edited or shared entry) every of_peak near 0: both are measured again.
    const double now = one_product_rate(dtype, platform, rate->n);
    const std::string why = cached_gemm_rate_disagreement(rate->gflops, now);
    if (why.empty()) {
      looked.believed = rate;
    } else if (now > rate->gflops) {  // below a product timed now, it is no peak whatever the load: dropped
      tell(why);
      cache.forget("gemm", fields);
    } else {  // above it, it may be the quiet machine's own figure beside a busy moment
      looked.doubted = rate, looked.doubt = why;
    }
    return looked;
  }
  const auto g = entry->facts.find("gflops");
  tell(fmt::format("the cached GEMM rate entry is unreadable or implausible (gflops={}): it is measured again "
                   "and replaced",
                   to_log_token(g == entry->facts.end() ? std::string("absent") : g->second)));
  cache.forget("gemm", fields);
  return looked;
}

// `rate` kept in the cache in place of what it held.
void keep(ArtifactCache& cache, const CacheFields& fields, const GemmRate& rate, const Tell& tell) {
  try {
    cache.forget("gemm", fields);
    cache.store("gemm", fields, [&](const std::string& dir) {
      std::ofstream(dir + "/rate.txt") << describe_gemm_rate(rate) << "\n";  // for a person looking
      return CacheFields{{"gflops", fmt::format("{:.3f}", rate.gflops)}, {"n", std::to_string(rate.n)},
                    {"repeats", std::to_string(rate.repeats)}};
    });
  } catch (const Error& e) {
    tell(std::string("the GEMM rate is measured but not kept: ") + e.what());
  }
}

}  // namespace

GemmRate gemm_rate(c10::ScalarType dtype, Platform& platform, const RuntimeInfo& runtime, std::string* note,
                   Contention contention) {
  const CacheFields fields = gemm_cache_fields(dtype, platform, runtime);
  if (note) note->clear();
  const Tell tell = [&](const std::string& why) {  // each thing that happened, in order, on one line
    if (note) *note += (note->empty() ? "" : "; ") + why;
  };
  std::optional<ArtifactCache> cache;
  Looked looked;
  try {
    cache.emplace(default_cache_root());
    looked = look_up(*cache, fields, dtype, platform, tell);
  } catch (const Error& e) {
    tell(std::string("the GEMM rate is measured but not kept: ") + e.what());
    cache.reset();
  }
  if (looked.believed) return *looked.believed;
  auto [rate, contended] = measure_judged(dtype, platform, contention);
  const std::optional<GemmRate>& doubted = looked.doubted;
  if (!contended.empty() && doubted) {
    // Never a good figure lost to a busy moment: the entry stays as it is, and this run takes the higher rate.
    tell(fmt::format("the cached GEMM rate, {:.1f} GFLOP/s, is above one product timed now, but the rate measured "
                     "again ({:.1f}) was taken while other work held the CPU ({}): the cached figure is kept, not "
                     "replaced by a contended measurement, and this run uses the {}",
                     doubted->gflops, rate.gflops, contended,
                     doubted->gflops >= rate.gflops ? "cached figure" : "higher figure measured now"));
    return doubted->gflops >= rate.gflops ? *doubted : rate;
  }
  if (!contended.empty()) {
    tell("the GEMM rate was measured while other work held the CPU (" + contended +
         "): used for this run, not kept; a run on a quiet machine measures it again");
    return rate;
  }
  if (doubted) tell(looked.doubt);
  if (cache) keep(*cache, fields, rate, tell);
  return rate;
}

std::string GemmRate::how() const {
  return fmt::format("at::mm_{}_{}_{}threads_best_of_{}_{}", n, dtype, threads, repeats, cached ? "cached" : "measured");
}

std::string describe_gemm_rate(const GemmRate& rate) {
  return fmt::format("gemm rate: {:.1f} GFLOP/s (at::mm {}x{} {}, {} threads, best of {}; {})", rate.gflops, rate.n,
                     rate.n, rate.dtype, rate.threads, rate.repeats,
                     rate.cached ? "read from the cache: `driver --cache clear` measures it again" : "measured now");
}

}  // namespace fmwork
