// sweep/gemm_probe: the GEMM rate measured on the CPU, kept in the cache and read back for the same machine,
// dtype and threads only. Rates are never compared with a bound: a loaded machine measures less.
#include <gtest/gtest.h>

#include <ATen/Parallel.h>

#include <string>

#include "fmwork/platform/platform_registry.hpp"
#include "fmwork/runtime/runtime_info.hpp"
#include "fmwork/sweep/gemm_probe.hpp"
#include "support/test_support.hpp"

namespace {

using fmwork::GemmRate;
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

TEST(GemmProbe, IsKeptInTheCacheForTheSameDtypeAndThreads) {
  TempDir dir;
  fmwork::test_support::ScopedEnv cache("FMWORK_CACHE", dir.path());
  auto cpu = fmwork::make_platform("cpu", {});
  const fmwork::RuntimeInfo runtime = fmwork::runtime_info();
  std::string note;
  const GemmRate first = fmwork::gemm_rate(at::kFloat, *cpu, runtime, &note);
  EXPECT_FALSE(first.cached);
  EXPECT_EQ(note, "") << "the cache folder is writable";
  const GemmRate second = fmwork::gemm_rate(at::kFloat, *cpu, runtime, &note);
  EXPECT_TRUE(second.cached);
  EXPECT_NEAR(second.gflops, first.gflops, 0.0005 + first.gflops * 1e-9) << "kept with 3 decimals";
  EXPECT_EQ(second.n, first.n);
  EXPECT_EQ(second.repeats, first.repeats);
  EXPECT_NE(fmwork::describe_gemm_rate(second).find("read from the cache"), std::string::npos);
  // Another thread count is another entry: measured again.
  const int threads = at::get_num_threads();
  at::set_num_threads(threads == 1 ? 2 : 1);
  const GemmRate other = fmwork::gemm_rate(at::kFloat, *cpu, fmwork::runtime_info(), &note);
  at::set_num_threads(threads);
  EXPECT_FALSE(other.cached);
}

TEST(GemmProbe, AnUnusableCacheCostsOnlyTheKeeping) {
  TempDir dir;
  fmwork::test_support::write_file(dir.file("not-a-folder"), "x");
  fmwork::test_support::ScopedEnv cache("FMWORK_CACHE", dir.file("not-a-folder"));
  auto cpu = fmwork::make_platform("cpu", {});
  std::string note;
  const GemmRate r = fmwork::gemm_rate(at::kFloat, *cpu, fmwork::runtime_info(), &note);
  EXPECT_GT(r.gflops, 0);
  EXPECT_FALSE(r.cached);
  EXPECT_EQ(note.rfind("the GEMM rate is measured but not kept: ", 0), 0u) << note;
}

}  // namespace
