// The dynamic batcher of a serving run: which waiting queries go to the device together, and when. Three
// limits, as text-embeddings-inference has them: a maximum batch size, a maximum wait (the oldest query
// waits at most that long for company once the device is free), and a maximum token count (the budget of
// one batch: padded tokens, size x longest, when batches are padded or sorted; the real tokens when unpadded).
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "fmwork/workload/arrivals.hpp"
#include "fmwork/workload/lengths.hpp"

namespace fmwork {

struct BatchLimits {
  int64_t max_batch = 1;         // >= 1
  ServeNanos max_wait = 0;       // >= 0
  int64_t max_tokens = 0;        // >= the longest query's length (checked by the caller); 0: no token limit
  // padded: FIFO, tokens counted size x longest; sorted: the oldest query with the waiting ones closest to it
  // in length (less padding), counted the same; unpadded: FIFO, the real tokens counted.
  Batching mode = Batching::padded;
};

// A query waiting in the queue: when it was scheduled to arrive and its length in tokens.
struct Waiting {
  int64_t id = 0;
  ServeNanos scheduled = 0;
  int64_t length = 1;
};

// The tokens a batch counts against max_tokens: size x longest (padded, sorted), or the sum (unpadded).
int64_t batch_tokens(Batching mode, int64_t size, int64_t longest, int64_t sum);

// How far sorted looks for queries near the oldest one's length: this many batches' worth of the oldest waiting.
constexpr int64_t kSortedWindow = 16;

// The positions in `queue` (oldest first) of the next batch, within max_batch and max_tokens, and always
// with the oldest query (position 0: no query starves) and at least it (the caller checks that every query
// fits max_tokens alone). padded and unpadded take the longest prefix that fits; sorted takes the oldest and
// then the queries nearest its length among the oldest kSortedWindow x max_batch waiting (ties: the older
// first) while they fit. Empty for an empty queue.
std::vector<size_t> batch_pick(const std::deque<Waiting>& queue, const BatchLimits& limits);

// Whether a batch goes to the (free) device at `now`: the next batch is full (max_batch reached, or a query
// waiting is left out by max_tokens), or its oldest query has waited max_wait, or no other query can arrive
// before the device would be free again (`more_coming` false: waiting would only add latency). False for an
// empty queue.
bool batch_due(const std::deque<Waiting>& queue, const BatchLimits& limits, ServeNanos now, bool more_coming);

// The latest time a non-empty queue may wait before batch_due says yes: its oldest query's arrival plus
// max_wait.
ServeNanos batch_deadline(const std::deque<Waiting>& queue, const BatchLimits& limits);

}  // namespace fmwork
