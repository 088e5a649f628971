#!/usr/bin/env bash
# The driver's own timing floor and the demo's end-to-end wall time, measured in one run.
#  1. Timing floor: the median rep duration on a model whose forward returns its input (`make_model --kind
#     identity`): what the timed region costs when the model does nothing (TorchScript call + synchronise).
#  2. The same sweep on the embedded default model, for scale.
#  3. The end-to-end wall time of the demo command (process start to exit), median of N runs.
# Usage: bench/timing_floor.sh [build-dir] [runs]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
runs=${2:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$build/make_model" --kind identity --out "$work/identity/model.pt" --vocab 30522 >/dev/null

median_field() {  # median of column $2 of stdin (numbers), awk-only
  sort -g | awk -v col=1 '{v[NR]=$col} END {if (NR%2) print v[(NR+1)/2]; else printf "%.9f\n", (v[NR/2]+v[NR/2+1])/2}'
}

echo "== timing floor: identity model, 1000 reps per combination"
"$build/driver" --platform cpu --model_class Identity --model_name "$work/identity/model.pt" \
  --input_sizes 128 --batch_sizes 1,8 --reps 1000 --eval > "$work/identity.log"
grep '^FMWORK STAT' "$work/identity.log" | awk '{for (i=3;i<=NF;i++) {split($i,kv,"="); f[kv[1]]=kv[2]};
  printf "input=%s batch=%s  median(p50)=%s ms  min=%s ms  p99=%s ms\n", f["input"], f["batch"], f["p50_ms"], f["min_ms"], f["p99_ms"]}'

echo "== default model (4 layers, hidden 256), 50 reps"
"$build/driver" --platform cpu --model_class BertModel --model_name "$build/models/encoder-mini/model.pt" \
  --input_sizes 64,128 --batch_sizes 1,4 --reps 50 --eval > "$work/default.log"
grep '^FMWORK RES' "$work/default.log" | awk '{printf "input=%s batch=%s  latency=%s ms  throughput=%s seq/s\n", $7, $8, $9, $10}'

echo "== demo end to end (driver process wall time, $runs runs)"
for i in $(seq "$runs"); do
  s=$(date +%s.%N)
  "$build/driver" --platform cpu --model_class BertModel --model_name "$build/models/encoder-mini/model.pt" \
    --input_sizes 64,128 --batch_sizes 1,4 --reps 10 --eval > /dev/null
  e=$(date +%s.%N)
  awk -v e="$e" -v s="$s" 'BEGIN {printf "%.6f\n", e - s}'
done | median_field | awk '{printf "median wall time: %.3f s\n", $1}'
