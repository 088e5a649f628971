#!/usr/bin/env bash
# process's time on a serve log of N SERVE lines against one of 4N, for every format: linear ~4x, quadratic ~16x
# (the summary and the HTML page were quadratic in a log's SERVE lines: 10k lines took 28-34 s, csv 0.4 s).
# A benchmark, not a test: the figures depend on the machine and its load. Needs only the core build's process.
# Usage: bench/report_linear.sh [build dir] [lines] [rounds]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-core}
lines=${2:-2500}
rounds=${3:-3}
process="$build/process"
[ -x "$process" ] || { echo "report_linear: no $process; build the core first (docs/testing.md)" >&2; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# A serve log of $1 levels, each line as driver serve writes it (the rates rising, so the chart has a curve).
write_log() {
  awk -v n="$1" 'BEGIN {
    print "FMWORK ARG --rates 1"
    for (i = 1; i <= n; i++)
      printf "FMWORK SERVE level=%d phase=levels arrival=poisson rate=%d.000 lengths=fixed:128 batching=padded " \
             "max_batch=8 max_wait_ms=0.000 max_tokens=0 queries=104 warmup_queries=21 unanswered=0 window_s=5.031 " \
             "offered_qps=%d.391 achieved_qps=%d.672 tokens_per_s=2646.0 p50_ms=14.122 p90_ms=17.540 p99_ms=24.871 " \
             "p999_ms=27.322 max_ms=27.594 mean_ms=14.960 queue_p50_ms=1.000 service_p50_ms=9.000 batches=99 " \
             "mean_batch=1.051 batch_hist=1:94,2:5 busy=0.3071 bound=p99:50 bound_ms=24.871 verdict=VALID " \
             "reason=kept up, enough queries, p99 24.871 <= 50 ms\n", i, i, i, i
  }' > "$2"
}
write_log "$lines" "$dir/small.log"
write_log "$((4 * lines))" "$dir/large.log"

# The median of $rounds runs of process on $2 in format $1, in seconds.
seconds() {
  local times=()
  for _ in $(seq "$rounds"); do
    local start end
    start=$(date +%s.%N)
    "$process" --path "$2" --format "$1" > /dev/null
    end=$(date +%s.%N)
    times+=("$(echo "$end - $start" | bc)")
  done
  printf '%s\n' "${times[@]}" | sort -g | sed -n "$(( (rounds + 1) / 2 ))p"
}

printf '%-8s %10s %10s %7s   (%d and %d SERVE lines, median of %d)\n' format small_s large_s ratio "$lines" \
  "$((4 * lines))" "$rounds"
for format in json csv summary html; do
  small=$(seconds "$format" "$dir/small.log")
  large=$(seconds "$format" "$dir/large.log")
  printf '%-8s %10.3f %10.3f %7.1f\n' "$format" "$small" "$large" "$(echo "$large / $small" | bc -l)"
done
echo "linear: a ratio near 4; quadratic: near 16"
