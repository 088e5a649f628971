// bench/json_linear.sh: parse_json's time on a wide object of N keys and of 4N keys, alternated, median of
// each; linear parsing gives a ratio near 4, a parser quadratic in an object's width (nlohmann's callback
// parser) near 16. A benchmark, not a test: the figures depend on the machine and its load.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "fmwork/base/json_input.hpp"

namespace {

std::string wide_object(int keys) {
  std::string text = "{";
  for (int i = 0; i < keys; ++i) text += (i ? ",\"" : "\"") + std::to_string(i) + "\":{\"a\":[1]}";
  return text + "}";
}

double seconds_to_parse(const std::string& text) {
  const auto start = std::chrono::steady_clock::now();
  const size_t n = fmwork::parse_json(text, "bench").size();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (n == 0) std::abort();  // keeps the parse from being optimised away
  return s;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int keys = argc > 1 ? std::atoi(argv[1]) : 50000;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 5;
  if (keys <= 0 || rounds <= 0) {
    std::fprintf(stderr, "usage: json_linear [keys > 0] [rounds > 0]\n");
    return 2;
  }
  const std::string small = wide_object(keys), large = wide_object(4 * keys);
  std::vector<double> a, b;
  for (int r = 0; r < rounds; ++r) {
    a.push_back(seconds_to_parse(small));
    b.push_back(seconds_to_parse(large));
  }
  const double ma = median(a), mb = median(b);
  std::printf("keys %d: %.4f s; keys %d: %.4f s (medians of %d); ratio %.2f (linear ~4, quadratic ~16)\n", keys, ma,
              4 * keys, mb, rounds, mb / ma);
  return 0;
}
