// sweep/gemm_probe: the GEMM rate measured on the CPU, kept in the cache and read back for the same machine,
// dtype and threads only. Rates are never compared with a bound: a loaded machine measures less.
#include <gtest/gtest.h>

#include <ATen/Parallel.h>

#include <cmath>
#include <map>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "fmwork/cache/artifact_cache.hpp"
#include "fmwork/cache/gemm_cache.hpp"
#include "fmwork/platform/platform_registry.hpp"
#include "fmwork/runtime/runtime_info.hpp"
#include "fmwork/sweep/gemm_probe.hpp"
#include "support/test_support.hpp"

namespace {

using fmwork::GemmRate;
// These tests are of the caching: a rate measured while other tests hold the CPU is kept all the same.
constexpr auto kKeep = fmwork::Contention::ignore;
using fmwork::TempDir;

TEST(GemmProbe, MeasuresTheRunsDtypeAndThreads) {
  auto cpu = fmwork::make_platform("cpu", {});
  const GemmRate r = fmwork::measure_gemm_rate(at::kFloat, *cpu);
  EXPECT_GT(r.gflops, 0);
  EXPECT_GE(r.n, 1024) << "never a small product";
  EXPECT_LE(r.n, 4096);
  EXPECT_EQ(r.n & (r.n - 1), 0) << "n doubles from 1024";
  EXPECT_GE(r.repeats, 3);
  EXPECT_LE(r.repeats, 10);
  EXPECT_EQ(r.threads, at::get_num_threads());
  EXPECT_FALSE(r.cached);
  EXPECT_EQ(r.how(), "at::mm_" + std::to_string(r.n) + "_float32_" + std::to_string(r.threads) + "threads_best_of_" +
                         std::to_string(r.repeats) + "_measured");
  EXPECT_THROW(fmwork::measure_gemm_rate(at::kLong, *cpu), fmwork::Error) << "no GEMM rate for integers";
}

// Keeps `gflops` as the cached rate of these fields, in place of whatever entry they had.
void keep_rate(const std::string& root, const std::map<std::string, std::string>& fields, const std::string& gflops) {
  fmwork::ArtifactCache cache(root);
  cache.forget("gemm", fields);
  cache.store("gemm", fields, [&](const std::string&) {
    return std::map<std::string, std::string>{{"gflops", gflops}, {"n", "1024"}, {"repeats", "5"}};
  });
}

// gemm_rate over a fresh cache that holds `figure` as the kept rate: what it returned, its note, and the figure the
// entry holds after it (nullopt when none is kept).
struct KeptFigureRun {
  GemmRate rate;
  std::string note;
  std::optional<std::string> kept;
};
KeptFigureRun gemm_rate_over_kept(const std::string& figure, fmwork::Contention contention = kKeep) {
  TempDir dir;
  fmwork::test_support::ScopedEnv cache("FMWORK_CACHE", dir.path());
  auto cpu = fmwork::make_platform("cpu", {});
  const fmwork::RuntimeInfo runtime = fmwork::runtime_info();
  const auto fields = fmwork::gemm_cache_fields(at::kFloat, *cpu, runtime);
  keep_rate(dir.path(), fields, figure);
  KeptFigureRun run;
  run.rate = fmwork::gemm_rate(at::kFloat, *cpu, runtime, &run.note, contention);
  if (const auto entry = fmwork::ArtifactCache(dir.path()).find("gemm", fields)) run.kept = entry->facts.at("gflops");
  return run;
}

// The cached figures below are the machine's own, ones no CPU reaches or every machine beats (0.001), so that
// what the probe does with them holds on any machine, idle or loaded.
TEST(GemmProbe, IsKeptInTheCacheForTheSameDtypeAndThreads) {
  TempDir dir;
  fmwork::test_support::ScopedEnv cache("FMWORK_CACHE", dir.path());
  auto cpu = fmwork::make_platform("cpu", {});
  const fmwork::RuntimeInfo runtime = fmwork::runtime_info();
  const auto fields = fmwork::gemm_cache_fields(at::kFloat, *cpu, runtime);
  std::string note;
  const GemmRate first = fmwork::gemm_rate(at::kFloat, *cpu, runtime, &note, kKeep);
  EXPECT_FALSE(first.cached);
  EXPECT_EQ(note, "") << "the cache folder is writable";
  const auto kept = fmwork::ArtifactCache(dir.path()).find("gemm", fields);
  ASSERT_TRUE(kept) << "the measured rate is stored under gemm_cache_fields()";
  EXPECT_EQ(kept->facts.at("gflops"), fmt::format("{:.3f}", first.gflops)) << "kept with 3 decimals";

  // A figure this machine reaches (the best of several products just measured) is read back. The one product
  // timed against it may land outside the margins when the machine's load changed in between (then the entry is
  // measured again and replaced, as it should be; a first figure taken under load stays below every later
  // product once the load has gone): a few tries, each reading the entry as it then stands, of which one must
  // read it back, hold on a machine loaded or not.
  keep_rate(dir.path(), fields, fmt::format("{:.3f}", first.gflops));  // n 1024, repeats 5: read back below
  std::map<std::string, std::string> kept_facts;
  GemmRate second;
  for (int attempt = 0; attempt < 5 && !second.cached; ++attempt) {
    kept_facts = fmwork::ArtifactCache(dir.path()).find("gemm", fields)->facts;
    second = fmwork::gemm_rate(at::kFloat, *cpu, runtime, &note, kKeep);
  }
  ASSERT_TRUE(second.cached) << note;
  EXPECT_EQ(fmt::format("{:.3f}", second.gflops), kept_facts.at("gflops"));
  EXPECT_EQ(std::to_string(second.n), kept_facts.at("n"));
  EXPECT_EQ(std::to_string(second.repeats), kept_facts.at("repeats"));
  EXPECT_NE(fmwork::describe_gemm_rate(second).find("read from the cache"), std::string::npos);
  // Another thread count is another entry: measured again.
  const int threads = at::get_num_threads();
  at::set_num_threads(threads == 1 ? 2 : 1);
  const GemmRate other = fmwork::gemm_rate(at::kFloat, *cpu, fmwork::runtime_info(), &note, kKeep);
  at::set_num_threads(threads);
  EXPECT_FALSE(other.cached);
}

// A rate kept from a busy machine (here 0.001 GFLOP/s) is beaten by one product timed now: it is measured
// again and replaced, so of_peak is not over 100% in every later run.
TEST(GemmProbe, ARateBelowOneProductTimedNowIsMeasuredAgainAndReplaced) {
  const KeptFigureRun run = gemm_rate_over_kept("0.001");
  EXPECT_FALSE(run.rate.cached);
  EXPECT_GT(run.rate.gflops, 0.001 * fmwork::kCachedRateBelowFactor);
  EXPECT_EQ(run.note.rfind("the cached GEMM rate, 0.0 GFLOP/s, is below one product timed now (", 0), 0u) << run.note;
  EXPECT_NE(run.note.find("): it was measured on a busy machine, so it is measured again and replaced"),
            std::string::npos)
      << run.note;
  ASSERT_TRUE(run.kept);
  EXPECT_EQ(*run.kept, fmt::format("{:.3f}", run.rate.gflops)) << "the entry holds the new figure";
}

// A rate far above this machine (an entry edited or brought from a faster one) would make every of_peak near 0:
// one product timed now refuses it, and it is measured again.
TEST(GemmProbe, ARateFarAboveOneProductTimedNowIsMeasuredAgain) {
  const KeptFigureRun run = gemm_rate_over_kept("1000000.000");
  EXPECT_FALSE(run.rate.cached);
  EXPECT_LT(run.rate.gflops, 1e6);
  EXPECT_EQ(run.note.rfind("the cached GEMM rate, 1000000.0 GFLOP/s, is more than 2x one product timed now (", 0), 0u)
      << run.note;
}

// Defect: a run on a busy machine timed one product far below the quiet machine's kept rate, dropped the entry,
// measured again, found the measurement contended and kept nothing: the good figure was gone, and the note said
// only that the new one was not kept. A contended measurement now replaces nothing: the entry stays, the run uses
// the higher figure, and the note says so.
TEST(GemmProbe, AContendedMeasurementNeverCostsAKeptFigure) {
  const KeptFigureRun run = gemm_rate_over_kept("1000000.000", fmwork::Contention::assume);
  ASSERT_TRUE(run.kept) << run.note;
  EXPECT_EQ(*run.kept, "1000000.000") << "the entry is as it was";
  EXPECT_TRUE(run.rate.cached);
  EXPECT_EQ(run.rate.gflops, 1e6) << "the higher figure";
  EXPECT_EQ(run.note.rfind("the cached GEMM rate, 1000000.0 GFLOP/s, is above one product timed now, but the rate "
                           "measured again (", 0), 0u) << run.note;
  EXPECT_NE(run.note.find(") was taken while other work held the CPU (taken as contended): the cached figure is kept, "
                          "not replaced by a contended measurement, and this run uses the cached figure"),
            std::string::npos) << run.note;
  // A figure below one product timed now is no peak whatever the load: dropped, and both things said.
  const KeptFigureRun low = gemm_rate_over_kept("0.001", fmwork::Contention::assume);
  EXPECT_FALSE(low.kept) << low.note;
  EXPECT_FALSE(low.rate.cached);
  EXPECT_EQ(low.note.rfind("the cached GEMM rate, 0.0 GFLOP/s, is below one product timed now (", 0), 0u) << low.note;
  EXPECT_NE(low.note.find("; the GEMM rate was measured while other work held the CPU (taken as contended): used for "
                          "this run, not kept"),
            std::string::npos) << low.note;
}

// The cache is a folder the user may edit or share: a rate no device reaches is not believed but measured
// again, and the entry replaced.
TEST(GemmProbe, AnImplausibleCachedRateIsMeasuredAgain) {
  for (const char* kept_figure : {"inf", "nan", "1e308", "-5", "20000000"}) {
    SCOPED_TRACE(kept_figure);
    const KeptFigureRun run = gemm_rate_over_kept(kept_figure);
    EXPECT_FALSE(run.rate.cached);
    EXPECT_TRUE(std::isfinite(run.rate.gflops) && run.rate.gflops > 0 && run.rate.gflops < 1e7) << run.rate.gflops;
    EXPECT_EQ(run.note, fmt::format("the cached GEMM rate entry is unreadable or implausible (gflops={}): it is "
                                    "measured again and replaced",
                                    kept_figure))
        << "said, not replaced in silence";
    ASSERT_TRUE(run.kept);
    EXPECT_EQ(*run.kept, fmt::format("{:.3f}", run.rate.gflops)) << "the entry holds the new figure";
  }
}

TEST(GemmProbe, AnUnusableCacheCostsOnlyTheKeeping) {
  TempDir dir;
  fmwork::test_support::write_file(dir.file("not-a-folder"), "x");
  fmwork::test_support::ScopedEnv cache("FMWORK_CACHE", dir.file("not-a-folder"));
  auto cpu = fmwork::make_platform("cpu", {});
  std::string note;
  const GemmRate r = fmwork::gemm_rate(at::kFloat, *cpu, fmwork::runtime_info(), &note, kKeep);
  EXPECT_GT(r.gflops, 0);
  EXPECT_FALSE(r.cached);
  EXPECT_EQ(note.rfind("the GEMM rate is measured but not kept: ", 0), 0u) << note;
}

}  // namespace

// Defect 4: a rate kept with TF32 allowed (or on another GPU generation) answered a run without it.
TEST(GemmProbe, TheKeyHoldsTheMatmulPrecisionAndTheArchitecture) {
  auto cpu = fmwork::make_platform("cpu", {});
  const fmwork::RuntimeInfo runtime = fmwork::runtime_info();
  at::Context& ctx = at::globalContext();
  const auto before = ctx.float32MatmulPrecision();
  ctx.setFloat32MatmulPrecision("highest");
  const auto highest = fmwork::gemm_cache_fields(at::kFloat, *cpu, runtime);
  ctx.setFloat32MatmulPrecision("high");
  const auto high = fmwork::gemm_cache_fields(at::kFloat, *cpu, runtime);
  ctx.setFloat32MatmulPrecision(before == at::Float32MatmulPrecision::HIGHEST ? "highest"
                                : before == at::Float32MatmulPrecision::HIGH  ? "high"
                                                                              : "medium");
  EXPECT_EQ(highest.at("matmul").rfind("float32_matmul_precision=highest ", 0), 0u) << highest.at("matmul");
  EXPECT_NE(highest.at("matmul"), high.at("matmul"));
  EXPECT_EQ(highest.at("arch"), "") << "the cpu's facts are its own fields (cpu, isa)";
}
