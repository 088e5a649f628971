// The dynamic batcher's rules (batcher.hpp).
#include "fmwork/workload/batcher.hpp"

#include <algorithm>
#include <cstdlib>
#include <numeric>

namespace fmwork {

int64_t batch_tokens(Batching mode, int64_t size, int64_t longest, int64_t sum) {
  return mode == Batching::unpadded ? sum : size * longest;
}

std::vector<size_t> batch_pick(const std::deque<Waiting>& queue, const BatchLimits& limits) {
  // The candidates: the first max_batch in order (a prefix is all FIFO can take), or for sorted the oldest
  // kSortedWindow x max_batch (a queue grown long under overload costs a bounded sort per batch).
  // Compared by division: kSortedWindow x a --batch_sizes near 2^63 overflowed, and the window came out
  // negative, then a vector of 2^64 - n positions (std::length_error).
  const auto size = static_cast<int64_t>(queue.size());
  const int64_t per_batch = limits.mode == Batching::sorted ? kSortedWindow : 1;
  const auto window = static_cast<size_t>(limits.max_batch >= (size + per_batch - 1) / per_batch
                                              ? size
                                              : std::min(size, per_batch * limits.max_batch));
  std::vector<size_t> order(window);
  std::iota(order.begin(), order.end(), size_t{0});
  if (limits.mode == Batching::sorted && !queue.empty()) {
    const int64_t first = queue.front().length;
    std::stable_sort(order.begin() + 1, order.end(), [&](size_t a, size_t b) {
      return std::llabs(queue[a].length - first) < std::llabs(queue[b].length - first);
    });
  }
  std::vector<size_t> picked;
  int64_t longest = 0, sum = 0;
  for (size_t i : order) {
    if (static_cast<int64_t>(picked.size()) >= limits.max_batch) break;
    const int64_t next_longest = std::max(longest, queue[i].length), next_sum = sum + queue[i].length;
    const int64_t tokens = batch_tokens(limits.mode, static_cast<int64_t>(picked.size()) + 1, next_longest, next_sum);
    if (!picked.empty() && limits.max_tokens > 0 && tokens > limits.max_tokens) break;
    longest = next_longest;
    sum = next_sum;
    picked.push_back(i);
  }
  return picked;
}

bool batch_due(const std::deque<Waiting>& queue, const BatchLimits& limits, ServeNanos now, bool more_coming) {
  if (queue.empty()) return false;
  const size_t picked = batch_pick(queue, limits).size();
  if (picked < queue.size() || static_cast<int64_t>(picked) >= limits.max_batch) return true;
  return !more_coming || now >= batch_deadline(queue, limits);
}

ServeNanos batch_deadline(const std::deque<Waiting>& queue, const BatchLimits& limits) {
  return queue.front().scheduled + limits.max_wait;
}

}  // namespace fmwork
