// Tests of sweep/rep_lengths: each mode's batches of request lengths, the same requests for every mode of one
// seed, a sorted window's full batches in a shuffled order, and the token counts of a rep.
#include "fmwork/sweep/rep_lengths.hpp"

#include <algorithm>
#include <map>

#include <gtest/gtest.h>

namespace fmwork {
namespace {

LengthSpec lognormal() { return parse_length_spec("lognormal:64,512", "--input_lengths"); }

TEST(RepLengths, PaddedAndUnpaddedDrawTheSameRequests) {
  RepLengths padded(lognormal(), Batching::padded, 32, 4, std::nullopt, 9);
  RepLengths unpadded(lognormal(), Batching::unpadded, 32, 4, std::nullopt, 9);
  LengthSampler sampler(lognormal(), 9);
  for (int rep = 0; rep < 4; ++rep) {
    const std::vector<int64_t> expected = sampler.draw(32);
    EXPECT_EQ(padded.next(), expected);
    EXPECT_EQ(unpadded.next(), expected);
  }
}

TEST(RepLengths, SortedRunsAWindowsFullBatchesOnceEach) {
  // A window of 4 reps x 8 requests: the same 32 requests padded draws, as 4 batches sorted within the window.
  RepLengths sorted(lognormal(), Batching::sorted, 8, 4, std::nullopt, 3);
  LengthSampler sampler(lognormal(), 3);
  std::vector<int64_t> window = sampler.draw(32);
  std::vector<std::vector<int64_t>> seen;
  for (int rep = 0; rep < 4; ++rep) {
    std::vector<int64_t> batch = sorted.next();
    ASSERT_EQ(batch.size(), 8u);
    EXPECT_TRUE(std::is_sorted(batch.rbegin(), batch.rend())) << "longest first within a batch";
    seen.push_back(batch);
  }
  std::sort(seen.begin(), seen.end(), [](const auto& a, const auto& b) { return a.front() > b.front(); });
  std::vector<int64_t> all;
  for (const auto& batch : seen) all.insert(all.end(), batch.begin(), batch.end());
  std::sort(window.begin(), window.end(), std::greater<>());
  EXPECT_EQ(all, window);  // the window's requests, each once, in batches cut from the sorted window
  // A window of 20 requests for batches of 8: two full batches a window, the 4 left over are not run.
  RepLengths small(lognormal(), Batching::sorted, 8, 10, 20, 3);
  for (int rep = 0; rep < 5; ++rep) EXPECT_EQ(small.next().size(), 8u);
}

TEST(RepLengths, SortedOrderOfBatchesIsShuffledAndSeeded) {
  // 64 batches in one window: taken longest first they would be in decreasing order of their longest.
  RepLengths a(lognormal(), Batching::sorted, 4, 64, std::nullopt, 5), b(lognormal(), Batching::sorted, 4, 64, std::nullopt, 5);
  std::vector<int64_t> firsts;
  for (int rep = 0; rep < 64; ++rep) {
    const std::vector<int64_t> batch = a.next();
    EXPECT_EQ(batch, b.next());
    firsts.push_back(batch.front());
  }
  EXPECT_FALSE(std::is_sorted(firsts.rbegin(), firsts.rend()));
}

TEST(RepLengths, TokensOfARep) {
  const TokenCounts padded = rep_tokens({5, 9, 2}, 9, Batching::padded);
  EXPECT_EQ(padded.real, 16);
  EXPECT_EQ(padded.padded, 27);
  EXPECT_EQ(rep_tokens({5, 9, 2}, 12, Batching::sorted).padded, 36);  // padded to a fixed shape
  const TokenCounts unpadded = rep_tokens({5, 9, 2}, 9, Batching::unpadded);
  EXPECT_EQ(unpadded.padded, 16);
  EXPECT_DOUBLE_EQ(unpadded.padding_fraction(), 0.0);
}

}  // namespace
}  // namespace fmwork
